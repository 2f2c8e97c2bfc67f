import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { freePort } from './helpers/embedded-postgres.js';
import { openShell, quickStartBlock, ROOT } from './helpers/pasted-shell.js';
import { makeTempDir } from './helpers/temp-dir.js';

const SHELLS = ['bash', 'zsh'] as const;

describe('README quick start', { timeout: 120_000 }, () => {
  it('names its port once (PORT, 8080 by default) and uses $PORT everywhere, and writes no answer file', () => {
    const block = quickStartBlock().replace(/(^|\s)#\s.*$/gm, '');
    assert.deepEqual(block.match(/8080/g), ['8080'], 'the port appears once, in PORT=${PORT:-8080}');
    assert.match(block, /PORT=\$\{PORT:-8080\}/);
    assert.doesNotMatch(block, /localhost:8080|127\.0\.0\.1:8080/);
    assert.doesNotMatch(block, />\s*(?!\/dev\/null)[\w./~$]|\btee\b/, 'no output is written to a file');
  });

  it('sends nothing to another process that holds the port: the service says so and the calls go nowhere', async () => {
    const temp = makeTempDir('ugs-quick-start');
    const seen: string[] = [];
    const squatter = createServer((req, res) => {
      seen.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
    const port = (squatter.address() as AddressInfo).port;
    const terminal = openShell('bash', { ...process.env, PORT: String(port), UGS_DATA_DIR: `${temp.path}/data`, LOG_LEVEL: 'warn' });
    try {
      // set -e ends the shell at the first call, which has no URL to go to.
      await assert.rejects(terminal.paste(quickStartBlock(), 110_000), /exited/);
      assert.match(terminal.stderr(), /another process is using the port; set PORT to a free one/);
      assert.deepEqual(
        seen.filter((request) => !request.startsWith('GET /readyz ')),
        [],
        'only /readyz was asked of the other process, without the key',
      );
    } finally {
      await terminal.close();
      squatter.closeAllConnections();
      await new Promise<void>((resolve) => squatter.close(() => resolve()));
      temp.remove();
    }
  });

  for (const shell of SHELLS) {
    const available = existsSync(`/usr/bin/${shell}`) || existsSync(`/bin/${shell}`);
    it(
      `pastes into ${shell} as it is and works: key, service, the three calls, a clean stop, nothing on stderr, no file left`,
      { skip: !available && `no ${shell} here` },
      async () => {
        const temp = makeTempDir('ugs-quick-start');
        const before = readdirSync(ROOT).sort();
        const port = await freePort();
        // Only what a fresh clone would differ in: `npm ci` has run already, the port is free (PORT is set, as the block allows), the store
        // goes to a temp dir.
        const terminal = openShell(shell, { ...process.env, PORT: String(port), UGS_DATA_DIR: `${temp.path}/data`, LOG_LEVEL: 'warn' });
        try {
          const status = await terminal.paste(quickStartBlock(), 110_000);
          const context = `exit ${status}\nstdout:\n${terminal.stdout()}\nstderr:\n${terminal.stderr()}`;
          assert.equal(status, 0, context);
          // No "Connection refused" while the service starts, no curl or shell complaint: stderr stays empty.
          assert.equal(terminal.unexpectedStderr(), '', context);
          // What it did print: the one line naming the store `keys create` made (issue 26, item 13).
          assert.ok(
            terminal.stderr().startsWith(`ugs: store: SQLite in ${temp.path}/data (a new, empty store, created just now)\n`),
            context,
          );
          const answers = terminal
            .stdout()
            .split('\n')
            .filter((line) => line.startsWith('{'))
            .map((line) => JSON.parse(line));
          assert.equal(answers.length, 3, context);
          const [created, updated, rotated] = answers;
          assert.equal(created.new_user_group, true, context);
          assert.match(created.user_group.token, /^ugt_/);
          assert.deepEqual(updated.user_group.properties, { region: 'eu', plan: 'pro' }, context);
          assert.equal(rotated.success, 1, context);
          assert.notEqual(rotated.user_group.token, created.user_group.token);
          assert.equal(rotated.user_group.team_id, created.user_group.team_id);
          assert.deepEqual(readdirSync(ROOT).sort(), before, 'the block leaves no file in the repository');
        } finally {
          await terminal.close();
          temp.remove();
        }
      },
    );
  }
});
