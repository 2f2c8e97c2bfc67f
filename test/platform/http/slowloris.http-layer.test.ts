import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { describe, it } from 'node:test';
import { build } from '../../helpers/build.js';
import { rawRequest } from '../../helpers/http-client.js';

interface Trickle {
  /** Everything the server sent, once it closed the connection. */
  answer: Promise<string>;
  /** When the server closed it, in ms after the first byte was sent. */
  closedAfterMs: Promise<number>;
  stop(): void;
}

/**
 * Slowloris: sends `head` at once, then `drip()` every `everyMs` for as long
 * as the connection is open, so no idle timeout ever fires: only a deadline
 * on the whole headers (or request) can end it.
 */
function trickle(url: string, head: string, drip: () => string, everyMs: number): Trickle {
  const { hostname, port } = new URL(url);
  const started = Date.now();
  const socket = connect(Number(port), hostname, () => socket.write(head));
  const timer = setInterval(() => socket.writable && socket.write(drip()), everyMs);
  let answer = '';
  socket.on('data', (chunk) => (answer += chunk));
  socket.on('error', () => {});
  const closed = new Promise<number>((resolve) =>
    socket.on('close', () => {
      clearInterval(timer);
      resolve(Date.now() - started);
    }),
  );
  return {
    answer: closed.then(() => answer),
    closedAfterMs: closed,
    stop: () => {
      clearInterval(timer);
      socket.destroy();
    },
  };
}

/**
 * Issue 26: slowloris was refused. abuse-protection.http-layer.test.ts pins a client
 * that stops mid-headers; these keep sending, a header line (or a body byte)
 * at a time, well inside any idle timeout, and are closed all the same at the
 * headers (or request) deadline, while other clients are served.
 */
describe('slowloris', () => {
  it('closes a connection that keeps trickling header lines with 408 at the headers deadline', async (t) => {
    const server = await build(t, { limits: { headersTimeoutMs: 500, requestTimeoutMs: 5000 } });
    let n = 0;
    const slow = trickle(server.url, 'GET /api/user HTTP/1.1\r\nHost: x\r\n', () => `X-Slow-${++n}: a\r\n`, 100);
    t.after(() => slow.stop());
    const closedAfter = await slow.closedAfterMs;
    assert.match(await slow.answer, /^HTTP\/1\.1 408 /);
    assert.match(await slow.answer, /"code":"request_timeout"/);
    assert.ok(n >= 3, `it trickled (${n} lines) before it was closed`);
    // The deadline plus one check of Node's connection sweep (at most as long as the deadline), and slack for a busy machine.
    assert.ok(closedAfter < 4000, `closed after ${closedAfter} ms`);
  });

  it('closes a connection that keeps trickling its body a byte at a time with 408 at the request deadline', async (t) => {
    const server = await build(t, { limits: { headersTimeoutMs: 500, requestTimeoutMs: 1000 } });
    const head = `PUT /api/user HTTP/1.1\r\nHost: x\r\nAuthorization: Token ${server.api.key}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"user_group_id":"slow","name":"`;
    const slow = trickle(server.url, head, () => 'a', 100);
    t.after(() => slow.stop());
    const closedAfter = await slow.closedAfterMs;
    assert.match(await slow.answer, /^HTTP\/1\.1 408 /);
    assert.ok(closedAfter < 5000, `closed after ${closedAfter} ms`);
  });

  it('serves other clients at once while fifty trickling connections are held open', async (t) => {
    const server = await build(t, { limits: { headersTimeoutMs: 1000, requestTimeoutMs: 5000 } });
    const slow = Array.from({ length: 50 }, (_, i) =>
      trickle(server.url, `GET /api/user HTTP/1.1\r\nHost: x\r\nX-Id: ${i}\r\n`, () => 'X-More: a\r\n', 200),
    );
    t.after(() => slow.forEach((s) => s.stop()));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const started = Date.now();
    const answer = await server.api.getOrCreate({ user_group_id: 'served', name: 'Served' });
    assert.equal(answer.status, 200);
    assert.ok(Date.now() - started < 1500, `served after ${Date.now() - started} ms`);
    assert.equal((await rawRequest(server.url, { method: 'GET', path: '/healthz' })).status, 200);
    const closed = await Promise.all(slow.map((s) => s.answer));
    assert.ok(
      closed.every((text) => text.startsWith('HTTP/1.1 408 ')),
      'every trickling connection ends with 408',
    );
  });
});
