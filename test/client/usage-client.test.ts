import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
// Through the package's own export, as a user imports it.
import { UserGroupClient, UserGroupServiceError } from 'user-group-service/client';
import { buildForSuite } from '../helpers/build.js';

const DAY = 86_400_000;
const failsWith = (status: number, code: string) => (e: unknown) =>
  e instanceof UserGroupServiceError && e.status === status && e.code === code;

describe('UserGroupClient usage against a live server', () => {
  const server = buildForSuite({ apiKey: false });
  let client: UserGroupClient;
  before(async () => {
    const { key } = await server.services.apiKeys.create({ environment: 'Customer', access: 'read-write' });
    client = new UserGroupClient({ baseUrl: server.url, apiKey: key });
    // A path separator, a query and a fragment character, a space: each must reach the service as one path segment.
    await client.getOrCreate({ user_group_id: 'acme/eu ?#', name: 'Acme EU' });
    await client.getOrCreate({ user_group_id: 'globex', name: 'Globex' });
  });

  it("reads a group's buckets and the ranking under the wire names, ranges as text or Dates", async () => {
    const session = await client.mintEmbedSession({ user_group_id: 'acme/eu ?#', viewer: { id: 'ana' } });
    await client.renewEmbedSession(session.token);
    await client.mintEmbedSession({ user_group_id: 'acme/eu ?#', viewer: { id: 'bo' } });
    await client.mintEmbedSession({ user_group_id: 'globex' });
    await server.services.embedSessions.flushActivity();
    const today = Math.floor(Date.now() / DAY) * DAY;

    const days = await client.groupUsage('acme/eu ?#', { from: new Date(today - DAY), to: new Date(today + DAY) });
    assert.deepEqual(days, [
      { start: new Date(today - DAY).toISOString(), sessions: 0, renewals: 0, viewers: 0 },
      { start: new Date(today).toISOString(), sessions: 2, renewals: 1, viewers: 2 },
    ]);
    const hours = await client.groupUsage('acme/eu ?#', { granularity: 'hour', from: new Date(today).toISOString() });
    assert.equal(
      hours.reduce((n, b) => n + b.sessions, 0),
      2,
    );
    const lastDays = await client.groupUsage('globex');
    assert.equal(lastDays.length, 30, "the last 30 UTC days by default, today's included");

    const top = await client.topUsage({ limit: 5 });
    assert.deepEqual(
      top.groups.map((g) => [g.user_group_id, g.name, g.sessions, g.renewals, g.viewers]),
      [
        ['acme/eu ?#', 'Acme EU', 2, 1, 2],
        ['globex', 'Globex', 1, 0, 0],
      ],
    );
    assert.deepEqual(Object.keys(top.groups[0]!), ['user_group_id', 'name', 'sessions', 'renewals', 'viewers', 'last_session_at']);
    assert.equal(top.from, lastDays[0]!.start, 'ranked over the same days');
  });

  it('throws UserGroupServiceError with the status and code: a bad range 400, an unknown group 404, an embed key 403', async () => {
    await assert.rejects(
      client.groupUsage('acme/eu ?#', { from: '2026-01-01T00:00:00Z', to: '2026-06-01T00:00:00Z' }),
      failsWith(400, 'invalid_request'),
    );
    await assert.rejects(client.topUsage({ limit: 0 }), failsWith(400, 'invalid_request'));
    await assert.rejects(client.groupUsage('nobody'), failsWith(404, 'not_found'));
    const embed = new UserGroupClient({
      baseUrl: server.url,
      apiKey: (await server.services.apiKeys.create({ environment: 'Customer', access: 'embed' })).key,
    });
    await assert.rejects(embed.topUsage(), failsWith(403, 'forbidden'));
  });
});
