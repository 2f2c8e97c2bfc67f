import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { build } from '../../../helpers/build.js';
import { rawRequest } from '../../../helpers/http-client.js';

describe('health', () => {
  it('/healthz and /readyz answer 200; /readyz answers 503 once the store is gone', async (t) => {
    const server = await build(t);
    assert.deepEqual((await rawRequest(server.url, { method: 'GET', path: '/healthz' })).json, { success: 1, status: 'ok' });
    assert.deepEqual((await rawRequest(server.url, { method: 'GET', path: '/readyz' })).json, { success: 1, status: 'ready' });
    await server.services.close();
    const down = await rawRequest(server.url, { method: 'GET', path: '/readyz' });
    assert.equal(down.status, 503);
    assert.equal(down.json.error.code, 'unavailable');
    assert.equal((await rawRequest(server.url, { method: 'GET', path: '/healthz' })).status, 200);
  });
});
