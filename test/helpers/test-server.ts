import { Writable } from 'node:stream';
import type { Access } from '../../src/api-keys/api-key.js';
import { defaultConfig, type EmbedConfig, type HttpLimits, type WebhookConfig } from '../../src/platform/config.js';
import type { Environment } from '../../src/kernel/environment.js';
import { createLogger } from '../../src/platform/http/logger.js';
import type { TypedApp } from '../../src/platform/http/typed-app.js';
import { startServing } from '../../src/platform/serving.js';
import { openCore, type Core } from '../../src/platform/services.js';
import { ApiClient } from './http-client.js';
import { createTestDatabase, testStoreKind, type TestDatabase } from './postgres.js';
import { makeTempDir } from './temp-dir.js';

export interface TestServer {
  url: string;
  dataDir: string;
  services: Core;
  app: TypedApp;
  /** Every log line the server wrote, as text. */
  logs: string[];
  /** A new API key and a client that uses it. */
  client(options?: { environment?: Environment; access?: Access }): Promise<ApiClient & { keyId: string }>;
  close(): Promise<void>;
}

/**
 * The real application on a real socket (127.0.0.1, random port) over a real
 * store: a SQLite file in a temp dir, or a fresh PostgreSQL database when
 * UGS_TEST_STORE=postgres. Pass `dataDir` (and `postgres`) to reopen a store.
 */
export interface TestServerOptions {
  dataDir?: string;
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
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
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
    async close() {
      await serving.close();
      await services.close();
      // A database handed in belongs to the caller (e.g. a restart test reopening it).
      if (database && !options.postgres) await database.drop();
      temp?.remove();
    },
  };
}
