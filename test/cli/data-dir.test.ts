import assert from 'node:assert/strict';
import { cpSync, existsSync, readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { createTestDatabase } from '../helpers/postgres.js';
import { lastLine, type CliPlace } from '../helpers/cli.js';
import { ApiClient } from '../helpers/http-client.js';
import { API_KEY, assertOneLineFailure, lines, Sandbox, stopServer } from './cli-support.js';

/** Tables in the database's public schema. */
async function tableCount(url: string): Promise<number> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>("SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = 'public'");
    return Number(rows[0]?.n);
  } finally {
    await client.end();
  }
}

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * Every command that neither begins a first use (`keys create`, `migrate`,
 * `import`, `serve`) nor needs no store (`config`): each only reads or changes
 * what a store already holds, so a missing store means the wrong UGS_DATA_DIR.
 */
const NEEDS_A_STORE = [
  ['keys', 'list'],
  ['keys', 'revoke', 'key_0123456789abcdef'],
  ['audit'],
  ['export'],
  ['signing-keys', 'list'],
  ['signing-keys', 'rotate'],
  ['secret', 'rotate'],
  ['webhooks', 'list'],
  ['webhooks', 'add', 'https://hooks.example.com/ugs'],
  ['webhooks', 'remove', 'wh_0123456789abcdef'],
  ['webhooks', 'deliveries', 'wh_0123456789abcdef'],
  ['viewers', 'list', '--group', 'acme'],
  ['viewers', 'revoke', 'ana'],
  ['data-sources', 'list'],
  ['data-sources', 'add', '--id', '213', '--name', 'Acme', '--host', 'db.internal', '--database', 'acme', '--user', 'dash'],
  ['data-sources', 'update', '213', '--port', '5433'],
  ['data-sources', 'check', '213'],
  ['data-sources', 'remove', '213'],
  ['metabase', 'show'],
  ['metabase', 'mint', '--group', 'acme', '--dashboard', '12', '--param', 'tenant=user_group_id'],
  ['metabase', 'remove'],
  ['customers', 'list'],
  ['customers', 'show', 'acme'],
  ['customers', 'set', 'acme', '--demo'],
  ['group-tags', 'list'],
  ['group-tags', 'create', 'sales'],
  ['group-tags', 'rename', 'sales', 'east'],
  ['group-tags', 'delete', 'sales'],
  ['groups', 'list'],
  ['groups', 'show', 'acme'],
  ['groups', 'create', 'acme', '--name', 'Acme'],
  ['groups', 'update', 'acme', '--name', 'Acme'],
  ['groups', 'rotate', 'acme'],
  ['groups', 'delete', 'acme'],
];

/**
 * Which store a command opens. The CLI used to take `./data` of whatever
 * directory it ran in, so `ugs keys create` (and even `ugs keys list`) run
 * anywhere else quietly made a second store and server secret, and the key
 * then failed against the running server.
 */
