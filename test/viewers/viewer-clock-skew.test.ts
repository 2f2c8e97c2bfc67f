import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import type { ApiClient } from '../helpers/http-client.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { build, suiteTeardown, type TestApp } from '../helpers/build.js';
import { assertError } from '../platform/http/assert-error.js';

/** UGS_CLOCK_OFFSET_MAX_MS as the servers here are set: its default. */
const BOUND_MS = 2500;

/**
 * A viewer's revocation across replicas whose clocks differ (PostgreSQL: replicas run on other machines;
 * SQLite's processes share one clock). Each replica below is a real server on one database with its clock
 * skewed: one on time, one 2 s ahead (within UGS_CLOCK_OFFSET_MAX_MS), one 4 s ahead (beyond it).
 */
describe('viewer revocation across replicas whose clocks differ (PostgreSQL)', () => {
  // First, so the replicas close before the after hook below drops their database.
  const suite = suiteTeardown();
  let database: TestDatabase;
  let onTime: TestApp;
  let ahead: TestApp;
  let farAhead: TestApp;
  let api: ApiClient;
  let apiAhead: ApiClient;
  let apiFarAhead: ApiClient;
  const secret = randomBytes(32).toString('hex');

  const mint = async (client: ApiClient, viewer: string): Promise<string> => {
    const res = await client.call('POST', { user_group_id: 'skew', viewer: { id: viewer } }, { path: '/api/embed_sessions' });
    assert.equal(res.status, 201, res.text);
    return res.json.embed_session.token as string;
  };
  const active = async (client: ApiClient, token: string): Promise<boolean> =>
    (await client.call('POST', { token }, { path: '/api/embed_sessions/introspect' })).json.active as boolean;
  const endViewer = async (client: ApiClient, viewer: string) => {
    const res = await client.call('DELETE', undefined, { path: `/api/viewers/${viewer}/sessions` });
    assert.equal(res.status, 200, res.text);
    return res.json as { revoked_at: string };
  };

  before(async () => {
    database = await createTestDatabase({ migrated: true });
    const replica = (skewMs: number) =>
      build(suite, { postgres: database, secret, embed: { clockOffsetMaxMs: BOUND_MS }, now: () => Date.now() + skewMs, apiKey: false });
    onTime = await replica(0);
    ahead = await replica(2000);
    farAhead = await replica(4000);
    api = await onTime.client();
    // One key, one database: every replica knows it.
    apiAhead = new (api.constructor as typeof ApiClient)(ahead.url, api.key);
    apiFarAhead = new (api.constructor as typeof ApiClient)(farAhead.url, api.key);
    assert.equal((await api.getOrCreate({ user_group_id: 'skew', name: 'Skew' })).status, 200);
  });
  after(async () => {
    await database?.drop();
  });

  it('a revocation on time ends the sessions a replica 2 s ahead minted a moment before, and no later one', async () => {
    const byAhead = await mint(apiAhead, 'leaver');
    const byOnTime = await mint(api, 'leaver');
    const { revoked_at } = await endViewer(api, 'leaver');
    for (const client of [api, apiAhead]) {
      assert.equal(await active(client, byAhead), false, `the session minted 2 s ahead, introspected at ${client.baseUrl}`);
      assert.equal(await active(client, byOnTime), false);
    }
    const renewal = await apiAhead.call('POST', { token: byAhead }, { path: '/api/embed_sessions/renew' });
    assert.match(assertError(renewal, 409, 'conflict'), /viewer/);
    // After the answer, on either replica: a session that lives, stamped past the cut-off.
    for (const client of [apiAhead, api]) {
      const later = await mint(client, 'leaver');
      assert.ok(decodeJwt(later).iat! > Math.floor(Date.parse(revoked_at) / 1000));
      assert.equal(await active(api, later), true);
      assert.equal(await active(apiAhead, later), true);
    }
  });

  it('a revocation by the replica ahead ends what the replica on time minted a moment before', async () => {
    const byOnTime = await mint(api, 'leaver-2');
    await endViewer(apiAhead, 'leaver-2');
    assert.equal(await active(api, byOnTime), false);
    assert.equal(await active(apiAhead, byOnTime), false);
    assert.equal(await active(api, await mint(api, 'leaver-2')), true);
  });

  it('a replica further off than UGS_CLOCK_OFFSET_MAX_MS mints and renews nothing, and is not ready, saying why', async () => {
    const token = await mint(api, 'someone');
    const refusals = [
      await apiFarAhead.call('POST', { user_group_id: 'skew' }, { path: '/api/embed_sessions' }),
      await apiFarAhead.call('POST', { token }, { path: '/api/embed_sessions/renew' }),
      await apiFarAhead.call('GET', undefined, { path: '/readyz' }),
    ];
    for (const refusal of refusals)
      assert.match(assertError(refusal, 503, 'unavailable'), /ahead of the database's.*UGS_CLOCK_OFFSET_MAX_MS/);
    assert.equal((await api.call('GET', undefined, { path: '/readyz' })).status, 200);
    assert.equal((await apiAhead.call('GET', undefined, { path: '/readyz' })).status, 200);
  });
});
