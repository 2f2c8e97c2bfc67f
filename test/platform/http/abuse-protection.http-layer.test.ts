import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { request } from 'node:http';
import { describe, it } from 'node:test';
import { apiKeyFormat } from '../../../src/api-keys/api-key.js';
import { build } from '../../helpers/build.js';
import { rawRequest, rawExchange } from '../../helpers/http-client.js';

/** A request from another loopback address (Linux routes all of 127.0.0.0/8 to lo). */
function fromAddress(url: string, localAddress: string, key: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ user_group_id: 'other-address', name: 'Other' });
    const req = request(
      `${url}/api/user`,
      {
        method: 'GET',
        localAddress,
        agent: false,
        headers: { authorization: `Token ${key}`, 'content-type': 'application/json', 'content-length': body.length },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** A kept-alive connection from `localAddress` that sent GET /healthz: 'served' once answered, 'refused' if closed first. */
interface HeldConnection {
  outcome: Promise<'served' | 'refused'>;
  /** Resolves when the connection is closed, by either side. */
  closed: Promise<void>;
  socket: Socket;
}

function holdConnection(url: string, localAddress: string): HeldConnection {
  const { hostname, port } = new URL(url);
  const socket = connect({ port: Number(port), host: hostname, localAddress }, () =>
    socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'),
  );
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  const outcome = new Promise<'served' | 'refused'>((resolve) => {
    socket.on('data', (chunk: Buffer) => {
      if (chunk.toString('latin1').startsWith('HTTP/1.1 200')) resolve('served');
    });
    socket.on('error', () => resolve('refused'));
    void closed.then(() => resolve('refused'));
  });
  return { outcome, closed, socket };
}

/** Opens `count` connections from `localAddress` one after the other, each held open once served. */
async function holdConnections(url: string, localAddress: string, count: number): Promise<{ held: HeldConnection[]; outcomes: string[] }> {
  const held: HeldConnection[] = [];
  const outcomes: string[] = [];
  for (let i = 0; i < count; i++) {
    const connection = holdConnection(url, localAddress);
    held.push(connection);
    outcomes.push(await connection.outcome);
  }
  return { held, outcomes };
}

describe('slow and abusive clients', () => {
  it('limits requests per API key when configured: 429 rate_limited with Retry-After, other keys unaffected', async (t) => {
    const server = await build(t, { limits: { requestsPerKeyPerMinute: 5 } });
    const busy = await server.client();
    const calm = await server.client();
    const statuses = [];
    for (let i = 0; i < 7; i++) statuses.push((await busy.getOrCreate({ user_group_id: 'limited', name: 'L' })).status);
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429, 429]);
    const limited = await busy.getOrCreate({ user_group_id: 'limited' });
    assert.equal(limited.json.success, 0);
    assert.equal(limited.json.error.code, 'rate_limited');
    assert.ok(Number(limited.headers['retry-after']) > 0);
    assert.equal((await calm.getOrCreate({ user_group_id: 'limited' })).status, 200);
  });

  it('has no per-key limit by default', async (t) => {
    // 150 connections at once from one address: above the per-address cap, which is not what this test is about.
    const server = await build(t, { limits: { maxConnectionsPerAddress: 1000 } });
    const { api } = server;
    const results = await Promise.all(Array.from({ length: 150 }, () => api.getOrCreate({ user_group_id: 'unlimited', name: 'U' })));
    assert.ok(results.every((r) => r.status === 200));
  });

  for (const keyCacheTtlMs of [60_000, 0]) {
    it(`throttles only failing attempts after repeated failed authentication: bad keys get 429, a valid key from that address is served (key cache ${keyCacheTtlMs === 0 ? 'off' : 'on'})`, async (t) => {
      const server = await build(t, { limits: { authFailuresPerMinute: 5 }, keyCacheTtlMs });
      const good = await server.client();
      assert.equal((await good.getOrCreate({ user_group_id: 'before', name: 'B' })).status, 200);
      const guess = () =>
        rawRequest(server.url, { method: 'GET', path: '/api/user', headers: { authorization: `Token ${apiKeyFormat.generate()}` } });
      const guesses = [];
      for (let i = 0; i < 6; i++) guesses.push((await guess()).status);
      assert.deepEqual(guesses, [401, 401, 401, 401, 401, 429]);
      const blocked = await guess();
      assert.equal(blocked.status, 429);
      assert.equal(blocked.json.error.code, 'rate_limited');
      assert.match(blocked.json.error.message, /failed authentication/);
      assert.ok(Number(blocked.headers['retry-after']) > 0);
      const malformed = await rawRequest(server.url, { method: 'GET', path: '/api/user', headers: { authorization: 'Token ugsk_nope' } });
      assert.equal(malformed.status, 429, 'a malformed key is a failing attempt too');

      // The address is over its limit, yet a valid key (cached or not) is served, and stays so.
      for (let i = 0; i < 3; i++) assert.equal((await good.getOrCreate({ user_group_id: 'x', name: 'X' })).status, 200);
      const fresh = await server.client();
      assert.equal((await fresh.getOrCreate({ user_group_id: 'x' })).status, 200, 'a key this server has never seen');
      assert.equal((await guess()).status, 429, 'the valid requests did not reset the failures');
      assert.equal(await fromAddress(server.url, '127.0.0.2', good.key!), 200);
      assert.equal(await fromAddress(server.url, '127.0.0.2', apiKeyFormat.generate()), 401, 'other addresses keep their own count');
    });
  }

  it('caps open connections per client address: exactly the excess is closed at once, other addresses are served, a freed slot is reusable', async (t) => {
    const server = await build(t, { limits: { maxConnectionsPerAddress: 5 } });
    const all: HeldConnection[] = [];
    try {
      const { held, outcomes } = await holdConnections(server.url, '127.0.0.1', 8);
      all.push(...held);
      assert.deepEqual(outcomes, ['served', 'served', 'served', 'served', 'served', 'refused', 'refused', 'refused']);
      const { api } = server;
      assert.equal(await fromAddress(server.url, '127.0.0.2', api.key!), 200, 'another address is not affected');
      const other = await holdConnections(server.url, '127.0.0.2', 5);
      all.push(...other.held);
      assert.ok(
        other.outcomes.every((o) => o === 'served'),
        'each address has its own cap',
      );

      // One of the five closes: once the server has seen it go, 127.0.0.1 may open one more, and only one.
      held[0]!.socket.end();
      await held[0]!.closed;
      let again: HeldConnection | undefined;
      for (let attempt = 0; attempt < 100 && again === undefined; attempt++) {
        const candidate = holdConnection(server.url, '127.0.0.1');
        all.push(candidate);
        if ((await candidate.outcome) === 'served') again = candidate;
        else await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.ok(again, 'a freed slot is given to a new connection');
      assert.equal(await holdConnection(server.url, '127.0.0.1').outcome, 'refused');
    } finally {
      for (const connection of all) connection.socket.destroy();
    }
  });

  it('exempts trusted proxies from the per-address cap: a proxy carries many clients', async (t) => {
    const server = await build(t, { limits: { maxConnectionsPerAddress: 2 }, trustedProxies: ['127.0.0.1'] });
    const all: HeldConnection[] = [];
    try {
      const proxy = await holdConnections(server.url, '127.0.0.1', 6);
      const client = await holdConnections(server.url, '127.0.0.2', 3);
      all.push(...proxy.held, ...client.held);
      assert.deepEqual(proxy.outcomes, ['served', 'served', 'served', 'served', 'served', 'served']);
      assert.deepEqual(client.outcomes, ['served', 'served', 'refused']);
    } finally {
      for (const connection of all) connection.socket.destroy();
    }
  });

  it('closes an idle kept-alive connection after the keep-alive timeout, not before', async (t) => {
    const server = await build(t, { limits: { keepAliveTimeoutMs: 1000 } });
    const connection = holdConnection(server.url, '127.0.0.1');
    assert.equal(await connection.outcome, 'served');
    const servedAt = Date.now();
    const closedBy = await Promise.race([
      connection.closed.then(() => 'server'),
      new Promise((resolve) => setTimeout(() => resolve('nobody'), 30_000)),
    ]);
    assert.equal(closedBy, 'server');
    assert.ok(Date.now() - servedAt >= 900, `closed after ${Date.now() - servedAt} ms, before the timeout`);
  });

  it('closes a connection whose headers do not arrive in time with 408 request_timeout', async (t) => {
    const server = await build(t, { limits: { headersTimeoutMs: 500, requestTimeoutMs: 1000 } });
    const answer = await rawExchange(server.url, 'GET /api/user HTTP/1.1\r\nHost: x\r\n'); // never finishes the headers
    assert.match(answer, /^HTTP\/1\.1 408/);
    assert.match(answer, /"code":"request_timeout"/);
    assert.equal((await rawRequest(server.url, { method: 'GET', path: '/healthz' })).status, 200, 'the server goes on');
  });

  it('closes a connection whose body does not arrive in time with 408 request_timeout', async (t) => {
    const server = await build(t, { limits: { headersTimeoutMs: 500, requestTimeoutMs: 1000 } });
    const { api } = server;
    const head = `PUT /api/user HTTP/1.1\r\nHost: x\r\nAuthorization: Token ${api.key}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"user_group_id":`;
    const answer = await rawExchange(server.url, head); // promises 100 bytes, sends 18
    assert.match(answer, /^HTTP\/1\.1 408/);
    assert.match(answer, /"code":"request_timeout"/);
  });
});
