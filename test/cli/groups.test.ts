import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { build } from '../helpers/build.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { createTestDatabase, testStoreKind } from '../helpers/postgres.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { assertOneLineFailure, lines } from './cli-support.js';

const ok = (result: CliResult) => {
  assert.equal(result.code, 0, result.stderr);
  return result;
};

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * A server on the suite's store (SQLite, or PostgreSQL with UGS_TEST_STORE=postgres) and `ugs` runs, in process, on
 * that same store: what the CLI changes is what the API then answers.
 */
async function serverAndCli(t: TestContext) {
  const dir = makeTempDir('ugs-cli-groups');
  t.after(() => dir.remove());
  const database = testStoreKind() === 'postgres' ? await createTestDatabase({ migrated: true }) : undefined;
  const server = await build(t, { dataDir: dir.path, ...(database ? { postgres: database } : { kind: 'sqlite' }) });
  if (database) t.after(() => database.drop());
  const env = { UGS_DATA_DIR: server.dataDir, UGS_SECRET: '', ...(database ? { DATABASE_URL: database.url } : {}) };
  const ugs = (...args: string[]) => runCli(args, env);
  assert.match(ok(await ugs('groups', 'list')).stderr, database ? /^ugs: store: PostgreSQL / : /^ugs: store: SQLite /);
  return { server, ugs };
}

/** Every output of a run, for the assertions that a token never appears in any. */
const everything = (...results: CliResult[]) => results.map((r) => r.stdout + r.stderr).join('\n');

