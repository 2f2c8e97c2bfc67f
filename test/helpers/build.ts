import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before } from 'node:test';
import type { Access } from '../../src/api-keys/api-key.js';
import type { Environment } from '../../src/kernel/environment.js';
import { defaultConfig, type EmbedConfig, type HttpLimits, type WebhookConfig } from '../../src/platform/config.js';
import { createLogger } from '../../src/platform/http/logger.js';
import type { TypedApp } from '../../src/platform/http/typed-app.js';
import { startServing } from '../../src/app/serving.js';
import { openCore, type Core } from '../../src/app/core.js';
import { ApiClient } from './http-client.js';
import { createTestDatabase, testStoreKind, type TestDatabase } from './postgres.js';
import { makeTempDir } from './temp-dir.js';

/**
 * The one way tests start the app: the real application on a real socket (127.0.0.1, random port) over a
 * real store (a SQLite file in a temp dir, or a fresh PostgreSQL database when UGS_TEST_STORE=postgres), torn
 * down with the test that built it, as fastify/demo's `build(t)` does: a test file states only what it
 * checks. `build(t)` serves one test; `buildForSuite()` one describe.
 */

/** A client with an API key of its own (`keyId` for revoking it or finding it in the audit log). */
export type TestClient = ApiClient & { keyId: string };

export interface ClientSpec {
  environment?: Environment;
  access?: Access;
}

/** A folder and how to dispose of it, as makeTempDir() and mountTmpfs() return them. */
export interface OwnedDir {
  path: string;
  remove(): void;
}

export interface BuildOptions<K extends string = never> {
  /**
   * The store's folder: a path the caller keeps (to reopen a store), or a folder the test made (a tmpfs...)
   * that goes once the server is closed. Else a temp dir of its own.
   */
  dataDir?: string | OwnedDir;
  /** More keys issued at start, by name: `{ testing: { environment: 'Testing' } }` gives `clients.testing`. */
  clients?: Record<K, ClientSpec>;
  /** `false`: no key issued at start (a test that counts keys, or makes its own): reading `api` then throws. */
  apiKey?: false;
  secret?: string;
  /** Reopen this database (implies PostgreSQL); the caller drops it. */
  postgres?: TestDatabase;
  /** Overrides UGS_TEST_STORE for tests about one store in particular. */
  kind?: 'sqlite' | 'postgres';
  previousSecret?: string;
  secretPollMs?: number;
  /** Overrides of the documented defaults. */
  limits?: Partial<HttpLimits>;
  /** UGS_METRICS_TOKEN: GET /metrics then needs it as a Bearer token. */
  metricsToken?: string;
  /** UGS_KEY_CACHE_TTL_MS; tests default to 0 (every request asks the store), the service to 1000. */
  keyCacheTtlMs?: number;
  /** UGS_TRUST_PROXY, parsed: e.g. ['127.0.0.1'] to believe the X-Forwarded-For the tests send. */
  trustedProxies?: string[];
  /** UGS_EMBED_* settings (issuer, audience, algorithm, JWKS max-age) over their defaults. */
  embed?: Partial<EmbedConfig>;
  /** UGS_WEBHOOK_* settings over their defaults (e.g. allowPrivateTargets for receivers on 127.0.0.1). */
  webhooks?: Partial<WebhookConfig>;
  /** The server's clock (epoch milliseconds): skewed, it plays a replica on a machine whose clock is off. */
  now?: () => number;
  /** UGS_MAPPING_UNRESOLVED=reject. */
  rejectUnresolvedMapping?: boolean;
  /** UGS_CUSTOMER_HIERARCHY_LEVELS, parsed (top first). */
  hierarchyLevels?: string[];
}

export interface TestApp<K extends string = never> {
  url: string;
  dataDir: string;
  services: Core;
  app: TypedApp;
  /** Every log line the server wrote, as text. */
  logs: string[];
  /** A Customer read-write key, issued at start (unless `apiKey: false`). */
  api: TestClient;
  /** The keys asked for in `options.clients`. */
  clients: Record<K, TestClient>;
  /** A new API key and a client that uses it. */
  client(spec?: ClientSpec): Promise<TestClient>;
  /** Closes it before the test ends (a restart, a store reopened); the teardown then has nothing left to do. */
  close(): Promise<void>;
}

/** What `build` needs of a test: node:test's TestContext has it (`t.after` runs once the test is done, pass or fail). */
export interface Teardown {
  after(fn: () => Promise<void>): void;
}

