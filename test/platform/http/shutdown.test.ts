import assert from 'node:assert/strict';
import { request } from 'node:http';
import { connect } from 'node:net';
import { describe, it } from 'node:test';
import { build } from '../../helpers/build.js';

// Each test closes the app itself, its subject; build's teardown then finds it closed and closes the rest.
describe('graceful shutdown', () => {
  it('finishes a request in flight when close starts, then refuses new connections', async (t) => {
    const server = await build(t);
    const { api } = server;
    const body = JSON.stringify({ user_group_id: 'in-flight', name: 'In flight' });
    const half = Math.floor(body.length / 2);

    const answer = new Promise<{ status: number; json: { new_user_group: boolean } }>((resolve, reject) => {
      const req = request(
        `${server.url}/api/user`,
        {
          method: 'GET',
          headers: { authorization: `Token ${api.key}`, 'content-type': 'application/json', 'content-length': body.length },
        },
        (res) => {
          let text = '';
          res.on('data', (c) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) }));
        },
      );
      req.on('error', reject);
      req.write(body.slice(0, half));
      // The request is now in flight: headers and half its body are on the wire.
      setTimeout(() => {
        closed = server.app.close();
        setTimeout(() => req.end(body.slice(half)), 50);
      }, 50);
    });
    let closed: Promise<void> | undefined;

    const res = await answer;
    assert.equal(res.status, 200);
    assert.equal(res.json.new_user_group, true);
    await closed;
    await assert.rejects(api.getOrCreate({ user_group_id: 'after', name: 'After' }), /ECONNREFUSED/);
  });

  it('answers a request that arrives during shutdown 503 unavailable, with an X-Request-Id like every answer', async (t) => {
    const server = await build(t);
    const { hostname, port } = new URL(server.url);
    const socket = connect(Number(port), hostname);
    let raw = '';
    socket.on('data', (chunk) => (raw += chunk));
    const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    // Headers begun, so the connection is busy and shutdown waits for it; finished only once shutdown has started.
    socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
    await new Promise((resolve) => setTimeout(resolve, 100));
    const closed = server.app.close();
    for (let attempt = 0; attempt < 200 && server.app.server.listening; attempt++) await new Promise((resolve) => setTimeout(resolve, 10));
    socket.write('\r\n');
    await ended;
    await closed;
    assert.match(raw, /^HTTP\/1\.1 503 /, raw);
    const id = /\r\nx-request-id: ([0-9a-f-]{36})\r\n/i.exec(raw)?.[1];
    assert.ok(id, raw);
    assert.match(raw, /"code":"unavailable"/);
    assert.ok(raw.includes(`"request_id":"${id}"`), `the body does not carry the X-Request-Id: ${raw}`);
  });
});
