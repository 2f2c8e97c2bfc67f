import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
// Through the package's own export, as a user imports it.
import { UserGroupClient, UserGroupServiceError } from 'user-group-service/client';
import { buildForSuite } from '../helpers/build.js';

describe('UserGroupClient against a live server', () => {
  const server = buildForSuite();
  let client: UserGroupClient;
  before(() => {
    client = new UserGroupClient({ baseUrl: server.url, apiKey: server.api.key! });
  });

  it('gets or creates (GET with a body on Node), updates, rotates, reads and deletes', async () => {
    const created = await client.getOrCreate({
      user_group_id: 'acme',
      name: 'Acme',
      mapping: { '40': '213' },
      properties: { region: 'eu' },
    });
    assert.equal(created.new_user_group, true);
    assert.equal(created.user_group.provided_id, 'acme');
    const again = await client.getOrCreate({ user_group_id: 'acme' });
    assert.equal(again.new_user_group, false);
    assert.equal(again.user_group.token, created.user_group.token);

    const updated = await client.update({ user_group_id: 'acme', name: 'Acme Inc.', properties: null });
    assert.equal(updated.name, 'Acme Inc.');
    assert.equal(updated.api_environment_tag, 'Customer');

    const rotated = await client.rotateToken(created.user_group.token);
    assert.notEqual(rotated.token, created.user_group.token);

    const read = await client.get('acme');
    assert.equal(read.name, 'Acme Inc.');
    assert.deepEqual(read.mapping, { '40': '213' });

    await client.delete('acme');
    await assert.rejects(
      client.get('acme'),
      (e: unknown) => e instanceof UserGroupServiceError && e.status === 404 && e.code === 'not_found',
    );
  });

  it('places groups under parents, reads lineage, lists children and descendants, and deletes a subtree with cascade', async () => {
    await client.getOrCreate({ user_group_id: 'cl-root', name: 'Root', properties: { region: 'eu' } });
    const child = await client.getOrCreate({ user_group_id: 'cl-child', name: 'Child', parent_user_group_id: 'cl-root' });
    assert.equal(child.user_group.parent_user_group_id, 'cl-root');
    await client.getOrCreate({ user_group_id: 'cl-other', name: 'Other' });
    const moved = await client.update({ user_group_id: 'cl-other', parent_user_group_id: 'cl-child' });
    assert.equal(moved.parent_user_group_id, 'cl-child');
    const read = await client.get('cl-other');
    assert.deepEqual(read.ancestors, ['cl-root', 'cl-child']);
    assert.deepEqual(read.effective_properties, { region: 'eu' });
    const children = [];
    for await (const page of client.list({ parent: 'cl-root' })) children.push(...page.map((g) => g.provided_id));
    assert.deepEqual(children, ['cl-child']);
    const below = [];
    for await (const page of client.descendants('cl-root', { limit: 1 })) below.push(...page.map((g) => g.provided_id));
    assert.deepEqual(below, ['cl-other', 'cl-child']);
    await assert.rejects(
      client.delete('cl-root'),
      (e: unknown) => e instanceof UserGroupServiceError && e.status === 409 && e.code === 'conflict',
    );
    await client.delete('cl-root', { cascade: true });
    await assert.rejects(client.get('cl-other'), (e: unknown) => e instanceof UserGroupServiceError && e.code === 'not_found');
  });

  it('lists every page through an async iterator', async () => {
    for (let i = 0; i < 7; i++) await client.getOrCreate({ user_group_id: `page-${i}`, name: `Page ${i}` });
    const pages = [];
    for await (const page of client.list({ limit: 3, q: 'page-' })) pages.push(page.map((g) => g.provided_id));
    assert.deepEqual(
      pages.map((p) => p.length),
      [3, 3, 1],
    );
    assert.equal(new Set(pages.flat()).size, 7);
  });

  it('throws typed errors carrying status, code and request id', async () => {
    const error = await client.update({ user_group_id: 'missing', name: 'x' }).catch((e: unknown) => e);
    assert.ok(error instanceof UserGroupServiceError);
    assert.equal(error.status, 404);
    assert.equal(error.code, 'not_found');
    assert.ok(error.requestId);
    const needsName = await client.getOrCreate({ user_group_id: 'nameless' }).catch((e: unknown) => e);
    assert.equal((needsName as UserGroupServiceError).code, 'invalid_request');
    const stranger = new UserGroupClient({ baseUrl: server.url, apiKey: 'ugsk_wrong' });
    await assert.rejects(
      stranger.get('x'),
      (e: unknown) => e instanceof UserGroupServiceError && e.status === 401 && e.code === 'unauthenticated',
    );
  });

  it('falls back to the query string where GET bodies cannot be sent (fetch, as in a browser)', async () => {
    const { key } = await server.services.apiKeys.create({ environment: 'Customer', access: 'read-write' });
    const browserLike = new UserGroupClient({ baseUrl: server.url, apiKey: key, transport: 'fetch' });
    const created = await browserLike.getOrCreate({
      user_group_id: 'from-browser',
      name: 'Browser',
      mapping: { '1': 2 },
      properties: { p: true },
    });
    assert.equal(created.new_user_group, true);
    assert.deepEqual(created.user_group.properties, { p: true });
    assert.deepEqual((await browserLike.get('from-browser')).mapping, { '1': 2 });
  });
});

describe('UserGroupClient retries', () => {
  // A scripted server: the only way to make a real one answer 503 twice and then 200 on cue.
  let script: number[] = [];
  let hits = 0;
  let stub: Server;
  let url: string;
  before(async () => {
    stub = createServer((req, res) => {
      req.resume();
      const status = script[hits++] ?? 200;
      res.writeHead(status, { 'content-type': 'application/json', ...(status === 429 && { 'retry-after': '0' }) });
      res.end(
        status === 200
          ? '{"success":1,"user_group":{"team_id":1,"provided_id":"x","name":"X","properties":null,"mapping":null,"api_environment_tag":"Customer","created_at":"t","updated_at":"t"}}'
          : `{"success":0,"error":{"code":"${status === 429 ? 'rate_limited' : status === 503 ? 'unavailable' : 'invalid_request'}","message":"m","request_id":"req-${hits}"}}`,
      );
    });
    await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(stub.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => stub.close(() => resolve())));
  const client = () => new UserGroupClient({ baseUrl: url, apiKey: 'k', baseDelayMs: 1, maxDelayMs: 5 });

  it('retries 429 and 503 with backoff, then succeeds', async () => {
    script = [503, 429, 503];
    hits = 0;
    assert.equal((await client().get('x')).provided_id, 'x');
    assert.equal(hits, 4);
  });

  it('gives up after the configured retries with the last error', async () => {
    script = [503, 503, 503, 503, 503];
    hits = 0;
    await assert.rejects(client().get('x'), (e: unknown) => e instanceof UserGroupServiceError && e.code === 'unavailable');
    assert.equal(hits, 4, 'one call and three retries');
  });

  it('never retries other 4xx answers', async () => {
    script = [400];
    hits = 0;
    await assert.rejects(client().get('x'), (e: unknown) => e instanceof UserGroupServiceError && e.status === 400);
    assert.equal(hits, 1);
  });

  it('takes the request id from the error body when no X-Request-Id header came through (a proxy dropped it)', async () => {
    script = [400];
    hits = 0;
    await assert.rejects(client().get('x'), (e: unknown) => e instanceof UserGroupServiceError && e.requestId === 'req-1');
  });
});