describe('the store a command opens', () => {
  const sandbox = new Sandbox();
  after(() => sandbox.cleanup());

  /** A copy of this build in a folder of its own (dist/src and package.json; node_modules linked), as an installation would be. */
  function installedCopy(): { root: string; at: (cwd: string) => CliPlace } {
    const root = sandbox.dir('ugs-install');
    cpSync(join(REPO_ROOT, 'dist', 'src'), join(root, 'dist', 'src'), { recursive: true });
    cpSync(join(REPO_ROOT, 'package.json'), join(root, 'package.json'));
    symlinkSync(join(REPO_ROOT, 'node_modules'), join(root, 'node_modules'));
    return { root, at: (cwd) => ({ cwd, cliPath: join(root, 'dist', 'src', 'cli', 'main.js') }) };
  }

  it('unset UGS_DATA_DIR: the CLI and the server use the data dir beside package.json from any working directory, and a read never creates it', async () => {
    const install = installedCopy();
    const dataDir = join(install.root, 'data');
    const [here, there] = [sandbox.dir('ugs-cwd-a'), sandbox.dir('ugs-cwd-b')];

    const early = await sandbox.ugsProcess('', ['keys', 'list'], {}, install.at(here));
    assertOneLineFailure(early, [`No store in ${dataDir}`, 'ugs keys create']);
    assert.equal(early.code, 1);
    assert.equal(existsSync(dataDir), false, 'keys list created the data dir');

    const created = await sandbox.ugsProcess('', ['keys', 'create'], {}, install.at(here));
    assert.equal(created.code, 0, created.stderr);
    assert.deepEqual(lines(created.stderr), [`ugs: store: SQLite in ${dataDir} (a new, empty store, created just now)`]);
    const key = lastLine(created.stdout);
    assert.match(key, API_KEY);

    const server = await sandbox.serve('', {}, install.at(there));
    assert.ok(server.output().includes(`"store":"SQLite in ${dataDir}"`), server.output());
    const answer = await new ApiClient(server.url, key).getOrCreate({ user_group_id: 'acme', name: 'Acme' });
    assert.equal(answer.status, 200, `the key made from one directory fails against the server started from another: ${answer.text}`);

    const listed = await sandbox.ugsProcess('', ['keys', 'list', '--json'], {}, install.at(there));
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual(lines(listed.stderr), [`ugs: store: SQLite in ${dataDir}`]);
    assert.equal((JSON.parse(listed.stdout) as unknown[]).length, 1);
    assert.equal(await stopServer(server), 0, server.output());

    assert.deepEqual([readdirSync(here), readdirSync(there)], [[], []], 'a store was made in a working directory');
  });

  it('a mistyped UGS_DATA_DIR: every command that needs a store refuses in one line, exit 1, creating nothing', async () => {
    const real = sandbox.dir('ugs-real');
    await sandbox.createKey(real);
    const typo = `${real}-typo`;
    for (const command of NEEDS_A_STORE) {
      const result = await sandbox.ugs(typo, command);
      assertOneLineFailure(result, [`No store in ${typo}`, 'UGS_DATA_DIR']);
      assert.equal(result.code, 1, command.join(' '));
      assert.equal(result.stdout, '', command.join(' '));
      assert.equal(existsSync(typo), false, `ugs ${command.join(' ')} created ${typo}`);
    }
  });

  it('a data dir that exists but holds no store is refused just the same, and left as it was', async () => {
    const empty = sandbox.dir('ugs-empty');
    for (const command of [['keys', 'list'], ['audit'], ['export']]) {
      const result = await sandbox.ugs(empty, command);
      assertOneLineFailure(result, [`No store in ${empty}`]);
    }
    assert.deepEqual(readdirSync(empty), []);
  });

  it('PostgreSQL: a database without the store is refused by a read, untouched, and named (password hidden) once the store is made', async () => {
    const database = await createTestDatabase();
    try {
      const dir = sandbox.dir();
      const env = { DATABASE_URL: database.url };
      const password = new URL(database.url).password;
      const early = await sandbox.ugs(dir, ['keys', 'list'], env);
      assertOneLineFailure(early, ['No store in the PostgreSQL database', 'DATABASE_URL']);
      assert.ok(!early.stderr.includes(password));
      assert.equal(await tableCount(database.url), 0, 'keys list created tables');
      assert.deepEqual(readdirSync(dir), [], 'keys list wrote a server secret');

      const created = await sandbox.ugs(dir, ['keys', 'create'], env);
      assert.equal(created.code, 0, created.stderr);
      const shown = new URL(database.url);
      shown.password = '****';
      assert.deepEqual(lines(created.stderr), [
        `ugs: store: PostgreSQL ${shown.toString()}, server secret in ${dir} (a new, empty store, created just now)`,
      ]);
      const listed = await sandbox.ugs(dir, ['keys', 'list'], env);
      assert.equal(listed.code, 0, listed.stderr);
      assert.deepEqual(lines(listed.stderr), [`ugs: store: PostgreSQL ${shown.toString()}, server secret in ${dir}`]);
    } finally {
      await database.drop();
    }
  });
});
