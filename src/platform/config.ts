import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { join, resolve } from 'node:path';
import { packageRoot } from './package-root.js';
import { parseTrustedProxies } from './trusted-proxy-ranges.js';
import { StartupError } from '../kernel/errors.js';
import { maskDatabaseUrl } from '../secrets/secret-redaction.js';
import { SIGNING_ALGORITHMS, type SigningAlgorithm } from '../kernel/embed-tokens.js';

/** How often a serving process writes its counted session activity, unless configured (UGS_ACTIVITY_FLUSH_MS). */
export const DEFAULT_ACTIVITY_FLUSH_MS = 5000;

/** The Standard Webhooks retry schedule, in seconds: at once, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
const DEFAULT_RETRY_SCHEDULE = '0,5,300,1800,7200,18000,36000,36000';

/**
 * Every setting, read from the environment once and validated at start. A bad
 * value is one clear line naming the variable, never a stack trace.
 */
const ConfigSchema = Type.Object({
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8080, description: 'TCP port to listen on.' }),
  HOST: Type.String({ minLength: 1, default: '127.0.0.1', description: 'Interface to bind; set `0.0.0.0` in a container.' }),
  UGS_DATA_DIR: Type.Optional(
    Type.String({
      minLength: 1,
      description:
        "Folder of the SQLite file (`user-groups.sqlite`), its store id (`user-groups.store-id`) and the generated server secret (with `DATABASE_URL`, the secret alone); keep all three in backups. Made (0700) where missing when a store or a generated secret is written to it. A relative path is taken from the working directory. Unset: `data` in the folder of the service's package.json (in a clone, the clone's `data`), from whichever directory `ugs` or `npm start` runs, so the CLI and the server always find the same store.",
    }),
  ),
  LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((level) => Type.Literal(level)),
    { default: 'info', description: 'pino log level: `fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`.' },
  ),
  UGS_SECRET: Type.Optional(
    Type.String({
      minLength: 32,
      description: 'Server secret, at least 32 characters (e.g. `openssl rand -hex 32`); unset: generated into the data dir.',
    }),
  ),
  UGS_PREVIOUS_SECRET: Type.Optional(
    Type.String({
      minLength: 32,
      description: 'The secret `UGS_SECRET` replaces, readable while `ugs secret rotate` re-encrypts every token (see docs/security.md).',
    }),
  ),
  UGS_WORKERS: Type.Integer({
    minimum: 1,
    maximum: 256,
    default: 1,
    description:
      'HTTP worker processes sharing the port (node:cluster); set it to the number of cores to use them all (see docs/operations.md, One process per core).',
  }),
  UGS_SHUTDOWN_TIMEOUT_MS: Type.Integer({ minimum: 100, default: 10_000, description: 'How long shutdown waits for in-flight requests.' }),
  UGS_ACTIVITY_FLUSH_MS: Type.Integer({
    minimum: 100,
    maximum: 60_000,
    default: DEFAULT_ACTIVITY_FLUSH_MS,
    description:
      'How often each process writes the embed sessions it counted (one write per interval, not one per mint; also at shutdown). A crash loses at most this long of counts, never a revocation.',
  }),
  UGS_KEY_CACHE_TTL_MS: Type.Integer({
    minimum: 0,
    default: 1000,
    description:
      "How long a verified API key may be reused without a store lookup. A revocation anywhere ends the reuse at once (see docs/operations.md, Revoking a key); this bounds it only if PostgreSQL's revocation notifications silently stop arriving. `0` = look up every request.",
  }),
  UGS_RATE_LIMIT_PER_KEY_PER_MINUTE: Type.Integer({
    minimum: 0,
    default: 0,
    description: 'Requests per API key per minute, per process; over it: 429 `rate_limited` with `Retry-After`. `0` = no limit.',
  }),
  UGS_AUTH_FAILURES_PER_MINUTE: Type.Integer({
    minimum: 0,
    default: 100,
    description:
      "Failed authentications per client address per minute; past it, that address's further failures get 429 `rate_limited` until the minute ends, while a valid key from it is always served. `0` = off.",
  }),
  UGS_TRUST_PROXY: Type.Optional(
    Type.String({
      description:
        'Proxies in front of the service whose `X-Forwarded-For` is believed: comma-separated addresses, CIDRs (`10.0.0.0/8`, `2001:db8::/32`) or `loopback`, `linklocal`, `uniquelocal`. Behind them the client is the address they forward for, in the failed-auth throttle, the log lines and the audit log. `true` and hop counts are refused: they would believe whatever connects, so a client could forge its address. Unset: the connecting address is the client.',
    }),
  ),
  UGS_MAX_CONNECTIONS: Type.Integer({
    minimum: 1,
    default: 10_000,
    description: 'Open connections at most, per process; more are closed at once.',
  }),
  UGS_MAX_CONNECTIONS_PER_ADDRESS: Type.Integer({
    minimum: 1,
    default: 100,
    description:
      'Open connections from one client address at most, per process; more from it are closed at once, other addresses unaffected. Trusted proxies (`UGS_TRUST_PROXY`) are exempt.',
  }),
  UGS_HEADERS_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    default: 10_000,
    description: 'Time to receive the request headers; after it: 408 `request_timeout`.',
  }),
  UGS_REQUEST_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    default: 30_000,
    description: 'Time to receive the whole request, body included; after it: 408 `request_timeout`.',
  }),
  UGS_KEEP_ALIVE_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    default: 10_000,
    description:
      "Idle time before a kept-alive connection is closed; behind a load balancer, set it above the balancer's idle timeout (AWS ALB: 60 s, so e.g. `65000`).",
  }),
  DATABASE_URL: Type.Optional(
    Type.String({
      pattern: '^postgres(ql)?://',
      description:
        'PostgreSQL connection URL (`postgres://user:pass@host:5432/db`): use PostgreSQL instead of SQLite (see docs/scaling.md); unset: SQLite in `UGS_DATA_DIR`.',
    }),
  ),
  UGS_PG_POOL_SIZE: Type.Integer({ minimum: 1, maximum: 1000, default: 10, description: 'PostgreSQL connections per process.' }),
  UGS_PG_STATEMENT_TIMEOUT_MS: Type.Integer({ minimum: 100, default: 5000, description: 'PostgreSQL `statement_timeout`.' }),
  UGS_PG_CONNECT_TIMEOUT_MS: Type.Integer({ minimum: 100, default: 5000, description: 'How long to wait for a PostgreSQL connection.' }),
  UGS_EMBED_ISSUER: Type.String({
    minLength: 1,
    default: 'user-group-service',
    description: 'The `iss` claim of Customer embed tokens; verifiers check it.',
  }),
  UGS_EMBED_AUDIENCE: Type.String({
    minLength: 1,
    default: 'embedded-dashboards',
    description: 'The `aud` claim of Customer embed tokens; verifiers check it.',
  }),
  UGS_EMBED_TESTING_ISSUER: Type.String({
    minLength: 1,
    default: 'user-group-service-testing',
    description:
      "The `iss` claim of Testing embed tokens (signed with Testing's own keys, published at `/.well-known/jwks-testing.json`); must differ from `UGS_EMBED_ISSUER`.",
  }),
  UGS_EMBED_TESTING_AUDIENCE: Type.String({
    minLength: 1,
    default: 'embedded-dashboards-testing',
    description: 'The `aud` claim of Testing embed tokens; must differ from `UGS_EMBED_AUDIENCE`.',
  }),
  UGS_EMBED_ALGORITHM: Type.Union(
    SIGNING_ALGORITHMS.map((algorithm) => Type.Literal(algorithm)),
    {
      default: 'ES256',
      description:
        "Algorithm of new embed signing keys: `ES256` (P-256, the default because every common JWT library reads it), `EdDSA` (Ed25519: signs faster, with tokens of the same size; read by jose, fast-jwt and PyJWT, not by `jsonwebtoken` with `jwk-to-pem`, Cube's pair) or `RS256`; takes effect at the first start and at the next `ugs signing-keys rotate`: keys already made keep theirs, and the server warns at start while an environment's active key is of another algorithm.",
    },
  ),
  UGS_EMBED_JWKS_MAX_AGE_SECONDS: Type.Integer({
    minimum: 60,
    maximum: 86_400,
    default: 300,
    description:
      'How long verifiers may cache `/.well-known/jwks.json` and `/.well-known/jwks-testing.json` (their `Cache-Control: max-age`); a rotated-in signing key waits this long before it signs.',
  }),
  UGS_CLOCK_OFFSET_MAX_MS: Type.Integer({
    minimum: 100,
    maximum: 60_000,
    default: 2500,
    description:
      "How far a process's clock may be from PostgreSQL's while it mints and renews embed sessions (measured every 5 s); beyond it the process answers 503 to both and `/readyz` fails. So replicas that serve sessions differ by at most twice this (5 s by default), and a viewer's revocation ends every session any replica minted before it was answered. Not read on SQLite (one machine, one clock).",
  }),
  UGS_CUSTOMER_HIERARCHY_LEVELS: Type.String({
    pattern: '^[^,]+(,[^,]+){0,4}$',
    default: 'Customer,User',
    description:
      "The Customer API's hierarchy levels (`hierarchy_level_name`), top first, comma-separated, 1 to 5 distinct names: a customer's parent must be at a higher level. The default is Explo's two levels.",
  }),
  UGS_EVENT_RETENTION_DAYS: Type.Integer({
    minimum: 1,
    maximum: 3650,
    default: 30,
    description: 'How many days events stay readable through `GET /api/events`; older ones are left out and deleted a few at a time.',
  }),
  UGS_USAGE_RETENTION_DAYS: Type.Integer({
    minimum: 1,
    maximum: 3650,
    default: 90,
    description:
      'How many days of usage counts (sessions minted and renewed, distinct viewers, per group and hour) are kept; older ones are removed a bounded batch at a time by the activity flushes.',
  }),
  UGS_WEBHOOK_TIMEOUT_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 300,
    default: 15,
    description:
      'How long one webhook delivery attempt may take, from connecting to the end of the answer; past it the attempt fails (`timeout`) and is retried.',
  }),
  UGS_WEBHOOK_RETRY_SCHEDULE_SECONDS: Type.String({
    pattern: '^\\s*\\d+(\\s*,\\s*\\d+)*\\s*$',
    default: DEFAULT_RETRY_SCHEDULE,
    description:
      'Delays before each webhook delivery attempt, in seconds, comma-separated: the n-th is waited after attempt n-1 failed (the first counts from the event), with ±10 % jitter on non-zero delays; after the last attempt fails the delivery is `failed`. The default is the Standard Webhooks schedule (at once, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h).',
  }),
  UGS_WEBHOOK_DISABLE_AFTER_HOURS: Type.Integer({
    minimum: 1,
    maximum: 8760,
    default: 120,
    description:
      'A webhook whose attempts have all failed for this many hours (since the first failure after a success) is disabled, its pending deliveries marked failed, and a `webhook.disabled` event written.',
  }),
  UGS_WEBHOOK_POLL_MS: Type.Integer({
    minimum: 10,
    maximum: 60_000,
    default: 1000,
    description:
      'How often each serving process looks for new events to fan out and for deliveries due, when the last look found nothing to do.',
  }),
  UGS_WEBHOOK_ALLOW_PRIVATE_TARGETS: Type.Union([Type.Literal('true'), Type.Literal('false')], {
    default: 'false',
    description:
      "`true` lets webhooks target every address that is not global unicast (loopback, private, link-local, 100.64/10, fc00::/7, documentation, NAT64 or 6to4 forms of those …) and this host's own interface and gateway addresses, over http or https; `false` refuses them, at registration and at each delivery (names are resolved and every address checked), and requires https. docs/webhooks.md lists every range.",
  }),
  UGS_MAPPING_UNRESOLVED: Type.Union([Type.Literal('accept'), Type.Literal('reject')], {
    default: 'accept',
    description:
      "What a group's create or update does with a `mapping` value that names no data source of the key's environment: `accept` stores it as the interface always has (the group's views flag it as unresolved); `reject` answers 400 naming the schema and the value.",
  }),
  UGS_METRICS_TOKEN: Type.Optional(
    Type.String({
      minLength: 16,
      description: 'At least 16 characters; when set, `GET /metrics` needs `Authorization: Bearer <token>`; unset: open.',
    }),
  ),
});

