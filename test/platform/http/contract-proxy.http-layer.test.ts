import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { rawRequest, type RawResponse } from '../../helpers/http-client.js';
import { buildForSuite } from '../../helpers/build.js';
import { makeTempDir } from '../../helpers/temp-dir.js';

/** dist/test/http/ → the package root, whose node_modules holds the Prism CLI. */
const PRISM = fileURLToPath(new URL('../../../../node_modules/@stoplight/prism-cli/dist/index.js', import.meta.url));

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Resolves once something accepts connections on the port; Prism takes seconds to read the document and start. */
async function waitForPort(port: number, child: ChildProcess, output: () => string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`Prism exited with ${child.exitCode}:\n${output()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => resolve(true)).on('error', () => resolve(false));
      socket.once('connect', () => socket.destroy());
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`Prism did not listen on ${port} within ${timeoutMs} ms:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * An outside reader of the OpenAPI document: Stoplight Prism as a validating proxy
 * (`prism proxy --errors`) in front of the running service. Prism checks each request
 * and each answer against the document; with --errors, a violation replaces the
 * service's answer by Prism's own `application/problem+json` error. So every answer
 * that comes back as the service gave it is one the document describes truthfully.
 *
 * Not HEAD: Prism's proxy parses every answer typed `application/json` as JSON (prism-http
 * utils/parseResponse.js; only 204 is spared), so HEAD's empty body is a parse error of its own
 * whatever the document says. The contract check of the whole suite (openapi-contract.ts) covers HEAD.
 */
describe('the OpenAPI document, checked by a contract proxy (Stoplight Prism)', { timeout: 180_000 }, () => {
  // Before the server's own teardown, which buildForSuite registers: what uses the server stops first.
  after(async () => {
    if (prism && prism.exitCode === null) {
      const exited = new Promise((resolve) => prism!.once('exit', resolve));
      prism.kill();
      await exited;
    }
    temp.remove();
  });
  const server = buildForSuite({ metricsToken: 'metrics-secret', apiKey: false });
  let prism: ChildProcess | undefined;
  let proxy: string;
  let key: string;
  let readOnlyKey: string;
  let token: string;
  const temp = makeTempDir('ugs-prism');
  let output = '';

  before(async () => {
    const document = join(temp.path, 'openapi.json');
    writeFileSync(document, JSON.stringify(server.app.swagger()));
    const port = await freePort();
    prism = spawn(process.execPath, [PRISM, 'proxy', document, server.url, '--errors', '-p', String(port), '-h', '127.0.0.1'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    prism.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    prism.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    await waitForPort(port, prism, () => output);
    proxy = `http://127.0.0.1:${port}`;
    key = (await server.client()).key!;
    readOnlyKey = (await server.client({ access: 'read-only' })).key!;
    const created = await rawRequest(server.url, {
      method: 'GET',
      path: '/api/user?user_group_id=acme&name=Acme',
      headers: { authorization: `Token ${key}` },
    });
    assert.equal(created.status, 200, created.text);
    token = created.json.user_group.token;
  });

  /** Through Prism; fails on a Prism verdict (its problem+json error or a violations header), else on another status than expected. */
  async function viaPrism(
    method: string,
    path: string,
    status: number,
    options: { key?: string; body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<RawResponse> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.key !== undefined) headers.authorization = `Token ${options.key}`;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const res = await rawRequest(proxy, { method, path, headers, body: options.body });
    const verdict = `${method} ${path}: ${res.status} ${String(res.headers['content-type'])} ${String(res.headers['sl-violations'] ?? '')} ${res.text.slice(0, 600)}`;
    assert.doesNotMatch(String(res.headers['content-type']), /problem\+json/, `Prism refused the exchange: ${verdict}`);
    assert.equal(res.headers['sl-violations'], undefined, `Prism reports violations: ${verdict}`);
    assert.equal(res.status, status, verdict);
    return res;
  }

  it('operations without a key: health, readiness, metrics (Prometheus text, and 401 without its token)', async () => {
    await viaPrism('GET', '/healthz', 200);
    await viaPrism('GET', '/readyz', 200);
    const metrics = await viaPrism('GET', '/metrics', 200, { headers: { authorization: 'Bearer metrics-secret' } });
    assert.match(metrics.text, /^# HELP /m);
    await viaPrism('GET', '/metrics', 401, { headers: { authorization: 'Bearer wrong' } });
  });

  it('GET /api/user (Prism forwards no GET body: the query-string form), and its errors', async () => {
    await viaPrism('GET', '/api/user?user_group_id=acme', 200, { key });
    await viaPrism('GET', '/api/user?user_group_id=beta&name=Beta&properties=%7B%22region%22%3A%22eu%22%7D', 200, { key });
    await viaPrism('GET', '/api/user?user_group_id=gamma&name=Gamma', 403, { key: readOnlyKey });
    await viaPrism('GET', '/api/user?user_group_id=delta', 400, { key });
    await viaPrism('GET', '/api/user?user_group_id=acme', 401, { key: 'ugsk_not_a_real_key' });
  });

  it('PUT, POST and DELETE /api/user, and their errors', async () => {
    await viaPrism('PUT', '/api/user', 200, { key, body: { user_group_id: 'acme', name: 'Acme Inc.', properties: { region: 'us' } } });
    await viaPrism('PUT', '/api/user', 404, { key, body: { user_group_id: 'missing', name: 'Missing' } });
    await viaPrism('PUT', '/api/user', 403, { key: readOnlyKey, body: { user_group_id: 'acme', name: 'Nope' } });
    await viaPrism('POST', '/api/user', 200, { key, body: { current_token: token } });
    await viaPrism('POST', '/api/user', 404, { key, body: { current_token: token } });
    await viaPrism('DELETE', '/api/user', 200, { key, body: { user_group_id: 'beta' } });
    await viaPrism('DELETE', '/api/user', 404, { key, body: { user_group_id: 'beta' } });
  });

  it('listing and reading user groups, and their errors', async () => {
    const page = await viaPrism('GET', '/api/user_groups?limit=1', 200, { key });
    assert.equal(page.json.user_groups.length, 1);
    await viaPrism('GET', '/api/user_groups', 200, { key });
    await viaPrism('GET', '/api/user_groups/acme', 200, { key });
    await viaPrism('GET', '/api/user_groups/missing', 404, { key });
    await viaPrism('GET', '/api/user_groups', 401, { key: 'ugsk_not_a_real_key' });
  });
});
