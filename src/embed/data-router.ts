import type { PoolClient } from 'pg';
import type { EmbedClaims } from './embed-claims.js';
import { DataRouterError } from './embed-errors.js';
import { resolveDataRouterOptions, type DataRouterOptions } from './data-router-options.js';
import { DataSourceCache } from './data-source-cache.js';
import { fetchDataSource, ServiceRefusedKeyError, type RoutedDataSource } from './data-source-credentials.js';
import { describeFetchError } from './describe-fetch-error.js';
import { guardClient } from './guarded-client.js';
import { PoolSet, type PostgresDataSource } from './pool-set.js';
import { withSessionClaims } from './session-claims.js';

/** What a run needs of a verified session: its group, environment and mapping, and what its policies read. */
export type RoutedClaims = Pick<EmbedClaims, 'sub' | 'env' | 'map' | 'props'> &
  Partial<Pick<EmbedClaims, 'tid' | 'vid' | 'vat' | 'gprops' | 'anc' | 'desc'>>;

export interface DataRouter {
  /**
   * Runs `fn` on a connection to the data source the session's mapping names for `schemaId`, in a transaction
   * whose claims are the session's (withSessionClaims), and resolves to what `fn` resolves to. The connection is
   * `fn`'s only until `fn` settles. Refusals are DataRouterErrors, and none of the run's statements reached a
   * database then: unknown_schema, unresolved_data_source, environment_mismatch, unsupported_kind,
   * service_unavailable, database_unavailable, router_closed.
   */
  run<T>(claims: RoutedClaims, schemaId: string, fn: (client: PoolClient) => Promise<T>): Promise<T>;
  /** Refuses new runs (router_closed), lets the runs under way finish, then closes every pool. */
  close(): Promise<void>;
}

/** Data sources remembered at most (answers, absent ones included); each is a few hundred bytes. */
const MAX_REMEMBERED = 10_000;
const ID_MAX_LENGTH = 255;

/**
 * Routes each session's queries to its own group's data: the data source is the one `claims.map[schemaId]`
 * names, and nothing else (no default, no fallback). Its connection settings come from the service, asked with
 * a `dashboard` API key, and are held in memory only; every data source has its own pool, opened on first use.
 * The driver, node-postgres, is loaded with the first run: a dashboard that only verifies tokens never loads it.
 */