/**
 * Where the store lives when UGS_DATA_DIR is unset: beside the package, not
 * in the working directory, so a command run from another folder finds the
 * server's store instead of quietly making a second one.
 */
export function defaultDataDir(): string {
  return join(packageRoot(), 'data');
}

/** Defaults that depend on where the service is installed: `ugs config` shows them, docs/settings.md's table describes them. */
const COMPUTED_DEFAULTS: Record<string, () => string> = { UGS_DATA_DIR: defaultDataDir };

/** The default a setting's documentation names: its schema's, or unset for the computed ones (their description says what). */
export function documentedDefault(name: string): string | number | undefined {
  return (ConfigSchema.properties as Record<string, { default?: string | number }>)[name]?.default;
}

/** Settings never shown: not in error messages, masked by `ugs config`. */
const SECRET_SETTINGS = ['UGS_SECRET', 'UGS_PREVIOUS_SECRET', 'UGS_METRICS_TOKEN'];

type RawConfig = Static<typeof ConfigSchema>;

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  logLevel: RawConfig['LOG_LEVEL'];
  secret: string | undefined;
  previousSecret: string | undefined;
  keyCacheTtlMs: number;
  /** UGS_ACTIVITY_FLUSH_MS. */
  activityFlushMs: number;
  shutdownTimeoutMs: number;
  /** UGS_WORKERS: processes serving HTTP; more than 1 runs a primary that supervises them. */
  workers: number;
  http: HttpLimits;
  /** UGS_TRUST_PROXY, parsed: the trusted proxies' addresses, CIDRs and range names; empty when none. */
  trustedProxies: string[];
  /** UGS_METRICS_TOKEN: the Bearer token GET /metrics requires; open when undefined. */
  metricsToken: string | undefined;
  /** PostgreSQL settings when DATABASE_URL is set; the embedded SQLite store otherwise. */
  postgres: PostgresConfig | undefined;
  embed: EmbedConfig;
  /** UGS_CUSTOMER_HIERARCHY_LEVELS: the Customer API's level names, top first. */
  hierarchyLevels: readonly string[];
  /** UGS_EVENT_RETENTION_DAYS: how long events are kept. */
  eventRetentionDays: number;
  /** UGS_MAPPING_UNRESOLVED=reject: a mapping value naming no data source of the environment is a 400. */
  rejectUnresolvedMapping: boolean;
  /** UGS_USAGE_RETENTION_DAYS: how long usage counts are kept. */
  usageRetentionDays: number;
  webhooks: WebhookConfig;
}

