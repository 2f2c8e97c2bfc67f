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

/**
 * A server on the suite's store (SQLite, or PostgreSQL with UGS_TEST_STORE=postgres) and `ugs` runs, in process, on
 * that same store: what the CLI changes is what the API then answers.
 */
async function serverAndCli(t: TestContext) {
  const dir = makeTempDir('ugs-cli-customers');
  t.after(() => dir.remove());
  const database = testStoreKind() === 'postgres' ? await createTestDatabase({ migrated: true }) : undefined;
  const server = await build(t, { dataDir: dir.path, ...(database ? { postgres: database } : { kind: 'sqlite' }) });
  // After build's own teardown, which closes the server first.
  if (database) t.after(() => database.drop());
  const env = { UGS_DATA_DIR: server.dataDir, UGS_SECRET: '', ...(database ? { DATABASE_URL: database.url } : {}) };
  const ugs = (...args: string[]) => runCli(args, env);
  const post = async (path: string, body: unknown) => {
    const answer = await server.api.call('POST', body, { path });
    assert.equal(answer.status, 200, `${path}: ${answer.text}`);
    return answer.json;
  };
  // The CLI opens the server's store, not a store of its own beside it.
  assert.match(ok(await ugs('group-tags', 'list')).stderr, database ? /^ugs: store: PostgreSQL / : /^ugs: store: SQLite /);
  return { server, ugs, post };
}

/** A customer as the API answers it, without the token the CLI never prints. */
const withoutToken = ({ token: _token, ...rest }: Record<string, unknown>) => rest;

describe('ugs group-tags', () => {
  it('lists, creates, renames and deletes tags, rewriting the customers carrying them, audited under the key id cli', async (t) => {
    const { server, ugs, post } = await serverAndCli(t);
    assert.deepEqual(lines(ok(await ugs('group-tags', 'list')).stdout), [
      'No group tags in Customer yet: create one with `ugs group-tags create NAME`.',
    ]);
    assert.deepEqual(lines(ok(await ugs('group-tags', 'create', 'sales')).stdout), ['Created group tag "sales" in Customer.']);
    ok(await ugs('group-tags', 'create', 'vip'));
    assertOneLineFailure(await ugs('group-tags', 'create', 'sales'), ['A group tag named "sales" already exists']);
    assertOneLineFailure(await ugs('group-tags', 'create', ' '), ['"name" must name a group tag']);

    const table = lines(ok(await ugs('group-tags', 'list')).stdout);
    assert.match(table[0]!, /^NAME +CREATED$/);
    assert.deepEqual(
      table.slice(1).map((line) => line.split(/ +/)[0]),
      ['sales', 'vip'],
    );
    const listed = JSON.parse(ok(await ugs('group-tags', 'list', '--json')).stdout) as unknown;
    const answered = (await server.api.call('GET', undefined, { path: '/api/group_tags/' })).json;
    assert.deepEqual(listed, answered.group_tags);
    assert.deepEqual(listed, [{ name: 'sales' }, { name: 'vip' }]);
    assert.match(ok(await ugs('group-tags', 'list', '--environment', 'Testing')).stdout, /No group tags in Testing yet/);

    await post('/api/create_customer/', { provided_id: 'acme', name: 'Acme', group_tags: ['sales', 'vip'] });
    assert.deepEqual(lines(ok(await ugs('group-tags', 'rename', 'sales', 'east')).stdout), [
      'Renamed group tag "sales" to "east" in Customer, on every customer carrying it.',
    ]);
    assert.deepEqual((await post('/api/get_customer/', { provided_id: 'acme' })).customer.group_tags, ['east', 'vip']);
    assertOneLineFailure(await ugs('group-tags', 'rename', 'sales', 'west'), [
      'No group tag named "sales" exists in the Customer environment',
    ]);
    assertOneLineFailure(await ugs('group-tags', 'rename', 'east', 'vip'), ['A group tag named "vip" already exists']);

    assert.deepEqual(lines(ok(await ugs('group-tags', 'delete', 'east')).stdout), [
      'Deleted group tag "east" from Customer and from every customer carrying it.',
    ]);
    assert.deepEqual((await post('/api/get_customer/', { provided_id: 'acme' })).customer.group_tags, ['vip']);
    assertOneLineFailure(await ugs('group-tags', 'delete', 'east'), ['No group tag named "east"']);

    const audit = await server.services.audit.listAuditRecords({ environment: 'Customer', limit: 100 });
    assert.deepEqual(
      audit.filter((r) => r.keyId === 'cli').map((r) => [r.action, r.providedId, r.fields, r.clientAddress]),
      [
        ['group_tag.created', null, ['group_tag=sales'], null],
        ['group_tag.created', null, ['group_tag=vip'], null],
        ['group_tag.renamed', null, ['group_tag=sales', 'new_name=east'], null],
        ['user_group.updated', 'acme', ['group_tags'], null],
        ['group_tag.deleted', null, ['group_tag=east'], null],
        ['user_group.updated', 'acme', ['group_tags'], null],
      ],
    );
  });
});

