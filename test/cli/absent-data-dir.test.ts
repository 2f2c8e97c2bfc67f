import assert from 'node:assert/strict';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import type { CliResult } from '../helpers/cli.js';
import { assertOneLineFailure, lines, Sandbox, STACK_LINE, stopServer } from './cli-support.js';

/**
 * A data dir that does not exist yet: a fresh machine, or a replica added to a
 * PostgreSQL deployment. On PostgreSQL the data dir holds only the server
 * secret, so nothing made it before the first secret was written: `ugs keys
 * create` died with a stack trace (ENOENT on server-secret's temporary file,
 * issue 37 item 13). Every command either makes the folder it needs, as the
 * SQLite store does (0700, the secret 0600), or says in one line what to do.
 */

const STORES = ['sqlite', 'postgres'] as const;

/** The commands a first use begins with: each makes the store, and so the server secret. */
const FIRST_USE = [['keys', 'create'], ['migrate'], ['serve']];

/** Commands that read the server secret of a store that exists (every command that opens one does), each able to run on one key. */
const READ_THE_SECRET = [
  ['keys', 'create', '--name', 'second'],
  ['keys', 'list'],
  ['audit'],
  ['export'],
  ['signing-keys', 'list'],
  ['signing-keys', 'rotate'],
  ['webhooks', 'list'],
  ['usage'],
  ['migrate'],
  ['secret', 'rotate', '--grace-ms', '0'],
];

describe('a data dir that does not exist yet', () => {
  const sandbox = new Sandbox();
  const databases: TestDatabase[] = [];
  after(async () => {
    for (const database of databases) await database.drop();
    await sandbox.cleanup();
  });

  /** The environment of a fresh store of `kind`: SQLite in the data dir, or an empty PostgreSQL database. */
  async function freshStore(kind: (typeof STORES)[number]): Promise<Record<string, string>> {
    if (kind === 'sqlite') return {};
    const database = await createTestDatabase();
    databases.push(database);
    return { DATABASE_URL: database.url };
  }

  /** A data dir two levels below an empty folder: neither exists. */
  const absentDir = () => join(sandbox.dir('ugs-fresh-machine'), 'srv', 'ugs');

  /** `ugs ...command` on `dir`; `serve` is started and stopped, and counts as exit 0 once it listened and stopped cleanly. */
  async function run(dir: string, command: string[], env: Record<string, string>): Promise<CliResult> {
    if (command[0] !== 'serve') return sandbox.ugs(dir, command, env);
    const server = await sandbox.serve(dir, env);
    return { code: await stopServer(server), stdout: '', stderr: server.output() };
  }

  for (const kind of STORES) {
    it(`${kind}: keys create, migrate and serve make the folder (0700) and the server secret (0600), and every command reads it afterwards`, async () => {
      for (const command of FIRST_USE) {
        const dir = absentDir();
        const env = await freshStore(kind);
        const made = await run(dir, command, env);
        assert.equal(made.code, 0, `ugs ${command.join(' ')}: ${made.stderr}`);
        assert.ok(!made.stderr.includes(STACK_LINE), made.stderr);
        assert.equal(statSync(dir).mode & 0o777, 0o700, `ugs ${command.join(' ')}: the data dir's mode`);
        assert.equal(statSync(join(dir, 'server-secret')).mode & 0o777, 0o600, `ugs ${command.join(' ')}: the secret's mode`);
        if (kind === 'postgres') assert.deepEqual(readdirSync(dir), ['server-secret'], 'on PostgreSQL the data dir holds the secret only');
      }

      const dir = absentDir();
      const env = await freshStore(kind);
      await sandbox.createKey(dir, [], env);
      for (const command of READ_THE_SECRET) {
        const result = await sandbox.ugs(dir, command, env);
        assert.equal(result.code, 0, `ugs ${command.join(' ')}: ${result.stderr}`);
        assert.ok(!result.stderr.includes(STACK_LINE), result.stderr);
      }
    });
  }

  it('postgres with UGS_SECRET: nothing needs the data dir, and nothing makes it', async () => {
    const dir = absentDir();
    const env = { ...(await freshStore('postgres')), UGS_SECRET: 'a'.repeat(64) };
    for (const command of [['keys', 'create'], ['keys', 'list'], ['migrate']]) {
      const result = await sandbox.ugs(dir, command, env);
      assert.equal(result.code, 0, `ugs ${command.join(' ')}: ${result.stderr}`);
    }
    assert.equal(existsSync(dir), false);
  });

  it('postgres, a store made on another machine: every command says in one line to bring its secret, exit 1, creating nothing', async () => {
    const env = await freshStore('postgres');
    await sandbox.createKey(sandbox.dir('ugs-first-machine'), [], env);
    const dir = absentDir();
    for (const command of [...FIRST_USE, ...READ_THE_SECRET]) {
      const result = await sandbox.ugs(dir, command, env);
      assertOneLineFailure(result, ['server secret', 'UGS_SECRET', join(dir, 'server-secret')]);
      assert.equal(result.code, 1, `ugs ${command.join(' ')}`);
      assert.equal(existsSync(dir), false, `ugs ${command.join(' ')} made ${dir}`);
    }
  });

  it('postgres, an empty database: the commands that need a store refuse it in one line before looking for the data dir', async () => {
    const env = await freshStore('postgres');
    const dir = absentDir();
    for (const command of READ_THE_SECRET.filter(([first]) => !['keys', 'migrate'].includes(first!))) {
      const result = await sandbox.ugs(dir, command, env);
      assertOneLineFailure(result, ['No store in the PostgreSQL database']);
      assert.equal(existsSync(dir), false, `ugs ${command.join(' ')} made ${dir}`);
    }
  });

  for (const kind of STORES) {
    it(`${kind}: a data dir that cannot be made (below a file) is one line naming it, exit 1`, async () => {
      const file = join(sandbox.dir('ugs-blocked'), 'a-file');
      writeFileSync(file, '');
      const dir = join(file, 'data');
      const env = await freshStore(kind);
      for (const command of FIRST_USE) {
        const result = await sandbox.ugs(dir, command, env);
        assertOneLineFailure(result, [dir, 'UGS_DATA_DIR']);
        assert.equal(result.code, 1, `ugs ${command.join(' ')}`);
        assert.deepEqual(lines(result.stdout), []);
      }
    });
  }
});
