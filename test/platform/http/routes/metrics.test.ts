import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { build } from '../../../helpers/build.js';
import { ApiClient, rawRequest } from '../../../helpers/http-client.js';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a Prometheus text exposition (comment lines skipped). */
function parseMetrics(text: string): Sample[] {
  return text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      assert.ok(match, `not a sample line: ${line}`);
      const labels = Object.fromEntries([...(match[2] ?? '').matchAll(/([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1]!, m[2]!]));
      return { name: match[1]!, labels, value: Number(match[3]) };
    });
}

/** The value of the one sample with exactly these labels, or undefined. */
function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samples.filter(
    (s) =>
      s.name === name &&
      Object.keys(s.labels).length === Object.keys(labels).length &&
      Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  assert.ok(found.length <= 1, `${name} ${JSON.stringify(labels)} appears ${found.length} times`);
  return found[0]?.value;
}

async function scrape(url: string, headers: Record<string, string> = {}): Promise<Sample[]> {
  const response = await rawRequest(url, { method: 'GET', path: '/metrics', headers });
  assert.equal(response.status, 200, response.text);
  assert.equal(response.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8');
  return parseMetrics(response.text);
}

describe('GET /metrics', () => {
  it('counts requests by route pattern, method and status, rotations and auth failures, and times requests and store calls', async (t) => {
    const server = await build(t);
    const other = await build(t);
    const { api } = server;
    const created = await api.getOrCreate({ user_group_id: 'acme', name: 'Acme' });
    assert.equal(created.status, 200);
    assert.equal((await api.getOrCreate({ user_group_id: 'acme' })).status, 200);
    assert.equal((await api.rotate(created.json.user_group.token)).status, 200);
    assert.equal((await api.rotate(created.json.user_group.token)).status, 404); // the old token: not a rotation
    assert.equal((await new ApiClient(server.url, undefined).getOrCreate({ user_group_id: 'acme' })).status, 401);
    assert.equal((await rawRequest(server.url, { method: 'GET', path: '/no/such/path?x=1' })).status, 404);

    const samples = await scrape(server.url);
    const requests = (labels: Record<string, string>) => valueOf(samples, 'ugs_http_requests_total', labels);
    assert.equal(requests({ route: '/api/user', method: 'GET', status: '200' }), 2);
    assert.equal(requests({ route: '/api/user', method: 'POST', status: '200' }), 1);
    assert.equal(requests({ route: '/api/user', method: 'POST', status: '404' }), 1);
    assert.equal(requests({ route: '/api/user', method: 'GET', status: '401' }), 1);
    // Unmatched paths share one label value: the raw URL never becomes a label.
    assert.equal(requests({ route: 'unmatched', method: 'GET', status: '404' }), 1);
    assert.ok(!samples.some((s) => Object.values(s.labels).some((v) => v.includes('/no/such'))));
    assert.equal(valueOf(samples, 'ugs_token_rotations_total'), 1);
    assert.equal(valueOf(samples, 'ugs_auth_failures_total', { reason: 'unauthenticated' }), 1);

    // Histograms: every bucket up to +Inf, counts per route and method (the 200s and the 401 of GET).
    const getBuckets = samples.filter(
      (s) => s.name === 'ugs_http_request_duration_seconds_bucket' && s.labels.route === '/api/user' && s.labels.method === 'GET',
    );
    assert.ok(getBuckets.length >= 10, 'histogram buckets');
    assert.equal(getBuckets.at(-1)!.labels.le, '+Inf');
    assert.equal(getBuckets.at(-1)!.value, 3);
    assert.equal(valueOf(samples, 'ugs_http_request_duration_seconds_count', { route: '/api/user', method: 'GET' }), 3);
    assert.ok(valueOf(samples, 'ugs_http_request_duration_seconds_sum', { route: '/api/user', method: 'GET' })! > 0);
    assert.equal(valueOf(samples, 'ugs_store_operation_duration_seconds_count', { operation: 'findUserGroup' }), 2);
    assert.equal(valueOf(samples, 'ugs_store_operation_duration_seconds_count', { operation: 'insertUserGroupIfAbsent' }), 1);
    assert.equal(valueOf(samples, 'ugs_store_operation_duration_seconds_count', { operation: 'findUserGroupByTokenHash' }), 2);
    assert.equal(valueOf(samples, 'ugs_store_operation_duration_seconds_count', { operation: 'replaceToken' }), 1);
    assert.ok(
      samples.some(
        (s) => s.name === 'ugs_store_operation_duration_seconds_bucket' && s.labels.operation === 'findUserGroup' && s.labels.le === '+Inf',
      ),
    );

    // Groups per environment, counted by the store at scrape time.
    assert.equal(valueOf(samples, 'ugs_user_groups', { environment: 'Customer' }), 1);
    assert.equal(valueOf(samples, 'ugs_user_groups', { environment: 'Testing' }), 0);

    // prom-client's process metrics come along.
    assert.ok(samples.some((s) => s.name === 'process_cpu_user_seconds_total'));
    assert.ok(samples.some((s) => s.name === 'nodejs_heap_size_total_bytes'));

    // A scrape is counted like any request, once it is answered.
    assert.equal(valueOf(await scrape(server.url), 'ugs_http_requests_total', { route: '/metrics', method: 'GET', status: '200' }), 1);

    // Another app in the same process keeps its own counts.
    const elsewhere = await scrape(other.url);
    assert.equal(valueOf(elsewhere, 'ugs_token_rotations_total'), 0);
    assert.equal(valueOf(elsewhere, 'ugs_http_requests_total', { route: '/api/user', method: 'GET', status: '200' }), undefined);
    assert.equal(valueOf(elsewhere, 'ugs_store_operation_duration_seconds_count', { operation: 'findUserGroup' }), undefined);
  });

  it('counts the embed sessions minted and renewed per environment as they are counted, before any flush, with no per-group label', async (t) => {
    const server = await build(t, { clients: { testing: { environment: 'Testing' } } });
    const { api, clients } = server;
    const sessions = (samples: Sample[], environment: string, kind: string) =>
      valueOf(samples, 'ugs_embed_sessions_total', { environment, kind });
    const start = await scrape(server.url);
    assert.deepEqual(
      [sessions(start, 'Customer', 'minted'), sessions(start, 'Customer', 'renewed'), sessions(start, 'Testing', 'minted')],
      [0, 0, 0],
      'every series present from the start',
    );
    const mint = async (client: typeof api, group: string) => {
      const res = await client.call('POST', { user_group_id: group }, { path: '/api/embed_sessions' });
      assert.equal(res.status, 201, res.text);
      return res.json.embed_session.token as string;
    };
    for (const [client, group] of [
      [api, 'm-acme'],
      [api, 'm-globex'],
      [clients.testing, 'm-testing'],
    ] as const)
      await client.getOrCreate({ user_group_id: group, name: group });
    const token = await mint(api, 'm-acme');
    await mint(api, 'm-acme');
    await mint(api, 'm-globex');
    await mint(clients.testing, 'm-testing');
    for (let i = 0; i < 2; i++) assert.equal((await api.call('POST', { token }, { path: '/api/embed_sessions/renew' })).status, 201);
    assert.equal((await api.call('POST', { token: 'not-a-token' }, { path: '/api/embed_sessions/renew' })).status, 400);
    const samples = await scrape(server.url);
    assert.deepEqual(
      [
        sessions(samples, 'Customer', 'minted'),
        sessions(samples, 'Customer', 'renewed'),
        sessions(samples, 'Testing', 'minted'),
        sessions(samples, 'Testing', 'renewed'),
      ],
      [3, 2, 1, 0],
      'a refused renewal is not counted',
    );
    assert.deepEqual(
      [...new Set(samples.filter((s) => s.name === 'ugs_embed_sessions_total').flatMap((s) => Object.keys(s.labels)))].sort(),
      ['environment', 'kind'],
    );
  });

  it('counts 429s of the failed-auth throttle as auth failures, not those of the per-key rate limit', async (t) => {
    const server = await build(t, { limits: { authFailuresPerMinute: 2, requestsPerKeyPerMinute: 1 } });
    const { api } = server;
    assert.equal((await api.getOrCreate({ user_group_id: 'acme', name: 'Acme' })).status, 200);
    assert.equal((await api.getOrCreate({ user_group_id: 'acme' })).status, 429); // per-key limit
    const stranger = new ApiClient(server.url, 'ugsk_not_a_key');
    assert.deepEqual(
      [await stranger.getOrCreate({}), await stranger.getOrCreate({}), await stranger.getOrCreate({})].map((r) => r.status),
      [401, 401, 429],
    );
    const samples = await scrape(server.url);
    assert.equal(valueOf(samples, 'ugs_auth_failures_total', { reason: 'unauthenticated' }), 2);
    assert.equal(valueOf(samples, 'ugs_auth_failures_total', { reason: 'throttled' }), 1);
    assert.equal(valueOf(samples, 'ugs_http_requests_total', { route: '/api/user', method: 'GET', status: '429' }), 2);
  });

  it('with a metrics token, answers only "Authorization: Bearer <token>"; the rest get the 401 envelope', async (t) => {
    const token = 'metrics-token-0123456789';
    const server = await build(t, { metricsToken: token });
    const attempts: Record<string, string>[] = [
      {},
      { authorization: 'Bearer wrong-token-0123456789' },
      { authorization: `Token ${token}` },
      { authorization: `Bearer ${token}x` },
    ];
    for (const headers of attempts) {
      const refused = await rawRequest(server.url, { method: 'GET', path: '/metrics', headers });
      assert.equal(refused.status, 401, JSON.stringify(headers));
      assert.match(refused.headers['content-type'] ?? '', /^application\/json/);
      assert.equal(refused.json.success, 0);
      assert.equal(refused.json.error.code, 'unauthenticated');
      assert.match(refused.json.error.message, /Bearer/);
      assert.ok(!refused.text.includes(token));
    }
    const samples = await scrape(server.url, { authorization: `Bearer ${token}` });
    assert.equal(valueOf(samples, 'ugs_auth_failures_total', { reason: 'unauthenticated' }), 4);
    assert.equal(valueOf(samples, 'ugs_http_requests_total', { route: '/metrics', method: 'GET', status: '401' }), 4);
    // The API keys of /api/user are not metrics tokens, and the other way round.
    const { api } = server;
    assert.equal(
      (await rawRequest(server.url, { method: 'GET', path: '/metrics', headers: { authorization: `Bearer ${api.key}` } })).status,
      401,
    );
    assert.equal((await new ApiClient(server.url, token).getOrCreate({ user_group_id: 'acme', name: 'Acme' })).status, 401);
  });
});