/** Starts a server for one test and closes it (and removes its temp store) when the test ends. */
export async function build<K extends string = never>(t: Teardown, options: BuildOptions<K> = {}): Promise<TestApp<K>> {
  const { dataDir } = options;
  const starting = startServer({ ...options, dataDir: typeof dataDir === 'object' ? dataDir.path : dataDir });
  // Registered before anything can fail, so what was made goes with the test whatever happens next.
  t.after(async () => {
    await (await starting.catch(() => undefined))?.close();
    if (typeof dataDir === 'object') dataDir.remove();
  });
  const server = await starting;
  const clients = {} as Record<K, TestClient>;
  const api = options.apiKey === false ? undefined : await server.client();
  for (const [name, spec] of Object.entries(options.clients ?? {}) as [K, ClientSpec][]) clients[name] = await server.client(spec);
  return Object.defineProperty({ ...server, clients } as TestApp<K>, 'api', {
    enumerable: true,
    get: () => api ?? assert.fail('built with apiKey: false: no key was issued at start'),
  });
}

/**
 * One server for every test of the enclosing describe: call it in the describe
 * body. It registers the suite's before hook that starts the server and its
 * after hook that closes it. The returned object is filled in by that before
 * hook, so read it in tests and later hooks, not in the describe body; a
 * `before` registered after this call runs once the server is up, an `after`
 * registered before it runs before the server closes.
 */
export function buildForSuite<K extends string = never>(options: BuildOptions<K> = {}): TestApp<K> {
  const shared = {} as TestApp<K>;
  const teardown = suiteTeardown();
  before(async () => {
    Object.defineProperties(shared, Object.getOwnPropertyDescriptors(await build(teardown, options)));
  });
  return shared;
}

/**
 * What `build` needs of a test, for a describe (node:test's suite context has no `after` of its own): call it in
 * the describe body; what is handed to it runs in the suite's after hook, for a `before` that calls `build` itself.
 */
export function suiteTeardown(): Teardown {
  const teardown: (() => Promise<void>)[] = [];
  after(async () => {
    for (const fn of teardown) await fn();
  });
  return { after: (fn) => void teardown.push(fn) };
}

type StartOptions = Omit<BuildOptions<string>, 'dataDir' | 'clients' | 'apiKey'> & { dataDir?: string };

async function startServer(options: StartOptions): Promise<Omit<TestApp<never>, 'api' | 'clients'>> {
  const temp = options.dataDir ? undefined : makeTempDir();
  const dataDir = options.dataDir ?? temp!.path;
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(chunk.toString('utf8'));
      done();
    },
  });
  const kind = options.postgres ? 'postgres' : (options.kind ?? testStoreKind());
  const database = kind === 'postgres' ? (options.postgres ?? (await createTestDatabase({ migrated: true }))) : undefined;
  const logger = createLogger('info', sink);
  const defaults = defaultConfig();
  const services = await openCore({
    storeLog: logger,
    dataDir,
    secret: options.secret,
    previousSecret: options.previousSecret,
    postgres: database?.config,
    keyCacheTtlMs: options.keyCacheTtlMs ?? 0,
    embed: { ...defaults.embed, ...options.embed },
    webhooks: { ...defaults.webhooks, ...options.webhooks },
    rejectUnresolvedMapping: options.rejectUnresolvedMapping,
    ...(options.hierarchyLevels === undefined ? {} : { hierarchyLevels: options.hierarchyLevels }),
    now: options.now,
  });
  const serving = await startServing(services, {
    logger,
    port: 0,
    host: '127.0.0.1',
    http: { ...defaults.http, ...options.limits },
    metricsToken: options.metricsToken,
    trustedProxies: options.trustedProxies ?? [],
    shutdownTimeoutMs: defaults.shutdownTimeoutMs,
    secretPollMs: options.secretPollMs,
    // Tests that deliver start their own worker, with a fast poll or a clock of their own.
    deliverWebhooks: false,
  }).catch(async (error: unknown) => {
    await services.close();
    throw error;
  });
  const { app, url } = serving;
  let closing: Promise<void> | undefined;
  return {
    url,
    dataDir,
    services,
    app,
    logs,
    async client({ environment = 'Customer', access = 'read-write' } = {}) {
      const { record, key } = await services.apiKeys.create({ environment, access });
      return Object.assign(new ApiClient(url, key), { keyId: record.id });
    },
    close() {
      closing ??= (async () => {
        await serving.close();
        await services.close();
        // A database handed in belongs to the caller (e.g. a restart test reopening it).
        if (database && !options.postgres) await database.drop();
        temp?.remove();
      })();
      return closing;
    },
  };
}
