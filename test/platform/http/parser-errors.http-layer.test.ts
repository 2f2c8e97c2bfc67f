import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildForSuite } from '../../helpers/build.js';
import { rawExchange } from '../../helpers/http-client.js';

/** The status, headers (lower-cased names) and JSON body of one raw HTTP/1.1 answer. */
function parse(answer: string): {
  status: number;
  headers: Record<string, string>;
  json: { success: number; error: { code: string; message: string; request_id?: string } };
} {
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(
    lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, json: JSON.parse(body) };
}

/**
 * Requests refused before Fastify routes them: by Node's HTTP parser (400), its
 * timeouts (408), the Expect check, an undecodable URL. Each answer still has
 * an X-Request-Id and the JSON envelope.
 */
describe('answers to requests refused before routing', () => {
  const server = buildForSuite({ limits: { headersTimeoutMs: 500, requestTimeoutMs: 1000 } });

  const cases: [title: string, bytes: string, status: number, code: string][] = [
    ['a request line that is not HTTP', 'NOT HTTP AT ALL\r\n\r\n', 400, 'invalid_request'],
    ['a header without a colon', 'GET /healthz HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n', 400, 'invalid_request'],
    ['headers over 16 KiB', `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Pad: ${'a'.repeat(20_000)}\r\n\r\n`, 400, 'invalid_request'],
    ['headers that never end (timeout)', 'GET /healthz HTTP/1.1\r\nHost: x\r\n', 408, 'request_timeout'],
    ['an Expect other than 100-continue', 'GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: x-fuzz\r\n\r\n', 400, 'invalid_request'],
    ['an undecodable URL', 'GET /%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', 400, 'invalid_request'],
  ];
  for (const [title, bytes, status, code] of cases) {
    it(`${title}: ${status} ${code} with an X-Request-Id, in the body too`, async () => {
      const answer = parse(await rawExchange(server.url, bytes));
      assert.equal(answer.status, status);
      assert.equal(answer.json.success, 0);
      assert.equal(answer.json.error.code, code);
      assert.match(answer.headers['x-request-id'] ?? '', /^[0-9a-f-]{36}$/, JSON.stringify(answer.headers));
      assert.equal(answer.json.error.request_id, answer.headers['x-request-id'], 'error.request_id is the X-Request-Id');
    });
  }

  it('gives each such answer its own id, logged with it', async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 3; i++) ids.add(parse(await rawExchange(server.url, 'NOT HTTP\r\n\r\n')).headers['x-request-id'] ?? '');
    assert.equal(ids.size, 3);
    for (const id of ids)
      assert.ok(
        server.logs.some((line) => line.includes(`"reqId":"${id}"`)),
        `no log line for ${id}`,
      );
  });
});