export function createDataRouter(options: DataRouterOptions): DataRouter {
  const settings = resolveDataRouterOptions(options);
  const closing = new AbortController();
  let pools: Promise<PoolSet> | undefined;
  let openPools: PoolSet | undefined;
  const cache = new DataSourceCache(
    (id) => fetchDataSource(settings.base, settings.apiKey, id, closing.signal),
    settings.refreshMs,
    MAX_REMEMBERED,
    (id, source) => openPools?.sync(id, source),
  );

  function poolSet(): Promise<PoolSet> {
    pools ??= import('pg').then(({ default: pg }) => (openPools = new PoolSet(pg.Pool, settings)));
    return pools;
  }

  function assertOpen(): void {
    if (closing.signal.aborted) throw new DataRouterError('router_closed', 'the data router is closed');
  }

  /** The data source id the session's mapping names for `schemaId`, once the service's answer for it is no older than refreshMs. */
  async function freshen(claims: RoutedClaims, schemaId: string): Promise<{ id: string; answer: RoutedDataSource | null }> {
    if (claims.env !== settings.environment) {
      throw new DataRouterError(
        'environment_mismatch',
        `the session is of the ${claims.env} environment; this data router routes ${settings.environment} sessions only`,
      );
    }
    const id = dataSourceIdOf(claims, schemaId);
    try {
      return { id, answer: await cache.current(id) };
    } catch (error) {
      assertOpen();
      const why =
        error instanceof ServiceRefusedKeyError
          ? `${error.message}: give the router an API key with the dashboard access`
          : describeFetchError(error);
      throw new DataRouterError('service_unavailable', `the service could not say what data source "${id}" is now (${why})`, {
        cause: error,
      });
    }
  }

  /**
   * The newest answer for `id`, at least as new as the run's own (another run's request may have answered since):
   * so runs of one moment agree on one version, and an older answer never replaces a newer pool. Refused when the
   * session may not use it.
   */
  function usable(claims: RoutedClaims, schemaId: string, id: string, answer: RoutedDataSource | null): PostgresDataSource {
    const newest = cache.newest(id);
    const source = newest === undefined ? answer : newest;
    if (source === null) throw notFound(id, schemaId);
    if (source.environment !== claims.env) {
      throw new DataRouterError(
        'environment_mismatch',
        `data source "${id}" is of the ${source.environment} environment and the session of ${claims.env}: the router's API key is a ${source.environment} key`,
      );
    }
    if (source.postgres === null)
      throw new DataRouterError(
        'unsupported_kind',
        `data source "${id}" is of kind "${source.kind}": this router connects to postgresql only`,
      );
    return source as PostgresDataSource;
  }

  async function connect(set: PoolSet, source: PostgresDataSource) {
    const lease = set.lease(source);
    try {
      return { lease, client: await lease.pool.connect() };
    } catch (error) {
      lease.release();
      // The settings may have changed since they were read: the next run asks again.
      cache.forget(source.id);
      throw new DataRouterError('database_unavailable', `could not connect to data source "${source.id}" (${describeDriverError(error)})`, {
        cause: error,
      });
    }
  }

  return {
    async run(claims, schemaId, fn) {
      assertOpen();
      if (typeof fn !== 'function') throw new TypeError('run needs a function to call with the connection');
      if (typeof claims?.sub !== 'string' || claims.sub === '' || typeof claims.map !== 'object' || claims.map === null)
        throw new TypeError('run needs verified claims, with "sub" and "map"');
      const [{ id, answer }, set] = await Promise.all([freshen(claims, schemaId), poolSet()]);
      assertOpen();
      // From here to the lease, synchronous: the pool leased is the one of the version checked.
      const { lease, client } = await connect(set, usable(claims, schemaId, id, answer));
      return runOn(client, lease.release, claims, fn);
    },
    async close() {
      closing.abort();
      await (await pools)?.close();
    },
  };
}

/**
 * `fn` on `client` in the session's transaction, then the client back to its pool, or destroyed when it cannot
 * be trusted for the next session: the run failed, the connection reported an error, or `fn` ended the
 * transaction itself (what it ran afterwards ran outside it, and may have changed the session).
 */
async function runOn<T>(
  client: PoolClient,
  releaseLease: () => void,
  claims: RoutedClaims,
  fn: (client: PoolClient) => Promise<T>,
): Promise<T> {
  let broken: unknown;
  const onError = (error: unknown) => (broken ??= error);
  client.on('error', onError);
  const guarded = guardClient(client);
  try {
    return await withSessionClaims(client, claims, async () => {
      try {
        return await fn(guarded.client);
      } finally {
        guarded.revoke();
        if (client.getTransactionStatus() === 'I') broken ??= new Error('fn ended the transaction itself');
      }
    });
  } catch (error) {
    broken ??= error;
    throw error;
  } finally {
    client.off('error', onError);
    if (broken === undefined && client.getTransactionStatus() !== 'I') broken = new Error('the transaction is still open');
    client.release(broken === undefined ? undefined : broken instanceof Error ? broken : new Error(String(broken)));
    releaseLease();
  }
}

/** The data source id the mapping names for the schema, as a string; only the session's own mapping is read. */
function dataSourceIdOf(claims: RoutedClaims, schemaId: string): string {
  if (typeof schemaId !== 'string' || !Object.prototype.hasOwnProperty.call(claims.map, schemaId)) {
    throw new DataRouterError('unknown_schema', `the session's mapping names no data source for schema "${String(schemaId)}"`);
  }
  const id = String(claims.map[schemaId]);
  // No data source has such an id, and "." and ".." cannot be named in a URL's path (they are resolved away).
  if (id === '' || id === '.' || id === '..' || id.length > ID_MAX_LENGTH) throw notFound(id, schemaId);
  return id;
}

function notFound(id: string, schemaId: string): DataRouterError {
  return new DataRouterError(
    'unresolved_data_source',
    `schema "${schemaId}" maps to data source "${id}", which the service does not have in this environment (never created, or deleted)`,
  );
}

/** node-postgres's reason in one line: its messages name the host, user or database, never the password. */
function describeDriverError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? `${code}: ${error.message}` : error.message;
}
