import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { freePort } from './helpers/embedded-postgres.js';
import { openShell, quickStartBlock, ROOT, shBlocks } from './helpers/pasted-shell.js';
import { makeTempDir } from './helpers/temp-dir.js';

const SHELLS = ['bash', 'zsh'] as const;
const available = (shell: string) => existsSync(`/usr/bin/${shell}`) || existsSync(`/bin/${shell}`);

/**
 * The README's Quick start, pasted as a reader pastes it: into a shell that a
 * failing line does not end (no `set -e` of the test's own), with no setting
 * the README does not show. Only what a fresh clone would differ in is set:
 * `npm ci` has run already, the port is a free one (the block reads PORT), the
 * store goes to a temp dir (UGS_DATA_DIR), and so does the service's log (the
 * block reads TMPDIR).
 */
function pasteInto(shell: 'bash' | 'zsh', port: number, temp: string) {
  return openShell(shell, { ...process.env, PORT: String(port), UGS_DATA_DIR: `${temp}/data`, TMPDIR: temp }, { strict: false });
}

describe('README quick start', { timeout: 120_000 }, () => {
  it('names its port once (PORT, 8080 by default) and uses $PORT everywhere, and writes no file but the log it names', () => {
    const block = quickStartBlock();
    assert.deepEqual(block.match(/8080/g), ['8080'], 'the port appears once, in PORT=${PORT:-8080}');
    assert.match(block, /PORT=\$\{PORT:-8080\}/);
    assert.doesNotMatch(block, /localhost:8080|127\.0\.0\.1:8080/);
    assert.deepEqual(
      [...block.matchAll(/>\s*(?!\/dev\/null)("?[\w./~$]\S*)/g)].map((m) => m[1]),
      ['"$LOG"'],
      'the only file written is the log',
    );
    assert.doesNotMatch(block, /\btee\b/);
  });

  it('holds no comment in any walkthrough block: interactive zsh, as macOS starts it, runs `# …` as a command', () => {
    const blocks = [
      ...shBlocks('README.md', '## Quick start'),
      ...shBlocks('docs/webhooks.md', '### Try it: a first delivery on this machine'),
    ];
    for (const block of blocks)
      // A `#` that starts a word outside quotes: the lines here quote no `#`.
      assert.doesNotMatch(block.replace(/'[^']*'|"[^"]*"/g, ''), /(^|\s)#/, block);
  });

  it('stops at the first failure with one line: the port another process holds, and nothing sent to it', async () => {
    const temp = makeTempDir('ugs-quick-start');
    const seen: string[] = [];
    const squatter = createServer((req, res) => {
      seen.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
    const port = (squatter.address() as AddressInfo).port;
    try {
      for (const shell of SHELLS.filter(available)) {
        const terminal = pasteInto(shell, port, temp.path);
        try {
          const status = await terminal.paste(quickStartBlock(), 110_000);
          const context = `${shell}: exit ${status}\nstdout:\n${terminal.stdout()}\nstderr:\n${terminal.stderr()}`;
          assert.notEqual(status, 0, context);
          // The store's line of `keys create`, then the service's one line; no curl, no kill, nothing on stdout.
          assert.equal(
            terminal.unexpectedStderr(),
            `ugs: listen EADDRINUSE: address already in use 127.0.0.1:${port}: another process is using the port; set PORT to a free one.\n`,
            context,
          );
          assert.equal(terminal.stdout(), '', context);
          // The shell itself goes on, as a reader's terminal does.
          assert.equal(await terminal.paste('echo still here'), 0, context);
        } finally {
          await terminal.close();
        }
      }
      assert.deepEqual(
        seen.filter((request) => !request.startsWith('GET /readyz ')),
        [],
        'only /readyz was asked of the other process, without the key',
      );
    } finally {
      squatter.closeAllConnections();
      await new Promise<void>((resolve) => squatter.close(() => resolve()));
      temp.remove();
    }
  });

  for (const shell of SHELLS) {
    it(
      `pastes into ${shell} as it is and works: the three answers on lines of their own, the log in its file, stderr the store's line, a clean stop, no file left`,
      { skip: !available(shell) && `no ${shell} here` },
      async () => {
        const temp = makeTempDir('ugs-quick-start');
        const before = readdirSync(ROOT).sort();
        const terminal = pasteInto(shell, await freePort(), temp.path);
        try {
          const status = await terminal.paste(quickStartBlock(), 110_000);
          const context = `exit ${status}\nstdout:\n${terminal.stdout()}\nstderr:\n${terminal.stderr()}`;
          assert.equal(status, 0, context);
          // What README says goes to stderr, and nothing else: no "Connection refused" while the service starts, no complaint.
          assert.equal(terminal.stderr(), `ugs: store: SQLite in ${temp.path}/data (a new, empty store, created just now)\n`, context);
          // Every line printed is an answer: none glued to a log line.
          const lines = terminal.stdout().split('\n').filter(Boolean);
          assert.equal(lines.length, 3, context);
          const [created, updated, rotated] = lines.map((line) => JSON.parse(line));
          assert.equal(created.new_user_group, true, context);
          assert.match(created.user_group.token, /^ugt_/);
          assert.deepEqual(updated.user_group.properties, { region: 'eu', plan: 'pro' }, context);
          assert.equal(rotated.success, 1, context);
          assert.notEqual(rotated.user_group.token, created.user_group.token);
          assert.equal(rotated.user_group.team_id, created.user_group.team_id);
          // The log the block names holds the service's lines, a request's among them.
          const log = readFileSync(`${temp.path}/ugs-quick-start.log`, 'utf8');
          assert.match(log, /^\{"level":30,.*"url":"\/api\/user"/m, log);
          assert.deepEqual(readdirSync(ROOT).sort(), before, 'the block leaves no file in the repository');
        } finally {
          await terminal.close();
          temp.remove();
        }
      },
    );
  }
});