describe('ugs customers', () => {
  it('lists and shows customers as the API answers them, never with a token', async (t) => {
    const { ugs, post } = await serverAndCli(t);
    ok(await ugs('group-tags', 'create', 'sales'));
    const acme = (
      await post('/api/create_customer/', {
        provided_id: 'acme',
        name: 'Acme',
        mapping: { '40': '213' },
        properties: { region: 'eu' },
        emails: ['ops@acme.example', 'cto@acme.example'],
        group_tags: ['sales'],
        is_demo_group: true,
      })
    ).customer;
    const ann = (
      await post('/api/create_customer/', { provided_id: 'acme-ann', name: 'Ann', parent_provided_id: 'acme', properties: { seat: 3 } })
    ).customer;

    const shown = ok(await ugs('customers', 'show', 'acme'));
    assert.deepEqual(lines(shown.stdout), [
      'provided_id          acme',
      'name                 Acme',
      'environment          Customer',
      'hierarchy_level      Customer',
      'parent               none (a root)',
      'demo                 yes',
      'emails               ops@acme.example, cto@acme.example',
      'group_tags           sales',
      'properties           {"region":"eu"}',
      'computed_properties  {"region":"eu"}',
      'mapping              {"40":"213"}',
      'computed_mapping     {"40":"213"}',
    ]);
    const child = lines(ok(await ugs('customers', 'show', 'acme-ann')).stdout);
    assert.ok(child.includes('parent               acme'), child.join('\n'));
    assert.ok(child.includes('hierarchy_level      User'), child.join('\n'));
    assert.ok(child.includes('computed_properties  {"region":"eu","seat":3}'), child.join('\n'));
    assert.ok(child.includes('emails               none'), child.join('\n'));
    const json = ok(await ugs('customers', 'show', 'acme', '--json'));
    assert.deepEqual(JSON.parse(json.stdout), withoutToken(acme));
    assertOneLineFailure(await ugs('customers', 'show', 'nobody'), [
      'No customer with "provided_id" "nobody" exists in the Customer environment',
    ]);
    assertOneLineFailure(await ugs('customers', 'show', 'acme', '--environment', 'Testing'), ['in the Testing environment']);

    const table = lines(ok(await ugs('customers', 'list')).stdout);
    assert.deepEqual(
      table.map((line) => line.split(/ {2,}/)),
      [
        ['PROVIDED_ID', 'NAME', 'LEVEL', 'PARENT', 'DEMO', 'TAGS', 'EMAILS'],
        // An empty cell (acme's parent, Ann's tags) is only spaces between its neighbours.
        ['acme', 'Acme', 'Customer', 'yes', 'sales', '2'],
        ['acme-ann', 'Ann', 'User', 'acme', 'no', '0'],
      ],
    );
    const listed = JSON.parse(ok(await ugs('customers', 'list', '--json')).stdout) as unknown;
    assert.deepEqual(listed, [withoutToken(acme), withoutToken(ann)]);
    assert.deepEqual(
      (JSON.parse(ok(await ugs('customers', 'list', '--parent', 'acme', '--json')).stdout) as { provided_id: string }[]).map(
        (c) => c.provided_id,
      ),
      ['acme-ann'],
    );
    assert.deepEqual(
      (JSON.parse(ok(await ugs('customers', 'list', '--level', 'Customer', '--json')).stdout) as { provided_id: string }[]).map(
        (c) => c.provided_id,
      ),
      ['acme'],
    );
    assert.match(ok(await ugs('customers', 'list', '--environment', 'Testing')).stdout, /^No customers in Testing match\.$/m);
    assertOneLineFailure(await ugs('customers', 'list', '--level', 'Planet'), ['"Planet" is no hierarchy level']);

    const all = [shown, json, ...(await Promise.all([ugs('customers', 'list'), ugs('customers', 'list', '--json')]))];
    for (const result of all)
      for (const token of [acme.token, ann.token]) assert.ok(!(result.stdout + result.stderr).includes(token), 'a token was printed');
  });

  it('sets emails, tags, the demo flag and the level as update_customer does, audited under the key id cli', async (t) => {
    const { server, ugs, post } = await serverAndCli(t);
    ok(await ugs('group-tags', 'create', 'sales'));
    ok(await ugs('group-tags', 'create', 'vip'));
    const { token } = (await post('/api/create_customer/', { provided_id: 'acme', name: 'Acme', emails: ['old@acme.example'] })).customer;
    await post('/api/create_customer/', { provided_id: 'acme-ann', name: 'Ann', parent_provided_id: 'acme' });
    const customer = async (id = 'acme') => (await post('/api/get_customer/', { provided_id: id })).customer;

    const set = ok(
      await ugs(
        'customers',
        'set',
        'acme',
        '--email',
        'a@acme.example',
        '--email',
        'b@acme.example',
        '--tag',
        'sales',
        '--tag',
        'vip',
        '--demo',
      ),
    );
    const printed = lines(set.stdout);
    assert.equal(printed[0], 'Updated customer acme in Customer:');
    assert.ok(printed.includes('emails               a@acme.example, b@acme.example'), set.stdout);
    let now = await customer();
    assert.deepEqual(
      [now.emails, now.group_tags, now.is_demo_group, now.token],
      [['a@acme.example', 'b@acme.example'], ['sales', 'vip'], true, token],
    );

    ok(await ugs('customers', 'set', 'acme', '--no-demo', '--clear-tags'));
    now = await customer();
    assert.deepEqual([now.emails, now.group_tags, now.is_demo_group], [['a@acme.example', 'b@acme.example'], [], false]);
    const cleared = JSON.parse(ok(await ugs('customers', 'set', 'acme', '--clear-emails', '--json')).stdout) as Record<string, unknown>;
    assert.deepEqual(cleared, withoutToken(await customer()));
    assert.deepEqual(cleared.emails, []);

    await post('/api/create_customer/', { provided_id: 'solo', name: 'Solo' });
    ok(await ugs('customers', 'set', 'solo', '--level', 'User'));
    assert.equal((await customer('solo')).hierarchy_level, 'User');

    assertOneLineFailure(await ugs('customers', 'set', 'acme'), ['Nothing to change']);
    assertOneLineFailure(await ugs('customers', 'set', 'acme', '--tag', 'nope'), ['does not have: "nope"']);
    assertOneLineFailure(await ugs('customers', 'set', 'acme', '--email', 'not-an-address'), ['is not an email address']);
    assertOneLineFailure(await ugs('customers', 'set', 'acme', '--level', 'User'), ['is at hierarchy level "User", not above "User"']);
    assertOneLineFailure(await ugs('customers', 'set', 'acme-ann', '--level', 'Customer'), ['not above "Customer"']);
    assertOneLineFailure(await ugs('customers', 'set', 'nobody', '--demo'), ['"nobody"']);
    const both = await ugs('customers', 'set', 'acme', '--email', 'a@acme.example', '--clear-emails');
    assert.notEqual(both.code, 0);
    assert.match(both.stderr, /cannot be used with/);

    const audit = await server.services.audit.listAuditRecords({ environment: 'Customer', limit: 100 });
    assert.deepEqual(
      audit.filter((r) => r.keyId === 'cli' && r.action === 'user_group.updated').map((r) => [r.providedId, r.fields]),
      [
        ['acme', ['emails', 'is_demo_group', 'group_tags']],
        ['acme', ['is_demo_group', 'group_tags']],
        ['acme', ['emails']],
        ['solo', ['hierarchy_level']],
      ],
    );
    const events = (await server.api.call('GET', undefined, { path: '/api/events?limit=100' })).json.events as {
      type: string;
      data: { user_group_id?: string; changed?: string[] };
    }[];
    assert.deepEqual(
      events.filter((e) => e.type === 'user_group.updated').map((e) => [e.data.user_group_id, e.data.changed]),
      [
        ['acme', ['emails', 'is_demo_group', 'group_tags']],
        ['acme', ['is_demo_group', 'group_tags']],
        ['acme', ['emails']],
        ['solo', ['hierarchy_level']],
      ],
    );
    for (const result of [set]) assert.ok(!(result.stdout + result.stderr).includes(token), 'the token was printed');
  });
});
