import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { build, buildForSuite } from '../../helpers/build.js';

const path = (suffix = '') => ({ path: `/api/data_sources${suffix}` });
const connection = { host: '10.1.2.3', database: 'acme', user: 'dashboards', password: 'acme-secret-password' };
const source = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  name: `Source ${id}`,
  kind: 'postgresql',
  connection,
  ...extra,
});

describe('/api/data_sources', () => {
  const server = buildForSuite({
    clients: {
      reader: { access: 'read-only' },
      embed: { access: 'embed' },
      dashboard: { access: 'dashboard' },
      testing: { environment: 'Testing' },
      testingDashboard: { environment: 'Testing', access: 'dashboard' },
    },
  });

  it('adds a data source (201), never answers its password, and pages the environment in id order', async () => {
    const created = await server.api.call('POST', source('ds-page-b'), path());
    assert.equal(created.status, 201, created.text);
    assert.equal(created.json.data_source.password_set, true);
    assert.deepEqual(created.json.data_source.connection, {
      host: '10.1.2.3',
      port: 5432,
      database: 'acme',
      user: 'dashboards',
      ssl: { mode: 'disable' },
    });
    assert.doesNotMatch(created.text, /acme-secret-password/);
    for (const id of ['ds-page-a', 'ds-page-c']) assert.equal((await server.api.call('POST', source(id), path())).status, 201);
    const seen: string[] = [];
    for (let after: string | null = null; ;) {
      const query: string = `?limit=2${after === null ? '' : `&after=${encodeURIComponent(after)}`}`;
      const page = await server.clients.reader.call('GET', undefined, path(query));
      assert.equal(page.status, 200, page.text);
      assert.doesNotMatch(page.text, /acme-secret-password/);
      seen.push(...page.json.data_sources.map((d: { id: string }) => d.id).filter((id: string) => id.startsWith('ds-page-')));
      if (page.json.next_cursor === null) break;
      after = page.json.next_cursor;
    }
    assert.deepEqual(seen, ['ds-page-a', 'ds-page-b', 'ds-page-c']);
    const conflict = await server.api.call('POST', source('ds-page-a'), path());
    assert.equal(conflict.status, 409);
  });

  it('checks what the schema cannot: host, TLS settings, id form; every refusal a 400 naming the field', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [source('bad-host', { connection: { ...connection, host: 'postgres://db' } }), /connection\.host/],
      [source('bad-host-2', { connection: { ...connection, host: 'db:5432' } }), /connection\.host/],
      [source('bad-port', { connection: { ...connection, port: 70000 } }), /port/],
      [
        source('ca-plain', {
          connection: { ...connection, ssl: { mode: 'disable', ca: '-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----' } },
        }),
        /ca/,
      ],
      [source('ca-garbage', { connection: { ...connection, ssl: { mode: 'verify-full', ca: 'not a certificate' } } }), /PEM/],
      [source(' padded'), /"id"/],
      [source('cafe\u0301'), /NFC/],
      [source('tab\tid'), /"id"/],
      [source('..'), /cannot be "\." or "\.\."/],
      [source('.'), /cannot be "\." or "\.\."/],
      [source('no-db', { connection: { host: 'db', user: 'u' } }), /database/],
      [source('extra', { owner: 'me' }), /additional properties/],
      [source('kind', { kind: 'mysql' }), /kind/],
    ];
    for (const [body, message] of cases) {
      const res = await server.api.call('POST', body, path());
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
      assert.equal(res.json.error.code, 'invalid_request');
      assert.match(res.json.error.message, message);
    }
    const ipv6 = await server.api.call(
      'POST',
      source('ipv6', { connection: { ...connection, host: 'fd00::5', ssl: { mode: 'require' } } }),
      path(),
    );
    assert.equal(ipv6.status, 201, ipv6.text);
  });

  it('each key access: read-write writes, read-only reads without secrets, embed gets nothing, dashboard reads credentials and the revocation feed only', async () => {
    await server.api.call('POST', source('access'), path());
    const { reader, embed, dashboard } = server.clients;
    assert.equal((await reader.call('GET', undefined, path('/access'))).status, 200);
    for (const [client, method, suffix, body] of [
      [reader, 'POST', '', source('nope')],
      [reader, 'PUT', '/access', { name: 'x' }],
      [reader, 'DELETE', '/access', undefined],
      [reader, 'POST', '/access/check', undefined],
      [reader, 'GET', '/access/credentials', undefined],
      [embed, 'GET', '', undefined],
      [embed, 'GET', '/access', undefined],
      [embed, 'GET', '/access/credentials', undefined],
      [dashboard, 'GET', '', undefined],
      [dashboard, 'GET', '/access', undefined],
      [dashboard, 'PUT', '/access', { name: 'x' }],
      [server.api, 'GET', '/access/credentials', undefined],
    ] as const) {
      const res = await client.call(method, body, path(suffix));
      assert.equal(res.status, 403, `${method} ${suffix}: ${res.text}`);
      assert.doesNotMatch(res.text, /acme-secret-password/);
    }
    const credentials = await dashboard.call('GET', undefined, path('/access/credentials'));
    assert.equal(credentials.status, 200, credentials.text);
    assert.equal(credentials.json.data_source.connection.password, 'acme-secret-password');
    assert.equal(credentials.json.data_source.api_environment_tag, 'Customer');
    // Everything else a dashboard key might try: groups, minting, introspection, events, usage, webhooks.
    for (const [method, p, body] of [
      ['GET', '/api/user', { user_group_id: 'anyone', name: 'Anyone' }],
      ['GET', '/api/user_groups', undefined],
      ['POST', '/api/embed_sessions', { user_group_id: 'anyone' }],
      ['POST', '/api/embed_sessions/introspect', { token: 'x.y.z' }],
      ['GET', '/api/events', undefined],
      ['GET', '/api/usage', undefined],
      ['GET', '/api/webhooks', undefined],
    ] as const) {
      const res = await dashboard.call(method, body, { path: p });
      assert.equal(res.status, 403, `${method} ${p}: ${res.text}`);
      assert.match(res.json.error.message, /dashboard key/);
    }
    assert.equal((await dashboard.call('GET', undefined, { path: '/api/embed_sessions/revocations' })).status, 200);
  });

  it("keeps environments apart: a Testing key neither sees nor reaches Customer's data sources", async () => {
    await server.api.call('POST', source('customer-only'), path());
    assert.equal((await server.clients.testing.call('GET', undefined, path('/customer-only'))).status, 404);
    assert.equal((await server.clients.testingDashboard.call('GET', undefined, path('/customer-only/credentials'))).status, 404);
    const list = await server.clients.testing.call('GET', undefined, path());
    assert.ok(!list.json.data_sources.some((d: { id: string }) => d.id === 'customer-only'));
    assert.equal(
      (await server.clients.testing.call('POST', source('customer-only'), path())).status,
      201,
      'the same id is free in Testing',
    );
  });

  it('updates partially: a new password bumps the version and names the field, never the value; no change writes nothing', async () => {
    await server.api.call('POST', source('partial'), path());
    const changed = await server.api.call('PUT', { connection: { password: 'rotated-password', port: 6432 } }, path('/partial'));
    assert.equal(changed.status, 200, changed.text);
    assert.equal(changed.json.data_source.version, 2);
    assert.equal(changed.json.data_source.connection.port, 6432);
    assert.equal(changed.json.data_source.connection.host, '10.1.2.3', 'what the update does not name stays');
    const same = await server.api.call('PUT', { name: 'Source partial', connection: { password: 'rotated-password' } }, path('/partial'));
    assert.equal(same.json.data_source.version, 2, 'the same values change nothing');
    const cleared = await server.api.call('PUT', { connection: { password: null } }, path('/partial'));
    assert.equal(cleared.json.data_source.password_set, false);
    const kind = await server.api.call('PUT', { kind: 'postgresql', name: 'Renamed' }, path('/partial'));
    assert.equal(kind.json.data_source.name, 'Renamed');
    assert.equal((await server.api.call('PUT', {}, path('/partial'))).status, 400, 'an empty update names nothing to change');
    assert.equal((await server.api.call('PUT', { name: 'x' }, path('/missing'))).status, 404);
    const events = await server.api.call('GET', undefined, { path: '/api/events?limit=1000' });
    const updates = events.json.events.filter(
      (e: { type: string; data: { data_source_id?: string } }) => e.type === 'data_source.updated' && e.data.data_source_id === 'partial',
    );
    assert.deepEqual(
      updates.map((e: { data: { changed: string[] } }) => e.data.changed),
      [['connection.port', 'connection.password'], ['connection.password'], ['name']],
    );
    assert.doesNotMatch(events.text, /rotated-password|acme-secret-password/);
  });

  it("shows a group's resolved mapping, own or inherited, and flags values naming no data source; delete is refused while mapped unless forced", async () => {
    await server.api.call('POST', source('warehouse'), path());
    await server.api.call('POST', source('213'), path());
    const parent = await server.api.getOrCreate({
      user_group_id: 'rm-parent',
      name: 'Parent',
      mapping: { '40': 'warehouse', '41': 'nowhere' },
    });
    assert.equal(parent.status, 200, parent.text);
    await server.api.getOrCreate({ user_group_id: 'rm-child', name: 'Child', parent_user_group_id: 'rm-parent', mapping: { '42': 213 } });
    const child = await server.api.call('GET', undefined, { path: '/api/user_groups/rm-child' });
    assert.deepEqual(child.json.user_group.resolved_mapping, [
      {
        schema: '40',
        value: 'warehouse',
        from_user_group_id: 'rm-parent',
        inherited: true,
        data_source: { id: 'warehouse', name: 'Source warehouse', kind: 'postgresql' },
      },
      { schema: '41', value: 'nowhere', from_user_group_id: 'rm-parent', inherited: true, data_source: null },
      {
        schema: '42',
        value: 213,
        from_user_group_id: 'rm-child',
        inherited: false,
        data_source: { id: '213', name: 'Source 213', kind: 'postgresql' },
      },
    ]);
    const read = await server.api.call('GET', undefined, path('/warehouse'));
    assert.deepEqual(read.json.data_source.mapped_groups, { total: 1, user_group_ids: ['rm-parent'] });
    const refused = await server.api.call('DELETE', undefined, path('/warehouse'));
    assert.equal(refused.status, 409);
    assert.match(refused.json.error.message, /1 group maps/);
    assert.equal((await server.api.call('DELETE', undefined, path('/warehouse?force=true'))).status, 200);
    const after = await server.api.call('GET', undefined, { path: '/api/user_groups/rm-child' });
    assert.equal(after.json.user_group.resolved_mapping[0].data_source, null, 'a forced delete leaves the value unresolved');
    assert.equal((await server.api.call('DELETE', undefined, path('/warehouse'))).status, 404);
  });
});

describe('UGS_MAPPING_UNRESOLVED=reject', () => {
  it('answers 400 naming the schema and the value on create and update; known ids and numbers of known ids pass', async (t) => {
    const server = await build(t, { rejectUnresolvedMapping: true });
    await server.api.call('POST', source('213'), path());
    const refused = await server.api.getOrCreate({ user_group_id: 'strict', name: 'Strict', mapping: { '40': 213, '41': 'ghost' } });
    assert.equal(refused.status, 400, refused.text);
    assert.match(refused.json.error.message, /schema "41" names "ghost"/);
    const created = await server.api.getOrCreate({ user_group_id: 'strict', name: 'Strict', mapping: { '40': 213 } });
    assert.equal(created.status, 200, created.text);
    const update = await server.api.update({ user_group_id: 'strict', mapping: { '40': '214' } });
    assert.equal(update.status, 400);
    assert.match(update.json.error.message, /schema "40" names "214"/);
    assert.equal(
      (await server.api.getOrCreate({ user_group_id: 'strict', name: 'ignored', mapping: { '1': 'ghost' } })).status,
      200,
      'an existing group is answered as it is',
    );
  });
});