/** Protections against slow and abusive clients; every field has a documented default (docs/settings.md). */
export interface HttpLimits {
  /** Requests per API key per minute on /api routes; 0 turns the limit off (the default). */
  requestsPerKeyPerMinute: number;
  /** Failed authentications per client address per minute; past it, further failures from that address get 429 for the rest of the minute
   * (valid keys never do); 0 = off. */
  authFailuresPerMinute: number;
  /** Open connections at most; more are closed at once. */
  maxConnections: number;
  /**
   * Open connections from one client address at most; more from that address
   * are closed at once, other addresses unaffected. Trusted proxies
   * (UGS_TRUST_PROXY) are exempt: they carry many clients.
   */
  maxConnectionsPerAddress: number;
  /** Time to receive all request headers. */
  headersTimeoutMs: number;
  /** Time to receive the whole request, body included. */
  requestTimeoutMs: number;
  /**
   * How long an idle kept-alive connection stays open. Short, so idle
   * connections do not pile up; behind a load balancer it must exceed the
   * balancer's own idle timeout (AWS ALB: 60 s), or the balancer may reuse a
   * connection the service is closing.
   */
  keepAliveTimeoutMs: number;
}

export interface WebhookConfig {
  timeoutMs: number;
  /** Delay before each attempt, in ms; its length is the number of attempts. */
  retryScheduleMs: number[];
  disableAfterMs: number;
  pollMs: number;
  allowPrivateTargets: boolean;
}

