import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { describe, it } from 'node:test';
import { buildForSuite } from '../../helpers/build.js';
import { rawRequest } from '../../helpers/http-client.js';
import { assertError } from './assert-error.js';

/** Requests the property-based fuzzer found answered wrongly once; each stays answered right. */
describe('fuzzer findings', () => {
  const server = buildForSuite();

  it('an Expect other than 100-continue gets the JSON envelope, not a bare 417', async () => {
    const res = await rawRequest(server.url, { method: 'GET', path: '/healthz', headers: { expect: 'x-fuzz' } });
    assertError(res, 400, 'invalid_request');
    assert.ok(res.headers['x-request-id']);
  });

  it('an undecodable URL with a body the parser then rejects gets exactly one answer', async () => {
    const { hostname, port } = new URL(server.url);
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), hostname, () =>
        socket.write('GET /%zz HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: identity\r\n\r\n'),
      );
      let data = '';
      socket.on('data', (chunk) => (data += chunk));
      socket.on('close', () => resolve(data));
      socket.on('error', reject);
    });
    assert.equal(raw.match(/HTTP\/1\.1 /g)?.length, 1, raw);
    assert.match(raw, /"code":"invalid_request"/);
  });

  it('a control character in the list filter is a 400 on every store (PostgreSQL refuses NUL in text)', async () => {
    const { api } = server;
    const res = await api.call('GET', undefined, { path: '/api/user_groups?q=%00' });
    assertError(res, 400, 'invalid_request');
  });
});
