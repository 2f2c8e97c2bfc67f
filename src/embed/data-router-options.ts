import { ENVIRONMENTS, type EmbedEnvironment } from './embed-verifier-options.js';
import { count, serviceBase, text } from './option-checks.js';

export interface DataRouterOptions {
  /** The user group service's base URL, e.g. `https://ugs.example.com` (a path prefix is kept). */
  serviceUrl: string;
  /**
   * An API key with the `dashboard` access (`ugs keys create --access dashboard`): it reads the data sources of its
   * environment with their passwords (GET /api/data_sources/{id}/credentials). Held in memory, sent to the service only.
   */
  apiKey: string;
  /**
   * The only environment whose sessions are routed (default `Customer`, as createEmbedVerifier): a session of the
   * other one, or a data source the service answers for the other one (an API key of that environment), is refused
   * with environment_mismatch.
   */
  environment?: EmbedEnvironment;
  /**
   * How many data sources have a pool at once (default 100). Opening one more retires the least recently used pool,
   * an idle one first; a retired pool takes no new run and closes once the runs holding it have finished.
   */
  maxPools?: number;
  /** Connections per pool, so per data source (default 10); a run waits for one up to connectTimeoutMs. */
  maxConnectionsPerPool?: number;
  /** How long a connection stays open unused, in ms (default 10 000). */
  idleTimeoutMs?: number;
  /**
   * How old, in ms, what the service said of a data source may be when a run uses it (default 5 000): a run that
   * starts at time t uses the answer to a request sent at t − refreshMs or later, so a data source updated or
   * deleted at t₀ is used with its old settings by no run starting after t₀ + refreshMs. 0 asks on every run
   * (concurrent runs still share one request).
   */
  refreshMs?: number;
  /** How long a run waits for a connection, a new one or a pooled one, in ms (default 5 000): then database_unavailable. */
  connectTimeoutMs?: number;
}

export interface ResolvedDataRouterOptions {
  readonly base: URL;
  readonly apiKey: string;
  readonly environment: EmbedEnvironment;
  readonly maxPools: number;
  readonly maxConnectionsPerPool: number;
  readonly idleTimeoutMs: number;
  readonly refreshMs: number;
  readonly connectTimeoutMs: number;
}

/** The options with their defaults; a TypeError for a value that cannot work (a bug in the caller, not a refusal). */
export function resolveDataRouterOptions(options: DataRouterOptions): ResolvedDataRouterOptions {
  if (options.environment !== undefined && !ENVIRONMENTS.includes(options.environment))
    throw new TypeError('environment must be "Customer" or "Testing"');
  const apiKey = text('apiKey', options.apiKey, undefined);
  if (apiKey === undefined) throw new TypeError('apiKey is required: an API key with the dashboard access');
  return {
    base: serviceBase(options.serviceUrl),
    apiKey,
    environment: options.environment ?? 'Customer',
    maxPools: count('maxPools', options.maxPools, 100, 1),
    maxConnectionsPerPool: count('maxConnectionsPerPool', options.maxConnectionsPerPool, 10, 1),
    idleTimeoutMs: count('idleTimeoutMs', options.idleTimeoutMs, 10_000, 1),
    refreshMs: count('refreshMs', options.refreshMs, 5_000, 0),
    connectTimeoutMs: count('connectTimeoutMs', options.connectTimeoutMs, 5_000, 1),
  };
}
