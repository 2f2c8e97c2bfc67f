import assert from 'node:assert/strict';
import { after, afterEach } from 'node:test';
import { createDataRouter, createEmbedVerifier, type DataRouter, type DataRouterOptions, type EmbedClaims } from 'user-group-service/embed';
import type { Environment } from '../../src/kernel/environment.js';
import type { TestApp } from '../helpers/build.js';
import type { DataSourceConnection } from './tenant-databases.js';

/**
 * What the router's tests do on the service: data sources written with a read-write key (POST, PUT, DELETE
 * /api/data_sources), read by the router with a `dashboard` key; groups with a mapping, and their sessions'
 * claims as a dashboard gets them (minted by POST /api/embed_sessions, verified by createEmbedVerifier).
 */
export interface RouterFixture {
  readonly service: TestApp;
  /** An API key with the dashboard access, of `environment`. */
  dashboardKey(environment?: Environment): Promise<string>;
  createDataSource(id: string, connection: DataSourceConnection, environment?: Environment): Promise<void>;
  /** A new connection for the data source (its version moves on). */
  updateDataSource(id: string, connection: Partial<DataSourceConnection>): Promise<void>;
  /** Deleted even while a group maps to it (`?force=true`). */
  deleteDataSource(id: string): Promise<void>;
  /** A group with this mapping (get-or-create, then the mapping set; null: none of its own), under `parent` when given. */
  group(
    id: string,
    mapping: Record<string, string | number> | null,
    options?: { parent?: string; environment?: Environment },
  ): Promise<void>;
  /** The verified claims of a new session of `group`, its descendants included. */
  claims(group: string, environment?: Environment): Promise<EmbedClaims>;
  /** A router of the service, closed after the test; `options` over serviceUrl and a dashboard key of its environment. */
  router(options?: Partial<DataRouterOptions>): Promise<DataRouter>;
}

/** Call in a describe body after buildForSuite: the routers and verifiers it makes are closed before the service is. */
export function routerFixture(service: TestApp): RouterFixture {
  const routers: DataRouter[] = [];
  const verifiers = new Map<Environment, ReturnType<typeof createEmbedVerifier>>();
  const writers = new Map<Environment, Awaited<ReturnType<TestApp['client']>>>();
  const dashboardKeys = new Map<Environment, string>();
  // Each test's routers go with it: the next test counts the connections of its own.
  afterEach(async () => {
    for (const router of routers.splice(0)) await router.close();
  });
  after(async () => {
    for (const verifier of verifiers.values()) await verifier.close();
  });
  async function writer(environment: Environment = 'Customer') {
    if (environment === 'Customer') return service.api;
    if (!writers.has(environment)) writers.set(environment, await service.client({ environment }));
    return writers.get(environment)!;
  }
  async function call(method: string, path: string, body: unknown, expected: number[], environment?: Environment): Promise<void> {
    const res = await (await writer(environment)).call(method, body, { path });
    assert.ok(expected.includes(res.status), `${method} ${path}: HTTP ${res.status} ${res.text}`);
  }
  const fixture: RouterFixture = {
    service,
    async dashboardKey(environment = 'Customer') {
      if (!dashboardKeys.has(environment)) {
        const { key } = await service.services.apiKeys.create({ environment, access: 'dashboard' });
        dashboardKeys.set(environment, key);
      }
      return dashboardKeys.get(environment)!;
    },
    createDataSource: (id, connection, environment) =>
      call('POST', '/api/data_sources', { id, name: `Data source ${id}`, kind: 'postgresql', connection }, [201], environment),
    updateDataSource: (id, connection) => call('PUT', `/api/data_sources/${encodeURIComponent(id)}`, { connection }, [200]),
    deleteDataSource: (id) => call('DELETE', `/api/data_sources/${encodeURIComponent(id)}?force=true`, undefined, [200, 204]),
    async group(id, mapping, { parent, environment } = {}) {
      const client = await writer(environment);
      const body = { user_group_id: id, name: `Group ${id}`, ...(parent && { parent_user_group_id: parent }) };
      const created = await client.getOrCreate(body);
      assert.ok([200, 201].includes(created.status), created.text);
      if (mapping === null) return;
      const updated = await client.update({ user_group_id: id, mapping });
      assert.equal(updated.status, 200, updated.text);
    },
    async claims(group, environment = 'Customer') {
      if (!verifiers.has(environment)) verifiers.set(environment, createEmbedVerifier({ serviceUrl: service.url, environment }));
      // With its descendants (claim desc): the shared database's subtree policy reads them.
      const res = await (
        await writer(environment)
      ).call('POST', { user_group_id: group, include_descendants: true }, { path: '/api/embed_sessions' });
      assert.equal(res.status, 201, res.text);
      return verifiers.get(environment)!.verify(res.json.embed_session.token as string);
    },
    async router(options = {}) {
      const router = createDataRouter({ serviceUrl: service.url, apiKey: await fixture.dashboardKey(options.environment), ...options });
      routers.push(router);
      return router;
    },
  };
  return fixture;
}