describe('ugs groups', () => {
  it('creates, lists, shows, updates and deletes groups as the API does, audited under the key id cli', async (t) => {
    const { server, ugs } = await serverAndCli(t);
    assert.deepEqual(lines(ok(await ugs('groups', 'list')).stdout), [
      'No user groups in Customer yet: create one with `ugs groups create ID --name NAME`.',
    ]);

    const created = ok(
      await ugs('groups', 'create', 'acme', '--name', 'Acme', '--properties', '{"region":"eu"}', '--mapping', '{"40":"213"}'),
    );
    assert.match(created.stdout, /^Created user group "acme" in Customer\. The token is not printed/);
    ok(await ugs('groups', 'create', 'acme-east', '--name', 'Acme East', '--parent', 'acme'));
    const [acme, east] = await Promise.all(
      ['acme', 'acme-east'].map(
        async (id) => (await server.api.call('GET', undefined, { path: `/api/user_groups/${id}` })).json.user_group,
      ),
    );
    assert.deepEqual([acme.properties, acme.mapping, east.parent_user_group_id], [{ region: 'eu' }, { '40': '213' }, 'acme']);

    // The list: newest first, every time in one format; --json is what GET /api/user_groups lists.
    const table = lines(ok(await ugs('groups', 'list')).stdout).map((line) => line.split(/ {2,}/));
    assert.deepEqual(table[0], ['USER_GROUP_ID', 'TEAM_ID', 'NAME', 'PARENT', 'CREATED', 'UPDATED']);
    // A root's PARENT cell is empty: the columns are split on runs of two spaces.
    assert.deepEqual(table.slice(1), [
      ['acme-east', String(east.team_id), 'Acme East', 'acme', east.created_at, east.updated_at],
      ['acme', String(acme.team_id), 'Acme', acme.created_at, acme.updated_at],
    ]);
    for (const row of table.slice(1)) for (const time of row.slice(-2)) assert.match(time, ISO_UTC);
    const listed = JSON.parse(ok(await ugs('groups', 'list', '--json')).stdout) as unknown;
    assert.deepEqual(listed, (await server.api.call('GET', undefined, { path: '/api/user_groups' })).json.user_groups);
    const limited = ok(await ugs('groups', 'list', '--limit', '1', '--json'));
    assert.deepEqual(
      (JSON.parse(limited.stdout) as { provided_id: string }[]).map((g) => g.provided_id),
      ['acme-east'],
    );
    assert.match(limited.stderr, /more groups match in Customer: leave out --limit/);
    assert.deepEqual(
      (JSON.parse(ok(await ugs('groups', 'list', '--parent', 'acme', '--json')).stdout) as { provided_id: string }[]).map(
        (g) => g.provided_id,
      ),
      ['acme-east'],
    );
    assert.deepEqual(
      (JSON.parse(ok(await ugs('groups', 'list', '--prefix', 'Acme E', '--json')).stdout) as { provided_id: string }[]).map(
        (g) => g.provided_id,
      ),
      ['acme-east'],
    );

    // show: inherited values, and --json as GET /api/user_groups/{id} answers.
    const shown = ok(await ugs('groups', 'show', 'acme-east')).stdout;
    assert.match(shown, /^parent +acme$/m);
    assert.match(shown, /^effective_properties +\{"region":"eu"\}$/m);
    assert.match(shown, /^schema 40 +"213" from acme: no data source of the environment$/m);
    assert.deepEqual(
      JSON.parse(ok(await ugs('groups', 'show', 'acme-east', '--json')).stdout),
      (await server.api.call('GET', undefined, { path: '/api/user_groups/acme-east' })).json.user_group,
    );

    // update: only what is given; --no-parent makes it a root, --clear-properties clears.
    const updated = ok(await ugs('groups', 'update', 'acme-east', '--name', 'East', '--no-parent'));
    assert.match(updated.stdout, /^Updated user group "acme-east" in Customer:$/m);
    assert.match(updated.stdout, /^parent +none \(a root\)$/m);
    ok(await ugs('groups', 'update', 'acme', '--clear-properties'));
    const after = (await server.api.call('GET', undefined, { path: '/api/user_groups/acme' })).json.user_group;
    assert.deepEqual([after.name, after.properties, after.mapping], ['Acme', null, { '40': '213' }]);
    assert.equal(
      (await server.api.call('GET', undefined, { path: '/api/user_groups/acme-east' })).json.user_group.parent_user_group_id,
      undefined,
    );

    // delete: refused while it has children unless --cascade (the API's 409 in one line).
    ok(await ugs('groups', 'update', 'acme-east', '--parent', 'acme'));
    assertOneLineFailure(await ugs('groups', 'delete', 'acme'), ['has child groups', 'add --cascade']);
    assert.deepEqual(lines(ok(await ugs('groups', 'delete', 'acme', '--cascade')).stdout), [
      'Deleted user group "acme" and its whole subtree from Customer.',
    ]);
    assert.equal((await server.api.call('GET', undefined, { path: '/api/user_groups/acme' })).status, 404);

    const audit = await server.services.audit.listAuditRecords({ environment: 'Customer', limit: 100 });
    assert.deepEqual(
      audit.filter((r) => r.keyId === 'cli').map((r) => [r.action, r.providedId, r.clientAddress]),
      [
        ['user_group.created', 'acme', null],
        ['user_group.created', 'acme-east', null],
        ['user_group.moved', 'acme-east', null],
        ['user_group.updated', 'acme', null],
        ['user_group.moved', 'acme-east', null],
        ['user_group.deleted', 'acme-east', null],
        ['user_group.deleted', 'acme', null],
      ],
    );
  });

  it('rotates a token without printing either token: the old one stops working at once', async (t) => {
    const { server, ugs } = await serverAndCli(t);
    const before = (await server.api.getOrCreate({ user_group_id: 'acme', name: 'Acme' })).json.user_group.token as string;
    const runs = [
      ok(await ugs('groups', 'rotate', 'acme')),
      ok(await ugs('groups', 'show', 'acme')),
      ok(await ugs('groups', 'show', 'acme', '--json')),
      ok(await ugs('groups', 'list')),
      ok(await ugs('groups', 'list', '--json')),
    ];
    assert.match(runs[0]!.stdout, /^Rotated the token of user group "acme" in Customer: the old token stops working at once\./);
    const rotated = await server.api.call('POST', { current_token: before });
    assert.equal(rotated.status, 404, 'the old token was rotated away');
    const now = (await server.api.getOrCreate({ user_group_id: 'acme' })).json.user_group.token as string;
    assert.notEqual(now, before);
    const printed = everything(...runs);
    for (const token of [before, now]) assert.ok(!printed.includes(token), 'a token was printed');
    assert.ok(!/ugt_/.test(printed), printed);
    const records = await server.services.audit.listAuditRecords({ environment: 'Customer', limit: 10 });
    assert.deepEqual(
      records.filter((r) => r.keyId === 'cli').map((r) => [r.action, r.providedId, r.fields]),
      [['user_group.token_rotated', 'acme', ['token']]],
    );
  });

  it("refuses in one line, changing nothing: the API's checks, an existing id, an unknown group, nothing to change", async (t) => {
    const { server, ugs } = await serverAndCli(t);
    ok(await ugs('groups', 'create', 'acme', '--name', 'Acme'));
    assertOneLineFailure(await ugs('groups', 'create', 'acme', '--name', 'Other'), ['"acme" already exists in Customer; nothing changed']);
    assertOneLineFailure(await ugs('groups', 'create', 'tab\there', '--name', 'X'), [
      '"user_group_id" must not contain control characters',
    ]);
    assertOneLineFailure(await ugs('groups', 'create', 'x', '--name', 'n'.repeat(256)), ['"name" must NOT have more than 255 characters']);
    assertOneLineFailure(await ugs('groups', 'create', 'x', '--name', 'X', '--properties', '[1]'), ['"properties" must be object']);
    assertOneLineFailure(await ugs('groups', 'create', 'x', '--name', 'X', '--properties', '{'), ['--properties is not valid JSON']);
    assertOneLineFailure(await ugs('groups', 'create', 'x', '--name', 'X', '--mapping', '{"__proto__":{}}'), ['"__proto__"']);
    assertOneLineFailure(await ugs('groups', 'create', 'x', '--name', 'X', '--parent', 'nobody'), ['nobody']);
    assertOneLineFailure(await ugs('groups', 'update', 'acme'), ['Nothing to change']);
    assertOneLineFailure(await ugs('groups', 'update', 'nobody', '--name', 'X'), [/^ugs: No user group .*"nobody".*Customer/m]);
    assertOneLineFailure(await ugs('groups', 'show', 'acme', '--environment', 'Testing'), [/"acme".*Testing/]);
    assertOneLineFailure(await ugs('groups', 'rotate', 'nobody'), ['"nobody"']);
    assertOneLineFailure(await ugs('groups', 'delete', 'nobody'), ['"nobody"']);
    assertOneLineFailure(await ugs('groups', 'list', '--limit', '0'), ['--limit must be a positive whole number']);
    const create = await ugs('groups', 'create', 'y');
    assert.deepEqual(
      [create.code, create.stderr],
      [1, "error: required option '--name <name>' not specified\n(add --help for the options)\n"],
    );
    const groups = (await server.api.call('GET', undefined, { path: '/api/user_groups' })).json.user_groups as { provided_id: string }[];
    assert.deepEqual(
      groups.map((g) => g.provided_id),
      ['acme'],
    );
  });
});
