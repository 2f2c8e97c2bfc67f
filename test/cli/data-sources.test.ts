import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { build } from '../helpers/build.js';
import { createTestDatabase } from '../helpers/postgres.js';
import { ApiClient } from '../helpers/http-client.js';
import { assertOneLineFailure, lines, Sandbox } from './cli-support.js';

const PASSWORD = 'cli-Pa55word-7f3a';
const OTHER_PASSWORD = 'cli-other-Pa55-91c2';
const ADD_ACME = ['data-sources', 'add', '--id', '213', '--name', 'Acme', '--host', 'db.internal', '--database', 'acme', '--user', 'dash'];
/** Without --user: what `add` refuses, until the test gives it. */
const ADD_GLOBEX = [
  'data-sources',
  'add',
  '--id',
  'globex',
  '--name',
  'Globex',
  '--host',
  '10.0.0.5',
  '--port',
  '6432',
  '--database',
  'globex',
];

interface ListedDataSource {
  id: string;
  password_set: boolean;
  version: number;
  connection: { host: string; port: number; ssl: { mode: string } };
  mapped_groups: { total: number; user_group_ids: string[] };
}

describe('ugs data-sources', () => {
  const sandbox = new Sandbox();
  after(() => sandbox.cleanup());

  it('adds with the password from an environment variable or stdin, lists where each connects and never a password', async () => {
    const dir = sandbox.dir();
    assert.equal((await sandbox.ugs(dir, ['migrate'])).code, 0);
    const fromEnv = await sandbox.ugs(dir, [...ADD_ACME, '--password-env', 'ACME_PW'], { ACME_PW: PASSWORD });
    assert.equal(fromEnv.code, 0, fromEnv.stderr);
    assert.equal(
      lines(fromEnv.stdout).join('\n'),
      'Added data source 213 (Acme) to the Customer environment: dash@db.internal:5432/acme, TLS disable, password set.',
    );
    const fromStdin = await sandbox.ugs(dir, ADD_GLOBEX, {}, `${OTHER_PASSWORD}\n`);
    assertOneLineFailure(fromStdin, ['--host, --database and --user']);
    const added = await sandbox.ugs(
      dir,
      [...ADD_GLOBEX, '--user', 'dash', '--ssl-mode', 'require', '--password-stdin'],
      {},
      `${OTHER_PASSWORD}\n`,
    );
    assert.equal(added.code, 0, added.stderr);
    const none = await sandbox.ugs(dir, [
      ...['data-sources', 'add', '--id', 'trusted', '--name', 'No password'],
      ...['--host', '::1', '--database', 'shared', '--user', 'dash'],
    ]);
    assert.match(none.stdout, /dash@\[::1\]:5432\/shared, TLS disable, no password\.$/m);

    const table = await sandbox.ugs(dir, ['data-sources', 'list']);
    assert.equal(table.code, 0, table.stderr);
    assert.deepEqual(
      lines(table.stdout).map((line) => line.split(/\s{2,}/).slice(0, 7)),
      [
        ['ID', 'NAME', 'KIND', 'CONNECTS', 'TLS', 'PASSWORD', 'GROUPS'],
        ['213', 'Acme', 'postgresql', 'dash@db.internal:5432/acme', 'disable', 'set', '0'],
        ['globex', 'Globex', 'postgresql', 'dash@10.0.0.5:6432/globex', 'require', 'set', '0'],
        ['trusted', 'No password', 'postgresql', 'dash@[::1]:5432/shared', 'disable', 'none', '0'],
      ],
    );
    const json = await sandbox.ugs(dir, ['data-sources', 'list', '--json']);
    const listed = JSON.parse(json.stdout) as ListedDataSource[];
    assert.deepEqual(
      listed.map((d) => [d.id, d.password_set, d.connection.ssl.mode]),
      [
        ['213', true, 'disable'],
        ['globex', true, 'require'],
        ['trusted', false, 'disable'],
      ],
    );
    assert.deepEqual(JSON.parse((await sandbox.ugs(dir, ['data-sources', 'list', '--json', '--environment', 'Testing'])).stdout), []);
    assert.match((await sandbox.ugs(dir, ['data-sources', 'list', '--environment', 'Testing'])).stdout, /No data sources in Testing yet/);

    const audit = await sandbox.ugs(dir, ['audit', '--json']);
    const records = (JSON.parse(audit.stdout) as { action: string; key_id: string; data_source_id?: string; fields: string[] }[]).filter(
      (r) => r.action.startsWith('data_source.'),
    );
    assert.deepEqual(
      records.map((r) => [r.action, r.key_id, r.data_source_id]),
      [
        ['data_source.created', 'cli', 'trusted'],
        ['data_source.created', 'cli', 'globex'],
        ['data_source.created', 'cli', '213'],
      ],
    );
    assert.ok(records.at(-1)!.fields.includes('connection.password'), 'the audit record names the password field, never its value');
    for (const output of [table, json, audit, fromEnv, added, none])
      for (const secret of [PASSWORD, OTHER_PASSWORD])
        assert.ok(!(output.stdout + output.stderr).includes(secret), `${secret} was printed`);
  });

  it('updates only what is given, clears the password, says when nothing changed, and refuses what it cannot read', async () => {
    const dir = sandbox.dir();
    assert.equal((await sandbox.ugs(dir, [...ADD_ACME, '--password-env', 'ACME_PW'], { ACME_PW: PASSWORD })).code, 1, 'no store yet');
    assert.equal((await sandbox.ugs(dir, ['migrate'])).code, 0);
    assert.equal((await sandbox.ugs(dir, [...ADD_ACME, '--password-env', 'ACME_PW'], { ACME_PW: PASSWORD })).code, 0);

    const moved = await sandbox.ugs(dir, ['data-sources', 'update', '213', '--port', '5433', '--name', 'Acme EU']);
    assert.equal(
      lines(moved.stdout).join('\n'),
      'Updated data source 213 (version 2): dash@db.internal:5433/acme, TLS disable, password set.',
    );
    const same = await sandbox.ugs(dir, ['data-sources', 'update', '213', '--port', '5433']);
    assert.equal(lines(same.stdout).join('\n'), 'Nothing changed: data source 213 already has these settings.');
    const samePassword = await sandbox.ugs(dir, ['data-sources', 'update', '213', '--password-stdin'], {}, PASSWORD);
    assert.match(samePassword.stdout, /^Nothing changed/, 'the same password again is no change (and no version)');
    const cleared = await sandbox.ugs(dir, ['data-sources', 'update', '213', '--clear-password', '--json']);
    const view = JSON.parse(cleared.stdout) as ListedDataSource;
    assert.deepEqual([view.password_set, view.version, view.connection.port], [false, 3, 5433]);

    assertOneLineFailure(await sandbox.ugs(dir, ['data-sources', 'update', '213']), ['Nothing to change']);
    assertOneLineFailure(await sandbox.ugs(dir, ['data-sources', 'update', 'nope', '--port', '1']), ['No data source "nope"']);
    assertOneLineFailure(await sandbox.ugs(dir, ['data-sources', 'update', '213', '--password-env', 'UNSET_PW_VARIABLE']), [
      'no environment variable UNSET_PW_VARIABLE is set',
    ]);
    assertOneLineFailure(await sandbox.ugs(dir, ['data-sources', 'update', '213', '--password-stdin']), ['no standard input']);
    assertOneLineFailure(await sandbox.ugs(dir, ['data-sources', 'update', '213', '--password-stdin'], {}, '\n'), ['empty password']);
    assertOneLineFailure(await sandbox.ugs(dir, ['data-sources', 'update', '213', '--port', '70000']), ['--port']);
    assertOneLineFailure(await sandbox.ugs(dir, ['data-sources', 'update', '213', '--ssl-ca-file', join(dir, 'missing.pem')]), [
      'no such file',
    ]);
    assertOneLineFailure(await sandbox.ugs(dir, ['data-sources', 'update', '213', '--host', 'http://db.internal']), ['neither an IP']);
    const both = await sandbox.ugs(dir, ['data-sources', 'update', '213', '--clear-password', '--password-env', 'X']);
    assert.notEqual(both.code, 0);
    assert.match(both.stderr, /cannot be used with/);
    assertOneLineFailure(await sandbox.ugs(dir, ['data-sources', 'check', 'nope']), ['No data source "nope"']);
  });

  it('check prints the categories: a superuser warned of on stderr; a refused connection exits 1 after its report', async (t) => {
    const dir = sandbox.dir();
    assert.equal((await sandbox.ugs(dir, ['migrate'])).code, 0);
    const database = await createTestDatabase();
    t.after(() => database.drop());
    const url = new URL(database.url);
    const add = [
      ...['data-sources', 'add', '--id', 'real', '--name', 'Real', '--host', url.hostname, '--port', url.port],
      '--password-env',
      'PW',
    ];
    const added = await sandbox.ugs(dir, [...add, '--database', url.pathname.slice(1), '--user', decodeURIComponent(url.username)], {
      PW: decodeURIComponent(url.password),
    });
    assert.equal(added.code, 0, added.stderr);
    const real = await sandbox.ugs(dir, ['data-sources', 'check', 'real']);
    assert.equal(real.code, 0, real.stderr);
    assert.match(real.stdout, /^reachable {7}yes\nauthenticated {3}yes\nserver version {2}\d+/);
    assert.match(real.stdout, /^superuser {7}yes$/m);
    assert.match(real.stderr, /^ugs: warning: the role is a superuser: row policies do not bind it/m);

    await sandbox.ugs(dir, [
      'data-sources',
      'add',
      '--id',
      'closed',
      '--name',
      'Closed',
      '--host',
      '127.0.0.1',
      '--port',
      '1',
      '--database',
      'd',
      '--user',
      'u',
    ]);
    const closed = await sandbox.ugs(dir, ['data-sources', 'check', 'closed', '--json']);
    assertOneLineFailure(closed, ['data source closed could not be reached or used: connection_refused']);
    const report = JSON.parse(closed.stdout) as { reachable: boolean; failure: string };
    assert.deepEqual([report.reachable, report.failure], [false, 'connection_refused']);
    const checks = (JSON.parse((await sandbox.ugs(dir, ['audit', '--json'])).stdout) as { action: string; fields: string[] }[]).filter(
      (r) => r.action === 'data_source.checked',
    );
    assert.deepEqual(
      checks.map((r) => r.fields),
      [['connection_refused'], ['connected']],
      'each check audited with its outcome',
    );
  });

  it('ugs export carries passwords sealed, or with --without-data-source-passwords not at all; ugs import restores what it carries', async () => {
    const env = { UGS_SECRET: randomBytes(32).toString('hex') };
    const [source, files] = [sandbox.dir(), sandbox.dir()];
    assert.equal((await sandbox.ugs(source, ['migrate'], env)).code, 0);
    assert.equal((await sandbox.ugs(source, [...ADD_ACME, '--password-stdin'], env, PASSWORD)).code, 0);
    const sealed = join(files, 'sealed.jsonl');
    const without = join(files, 'without.jsonl');
    assert.equal((await sandbox.ugs(source, ['export', '--output', sealed], env)).code, 0);
    assert.equal((await sandbox.ugs(source, ['export', '--output', without, '--without-data-source-passwords'], env)).code, 0);
    for (const file of [sealed, without]) assert.ok(!readFileSync(file, 'utf8').includes(PASSWORD), `${file} holds the password`);

    for (const [file, passwordSet, said] of [
      [sealed, true, /^Imported 0 group tags, 0 user groups, 0 API keys, 1 data sources, 0 Metabase settings and 1 audit records\.$/m],
      [
        without,
        false,
        /^1 data source was exported without its password: set each again with `ugs data-sources update ID --password-stdin`/m,
      ],
    ] as const) {
      const target = sandbox.dir();
      const imported = await sandbox.ugs(target, ['import', file], env);
      assert.equal(imported.code, 0, imported.stderr);
      assert.match(imported.stdout, said);
      const [listed] = JSON.parse((await sandbox.ugs(target, ['data-sources', 'list', '--json'], env)).stdout) as ListedDataSource[];
      assert.deepEqual([listed!.id, listed!.password_set], ['213', passwordSet]);
    }
  });

  it('a dashboard key made by `ugs keys create --access dashboard` reads what the CLI sealed; remove is refused while a group maps to it, unless --force', async (t) => {
    const dir = sandbox.dir();
    const server = await build(t, { dataDir: dir, kind: 'sqlite', apiKey: false });
    assert.equal((await sandbox.ugs(dir, [...ADD_ACME, '--password-env', 'ACME_PW'], { ACME_PW: PASSWORD })).code, 0);

    const dashboard = await sandbox.createKey(dir, ['--access', 'dashboard', '--name', 'router']);
    assert.match(dashboard.result.stdout, /Created a dashboard API key for the Customer environment \(router\)\./);
    assert.equal((await sandbox.listKeys(dir)).keys.find((k) => k.id === dashboard.id)?.access, 'dashboard');
    const credentials = await new ApiClient(server.url, dashboard.key).call('GET', undefined, {
      path: '/api/data_sources/213/credentials',
    });
    assert.equal(credentials.status, 200, credentials.text);
    assert.equal(credentials.json.data_source.connection.password, PASSWORD, 'sealed by the CLI, opened by the server: one secret');
    const refused = await new ApiClient(server.url, dashboard.key).getOrCreate({ user_group_id: 'acme', name: 'Acme' });
    assert.equal(refused.status, 403, 'a dashboard key creates no group');

    const writer = await server.client();
    assert.equal((await writer.getOrCreate({ user_group_id: 'acme', name: 'Acme', mapping: { '40': '213' } })).status, 200);
    const mapped = JSON.parse((await sandbox.ugs(dir, ['data-sources', 'list', '--json'])).stdout) as ListedDataSource[];
    assert.deepEqual(mapped[0]!.mapped_groups, { total: 1, user_group_ids: ['acme'] });

    assertOneLineFailure(await sandbox.ugs(dir, ['data-sources', 'remove', '213']), ['1 group maps', 'remove it with --force']);
    const forced = await sandbox.ugs(dir, ['data-sources', 'remove', '213', '--force']);
    assert.equal(lines(forced.stdout).join('\n'), 'Removed data source 213.');
    const group = await writer.call('GET', undefined, { path: '/api/user_groups/acme' });
    assert.deepEqual(group.json.user_group.resolved_mapping, [
      { schema: '40', value: '213', from_user_group_id: 'acme', inherited: false, data_source: null },
    ]);
    assertOneLineFailure(await sandbox.ugs(dir, ['data-sources', 'remove', '213']), ['No data source "213"']);
  });
});
