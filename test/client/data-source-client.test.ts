import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
// Through the package's own export, as a user imports it.
import { UserGroupClient, UserGroupServiceError, type WireRequest } from 'user-group-service/client';
import { buildForSuite } from '../helpers/build.js';

const PASSWORD = 'client-Pa55word-e41b';
const failsWith = (status: number, code: string) => (e: unknown) =>
  e instanceof UserGroupServiceError && e.status === status && e.code === code;

describe('UserGroupClient data sources against a live server', () => {
  const server = buildForSuite({ apiKey: false });
  let client: UserGroupClient;
  const clientWith = async (access: 'read-only' | 'embed' | 'dashboard') =>
    new UserGroupClient({
      baseUrl: server.url,
      apiKey: (await server.services.apiKeys.create({ environment: 'Customer', access })).key,
      retries: 0,
    });
  before(async () => {
    const { key } = await server.services.apiKeys.create({ environment: 'Customer', access: 'read-write' });
    client = new UserGroupClient({ baseUrl: server.url, apiKey: key, retries: 0 });
  });

  it('creates, reads, pages, updates and removes under the wire names, showing only whether a password is set', async () => {
    const created = await client.dataSources.create({
      id: 'acme/eu 213',
      name: 'Acme EU',
      connection: { host: 'db.internal', database: 'acme', user: 'dash', password: PASSWORD, ssl: { mode: 'require' } },
    });
    assert.deepEqual(Object.keys(created), ['id', 'name', 'kind', 'connection', 'password_set', 'version', 'created_at', 'updated_at']);
    assert.deepEqual(
      [created.id, created.kind, created.password_set, created.version, created.connection],
      ['acme/eu 213', 'postgresql', true, 1, { host: 'db.internal', port: 5432, database: 'acme', user: 'dash', ssl: { mode: 'require' } }],
    );
    await client.dataSources.create({
      id: 'globex',
      name: 'Globex',
      kind: 'postgresql',
      connection: { host: '10.0.0.5', database: 'g', user: 'u' },
    });

    const first = await client.dataSources.list({ limit: 1 });
    assert.deepEqual([first.data_sources.map((d) => d.id), first.next_cursor], [['acme/eu 213'], 'acme/eu 213']);
    const rest = await client.dataSources.list({ after: first.next_cursor!, limit: 1 });
    assert.deepEqual(
      rest.data_sources.map((d) => d.id),
      ['globex'],
    );
    assert.equal((await client.dataSources.list({ after: 'globex' })).next_cursor, null);

    const got = await client.dataSources.get('acme/eu 213');
    assert.deepEqual(got, { ...created, mapped_groups: { total: 0, user_group_ids: [] } });

    const renamed = await client.dataSources.update('acme/eu 213', { name: 'Acme Europe', connection: { port: 5433 } });
    assert.deepEqual([renamed.name, renamed.connection.port, renamed.version, renamed.password_set], ['Acme Europe', 5433, 2, true]);
    const cleared = await client.dataSources.update('acme/eu 213', { connection: { password: null } });
    assert.deepEqual([cleared.password_set, cleared.version], [false, 3]);
    await assert.rejects(client.dataSources.update('acme/eu 213', { connection: { host: 'http://x' } }), failsWith(400, 'invalid_request'));
    await assert.rejects(
      client.dataSources.create({ id: created.id, name: 'Again', connection: { host: 'h', database: 'd', user: 'u' } }),
      failsWith(409, 'conflict'),
    );

    await client.dataSources.remove('globex');
    await assert.rejects(client.dataSources.get('globex'), failsWith(404, 'not_found'));
    await assert.rejects(client.dataSources.remove('globex'), failsWith(404, 'not_found'));
    for (const answer of [created, got, renamed, cleared, first, rest]) assert.ok(!JSON.stringify(answer).includes(PASSWORD));
  });

  it("resolves a group's mapping in get's answer, own and inherited; remove is refused while mapped unless forced", async () => {
    await client.dataSources.create({ id: 'initech', name: 'Initech', connection: { host: '10.0.0.9', database: 'shared', user: 'dash' } });
    await client.getOrCreate({ user_group_id: 'initech', name: 'Initech', mapping: { '40': 'initech', '41': 'nowhere' } });
    await client.getOrCreate({ user_group_id: 'initech-sub', name: 'Initech sub', parent_user_group_id: 'initech' });

    const sub = await client.get('initech-sub');
    assert.deepEqual(
      sub.resolved_mapping.map((entry) => [
        entry.schema,
        entry.value,
        entry.from_user_group_id,
        entry.inherited,
        entry.data_source?.id ?? null,
      ]),
      [
        ['40', 'initech', 'initech', true, 'initech'],
        ['41', 'nowhere', 'initech', true, null],
      ],
    );
    assert.deepEqual((await client.dataSources.get('initech')).mapped_groups, { total: 1, user_group_ids: ['initech'] });

    await assert.rejects(client.dataSources.remove('initech'), failsWith(409, 'conflict'));
    await client.dataSources.remove('initech', { force: true });
    assert.equal((await client.get('initech')).resolved_mapping[0]!.data_source, null);
  });

  it('gives the password to a dashboard key only; a read-only key reads without it; an embed key gets nothing', async () => {
    await client.dataSources.create({
      id: 'hooli',
      name: 'Hooli',
      connection: { host: 'db.hooli', port: 6432, database: 'hooli', user: 'dash', password: PASSWORD },
    });
    const dashboard = await clientWith('dashboard');
    assert.deepEqual(await dashboard.dataSources.credentials('hooli'), {
      id: 'hooli',
      api_environment_tag: 'Customer',
      kind: 'postgresql',
      version: 1,
      connection: { host: 'db.hooli', port: 6432, database: 'hooli', user: 'dash', ssl: { mode: 'disable' }, password: PASSWORD },
    });
    await assert.rejects(dashboard.dataSources.list(), failsWith(403, 'forbidden'));
    await assert.rejects(client.dataSources.credentials('hooli'), failsWith(403, 'forbidden'));

    const readOnly = await clientWith('read-only');
    assert.equal((await readOnly.dataSources.get('hooli')).password_set, true);
    await assert.rejects(readOnly.dataSources.credentials('hooli'), failsWith(403, 'forbidden'));
    await assert.rejects(readOnly.dataSources.update('hooli', { name: 'x' }), failsWith(403, 'forbidden'));
    await assert.rejects((await clientWith('embed')).dataSources.list(), failsWith(403, 'forbidden'));
  });

  it("reads a check's categories under the wire names, and sends remove's force and an id as one path segment", async () => {
    const sent: WireRequest[] = [];
    const canned = new UserGroupClient({
      baseUrl: 'http://ugs.test',
      apiKey: 'ugsk_x',
      transport: async (request) => {
        sent.push(request);
        const check = {
          reachable: true,
          authenticated: false,
          server_version: null,
          superuser: null,
          bypass_rls: null,
          tls: true,
          failure: 'authentication_failed',
          duration_ms: 41,
        };
        return { status: 200, headers: {}, text: JSON.stringify({ success: 1, check }) };
      },
    });
    assert.deepEqual(await canned.dataSources.check('a/b?'), {
      reachable: true,
      authenticated: false,
      server_version: null,
      superuser: null,
      bypass_rls: null,
      tls: true,
      failure: 'authentication_failed',
      duration_ms: 41,
    });
    await canned.dataSources.remove('a/b?', { force: true });
    assert.deepEqual(
      sent.map((r) => `${r.method} ${r.url}`),
      ['POST http://ugs.test/api/data_sources/a%2Fb%3F/check', 'DELETE http://ugs.test/api/data_sources/a%2Fb%3F?force=true'],
    );
  });
});
