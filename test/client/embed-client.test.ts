import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { createRemoteJWKSet, jwtVerify } from 'jose';
// Through the package's own export, as a user imports it.
import { UserGroupClient, UserGroupServiceError } from 'user-group-service/client';
import { buildForSuite } from '../helpers/build.js';

describe('UserGroupClient embed sessions and events against a live server', () => {
  const server = buildForSuite({ apiKey: false });
  let client: UserGroupClient;
  before(async () => {
    const { key } = await server.services.apiKeys.create({ environment: 'Customer', access: 'read-write' });
    client = new UserGroupClient({ baseUrl: server.url, apiKey: key });
  });

  it('renews a session in place (same session id, the group as it is now), and an ended one throws conflict saying why', async () => {
    await client.getOrCreate({ user_group_id: 'renewed', name: 'Renewed', properties: { region: 'eu' } });
    const session = await client.mintEmbedSession({ user_group_id: 'renewed', expires_in: 60, max_lifetime: 3600 });
    await client.update({ user_group_id: 'renewed', properties: { region: 'us' } });
    const next = await client.renewEmbedSession(session.token, { expires_in: 120 });
    assert.equal(next.session_id, session.session_id);
    const live = await client.introspect(next.token);
    assert.equal(live.active && live.props?.['region'], 'us');
    await client.revokeEmbedSession(session.session_id);
    await assert.rejects(
      client.renewEmbedSession(next.token),
      (e: unknown) => e instanceof UserGroupServiceError && e.status === 409 && e.code === 'conflict' && /ended/.test(e.message),
    );
  });

  it('mints a session that verifies against the JWKS, introspects it, ends it and sees it in the revocation feed', async () => {
    await client.getOrCreate({ user_group_id: 'acme', name: 'Acme', properties: { region: 'eu' } });
    const session = await client.mintEmbedSession({ user_group_id: 'acme', expires_in: 120, dashboard: 'sales' });
    assert.equal(session.user_group_id, 'acme');
    assert.match(session.session_id, /^es_/);

    const { payload } = await jwtVerify(session.token, createRemoteJWKSet(new URL(`${server.url}/.well-known/jwks.json`)), {
      issuer: 'user-group-service',
      audience: 'embedded-dashboards',
      typ: 'embed+jwt',
    });
    assert.deepEqual(payload['props'], { region: 'eu' });
    assert.equal(payload.exp! - payload.iat!, 120);

    const live = await client.introspect(session.token);
    assert.equal(live.active, true);
    assert.equal(live.jti, session.session_id);

    const before = await client.embedRevocations();
    await client.revokeEmbedSession(session.session_id);
    assert.deepEqual(await client.introspect(session.token), { active: false });
    const page = await client.embedRevocations({ after: before.next_cursor });
    assert.deepEqual(
      page.revocations.map((r) => [r.session_id, r.reason]),
      [[session.session_id, 'session_revoked']],
    );
    assert.notEqual(page.next_cursor, before.next_cursor);
  });

  it('reads the event feed a page at a time: the changes in order, and an unchanged cursor when nothing is new', async () => {
    const start = await client.events({ limit: 1000 });
    await client.getOrCreate({ user_group_id: 'evented', name: 'Evented' });
    await client.update({ user_group_id: 'evented', name: 'Renamed' });
    await client.delete('evented');
    const first = await client.events({ after: start.next_cursor, limit: 2 });
    const rest = await client.events({ after: first.next_cursor });
    assert.deepEqual(
      [...first.events, ...rest.events].map((e) => [e.type, e.data.user_group_id, e.data.changed]),
      [
        ['user_group.created', 'evented', undefined],
        ['user_group.updated', 'evented', ['name']],
        ['user_group.deleted', 'evented', undefined],
      ],
    );
    assert.deepEqual(await client.events({ after: rest.next_cursor }), { events: [], next_cursor: rest.next_cursor });
    await assert.rejects(client.events({ after: 'not-a-cursor' }), (e: unknown) => e instanceof UserGroupServiceError && e.status === 400);
  });

  it('throws the service error for an unknown group and an unknown session', async () => {
    await assert.rejects(
      client.mintEmbedSession({ user_group_id: 'nobody' }),
      (e: unknown) => e instanceof UserGroupServiceError && e.status === 404 && e.code === 'not_found',
    );
    await assert.rejects(client.revokeEmbedSession('es_unknown'), (e: unknown) => e instanceof UserGroupServiceError && e.status === 404);
  });
});