export interface EmbedConfig {
  /** Customer's `iss` and `aud`. */
  issuer: string;
  audience: string;
  /** Testing's: never equal to Customer's, so neither environment's tokens pass the other's checks. */
  testingIssuer: string;
  testingAudience: string;
  algorithm: SigningAlgorithm;
  jwksMaxAgeSeconds: number;
  /** UGS_CLOCK_OFFSET_MAX_MS. */
  clockOffsetMaxMs: number;
}

export interface PostgresConfig {
  url: string;
  poolSize: number;
  statementTimeoutMs: number;
  connectTimeoutMs: number;
}

/** A setting that cannot be used: one line naming it, as every StartupError. */
export class ConfigError extends StartupError {
  override name = 'ConfigError';

  constructor(
    message: string,
    /** The setting at fault and what is wrong with its value, for callers that took it from elsewhere (a command-line flag). */
    readonly problem?: { setting: string; reason: string },
  ) {
    super(message);
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const known = Object.fromEntries(
    Object.keys(ConfigSchema.properties)
      .filter((name) => env[name] !== undefined && env[name] !== '')
      .map((name) => [name, env[name]]),
  );
  if (known.UGS_PREVIOUS_SECRET !== undefined && known.UGS_SECRET === undefined) {
    throw new ConfigError('UGS_PREVIOUS_SECRET is set without UGS_SECRET: set UGS_SECRET to the new secret too.');
  }
  const raw = Value.Convert(ConfigSchema, Value.Default(ConfigSchema, known));
  const error = Value.Errors(ConfigSchema, raw).First();
  if (error) {
    const name = error.path.replace(/^\//, '');
    const shown = [...SECRET_SETTINGS, 'DATABASE_URL'].includes(name) ? '(hidden)' : JSON.stringify(env[name]);
    const reason = `${error.message}. ${describeSetting(name)}`;
    throw new ConfigError(`Invalid ${name}=${shown}: ${reason}`, { setting: name, reason });
  }
  const config = raw as RawConfig;
  for (const [testing, customer] of [
    ['UGS_EMBED_TESTING_ISSUER', 'UGS_EMBED_ISSUER'],
    ['UGS_EMBED_TESTING_AUDIENCE', 'UGS_EMBED_AUDIENCE'],
  ] as const) {
    if (config[testing] === config[customer]) {
      throw new ConfigError(
        `${testing} and ${customer} are both ${JSON.stringify(config[customer])}: Testing embed tokens must name another ${testing.endsWith('ISSUER') ? 'issuer' : 'audience'} than Customer's, so that no Customer verifier accepts them. ${describeSetting(testing)}`,
      );
    }
  }
  return {
    port: config.PORT,
    host: config.HOST,
    dataDir: config.UGS_DATA_DIR === undefined ? defaultDataDir() : resolve(config.UGS_DATA_DIR),
    logLevel: config.LOG_LEVEL,
    secret: config.UGS_SECRET,
    previousSecret: config.UGS_PREVIOUS_SECRET,
    keyCacheTtlMs: config.UGS_KEY_CACHE_TTL_MS,
    activityFlushMs: config.UGS_ACTIVITY_FLUSH_MS,
    shutdownTimeoutMs: config.UGS_SHUTDOWN_TIMEOUT_MS,
    workers: config.UGS_WORKERS,
    metricsToken: config.UGS_METRICS_TOKEN,
    trustedProxies: parsed('UGS_TRUST_PROXY', env, () => parseTrustedProxies(config.UGS_TRUST_PROXY ?? '')),
    http: {
      requestsPerKeyPerMinute: config.UGS_RATE_LIMIT_PER_KEY_PER_MINUTE,
      authFailuresPerMinute: config.UGS_AUTH_FAILURES_PER_MINUTE,
      maxConnections: config.UGS_MAX_CONNECTIONS,
      maxConnectionsPerAddress: config.UGS_MAX_CONNECTIONS_PER_ADDRESS,
      headersTimeoutMs: config.UGS_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: config.UGS_REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: config.UGS_KEEP_ALIVE_TIMEOUT_MS,
    },
    embed: {
      issuer: config.UGS_EMBED_ISSUER,
      audience: config.UGS_EMBED_AUDIENCE,
      testingIssuer: config.UGS_EMBED_TESTING_ISSUER,
      testingAudience: config.UGS_EMBED_TESTING_AUDIENCE,
      algorithm: config.UGS_EMBED_ALGORITHM,
      jwksMaxAgeSeconds: config.UGS_EMBED_JWKS_MAX_AGE_SECONDS,
      clockOffsetMaxMs: config.UGS_CLOCK_OFFSET_MAX_MS,
    },
    hierarchyLevels: hierarchyLevels(config.UGS_CUSTOMER_HIERARCHY_LEVELS),
    eventRetentionDays: config.UGS_EVENT_RETENTION_DAYS,
    rejectUnresolvedMapping: config.UGS_MAPPING_UNRESOLVED === 'reject',
    usageRetentionDays: config.UGS_USAGE_RETENTION_DAYS,
    webhooks: {
      timeoutMs: config.UGS_WEBHOOK_TIMEOUT_SECONDS * 1000,
      retryScheduleMs: config.UGS_WEBHOOK_RETRY_SCHEDULE_SECONDS.split(',').map((delay) => Number(delay.trim()) * 1000),
      disableAfterMs: config.UGS_WEBHOOK_DISABLE_AFTER_HOURS * 3_600_000,
      pollMs: config.UGS_WEBHOOK_POLL_MS,
      allowPrivateTargets: config.UGS_WEBHOOK_ALLOW_PRIVATE_TARGETS === 'true',
    },
    postgres:
      config.DATABASE_URL === undefined
        ? undefined
        : {
            url: config.DATABASE_URL,
            poolSize: config.UGS_PG_POOL_SIZE,
            statementTimeoutMs: config.UGS_PG_STATEMENT_TIMEOUT_MS,
            connectTimeoutMs: config.UGS_PG_CONNECT_TIMEOUT_MS,
          },
  };
}

let defaults: Config | undefined;

/** Every setting at its default (the environment ignored), computed once: for tools and tests that set only a few. */
export function defaultConfig(): Config {
  return (defaults ??= loadConfig({}));
}

/** One setting as `ugs config` shows it. */
export interface EffectiveSetting {
  name: string;
  /** Secrets are '********', the DATABASE_URL password '****'; null when unset. */
  value: string | number | null;
  source: 'env' | 'default';
  description: string;
}

/**
 * Every setting of the schema with its effective value and where it comes
 * from, secrets masked. Validates like loadConfig: a bad value throws its one-line ConfigError.
 */
export function effectiveConfig(env: NodeJS.ProcessEnv = process.env): EffectiveSetting[] {
  loadConfig(env);
  const properties = ConfigSchema.properties as Record<string, TSchema & { default?: string | number; description?: string }>;
  return Object.entries(properties).map(([name, schema]) => {
    const fromEnv = env[name] !== undefined && env[name] !== '';
    const value = fromEnv ? (Value.Convert(schema, env[name]) as string | number) : (COMPUTED_DEFAULTS[name]?.() ?? schema.default);
    return {
      name,
      value:
        value === undefined
          ? null
          : SECRET_SETTINGS.includes(name)
            ? '********'
            : name === 'DATABASE_URL'
              ? maskDatabaseUrl(String(value))
              : value,
      source: fromEnv ? 'env' : 'default',
      description: schema.description ?? '',
    };
  });
}

/** `parse()` of a setting whose rules a schema cannot say; its Error becomes the setting's one-line ConfigError. */
function parsed<T>(name: string, env: NodeJS.ProcessEnv, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new ConfigError(`Invalid ${name}=${JSON.stringify(env[name])}: ${(error as Error).message}.`);
  }
}

function describeSetting(name: string): string {
  const schema = (ConfigSchema.properties as Record<string, { description?: string }>)[name];
  return schema?.description ?? '';
}

/** UGS_CUSTOMER_HIERARCHY_LEVELS as names, each trimmed: refused when one is blank or two are the same. */
function hierarchyLevels(value: string): string[] {
  const levels = value.split(',').map((level) => level.trim());
  if (levels.some((level) => level === '')) throw new ConfigError(`Invalid UGS_CUSTOMER_HIERARCHY_LEVELS=${value}: a level name is blank.`);
  if (new Set(levels).size !== levels.length) {
    throw new ConfigError(`Invalid UGS_CUSTOMER_HIERARCHY_LEVELS=${value}: a level name appears twice.`);
  }
  return levels;
}
