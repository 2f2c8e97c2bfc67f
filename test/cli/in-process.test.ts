import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { runCli, spawnCli } from '../helpers/cli.js';
import { Sandbox } from './cli-support.js';

/**
 * The CLI tests run `ugs` in process (test/helpers/cli.ts); this proves the
 * binary prints the same bytes and exits with the same code, so what they
 * check holds for `ugs` itself.
 */
describe('ugs in process', () => {
  const sandbox = new Sandbox();
  after(() => sandbox.cleanup());

  it('prints what the binary prints, on both streams, with its exit code', async () => {
    const dir = sandbox.dir();
    await sandbox.createKey(dir, ['--name', 'smoke']);
    const env = { UGS_DATA_DIR: dir, UGS_SECRET: '', LOG_LEVEL: 'info' };
    const commands = [
      ['--help'],
      ['--version'],
      ['keys', 'list'],
      ['audit', '--json'],
      // Failures: commander's usage error with the help after it, a missing argument, and the CLI's own one line.
      ['keys', 'list', '--bogus'],
      ['keys', 'revoke'],
      ['keys', 'revoke', 'key_0123456789abcdef'],
      ['webhooks', 'deliveries', 'wh_x', '--limit', '500'],
      ['keys'],
    ];
    for (const args of commands) {
      const [inProcess, binary] = [await runCli(args, env), await spawnCli(args, env)];
      assert.deepEqual(inProcess, binary, `ugs ${args.join(' ')}`);
    }
  });

  it('leaves the environment as it found it', async () => {
    const before = { ...process.env };
    await runCli(['keys', 'list'], { UGS_DATA_DIR: sandbox.dir(), UGS_SMOKE_ONLY: 'x' });
    assert.deepEqual({ ...process.env }, before);
  });
});
