import type { EmbedEnvironment } from './embed-verifier-options.js';

/** How a PostgreSQL connection uses TLS, as libpq names the modes (src/data-sources/data-source.ts on the service). */
export type SslMode = 'disable' | 'require' | 'verify-ca' | 'verify-full';
const SSL_MODES: readonly string[] = ['disable', 'require', 'verify-ca', 'verify-full'];

export interface PostgresSettings {
  readonly host: string;
  readonly port: number;
  readonly database: string;
  readonly user: string;
  /** null: the data source has none (the server authenticates otherwise, e.g. trust or a certificate). */
  readonly password: string | null;
  readonly ssl: { readonly mode: SslMode; readonly ca?: string };
}

/** A data source as the service answers a `dashboard` key: what the router opens a pool with. */
export interface RoutedDataSource {
  readonly id: string;
  /** The data source's environment (the API key's), `api_environment_tag` on the wire. */
  readonly environment: EmbedEnvironment;
  /** As the service names it; only `postgresql` has settings this router reads. */
  readonly kind: string;
  /** One more at every change of the data source: a pool opened with another version is stale. */
  readonly version: number;
  /** The connection of a `postgresql` data source; null for any other kind. */
  readonly postgres: PostgresSettings | null;
}

/** The service refused the API key (401 or 403): unlike an outage, this does not pass by itself. */
export class ServiceRefusedKeyError extends Error {
  override name = 'ServiceRefusedKeyError';
}

const FETCH_TIMEOUT_MS = 5_000;

/**
 * GET /api/data_sources/{id}/credentials: the data source of that id in the API key's environment, or null when
 * the service answers that it has none (its 404 not_found). Throws for anything else, saying what came back in
 * words that never quote the body (it holds a password).
 */
export async function fetchDataSource(base: URL, apiKey: string, id: string, closed: AbortSignal): Promise<RoutedDataSource | null> {
  const response = await fetch(new URL(`api/data_sources/${encodeURIComponent(id)}/credentials`, base), {
    headers: { authorization: `Bearer ${apiKey}`, accept: 'application/json' },
    // A redirect must not carry the API key anywhere else.
    redirect: 'error',
    signal: AbortSignal.any([closed, AbortSignal.timeout(FETCH_TIMEOUT_MS)]),
  });
  const text = await response.text();
  const code = errorCodeOf(text);
  if (response.status === 404 && code === 'not_found') return null;
  if (response.status === 401 || response.status === 403)
    throw new ServiceRefusedKeyError(`the service refused the API key: HTTP ${response.status}${code ? ` (${code})` : ''}`);
  if (response.status !== 200) {
    // A 404 without the service's envelope is a wrong serviceUrl, not a deleted data source.
    throw new Error(`the service answered HTTP ${response.status}${code ? ` (${code})` : ' without its error envelope'}`);
  }
  return parseDataSource(text, id);
}

type Wire = Record<string, unknown>;

const isObject = (value: unknown): value is Wire => typeof value === 'object' && value !== null && !Array.isArray(value);
const isText = (value: unknown): value is string => typeof value === 'string' && value !== '';

/** The answer's data source, checked field by field: an answer for another id is refused, never used. */
function parseDataSource(text: string, id: string): RoutedDataSource {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error('the service answered 200 with a body that is not JSON');
  }
  const source = isObject(body) ? body.data_source : undefined;
  if (!isObject(source)) throw malformed('data_source');
  if (source.id !== id) throw new Error(`the service answered for another data source than "${id}"`);
  const environment = source.api_environment_tag;
  if (environment !== 'Customer' && environment !== 'Testing') throw malformed('api_environment_tag');
  if (!isText(source.kind)) throw malformed('kind');
  if (!Number.isSafeInteger(source.version)) throw malformed('version');
  const postgres = source.kind === 'postgresql' ? parsePostgres(source.connection) : null;
  return { id, environment, kind: source.kind, version: source.version as number, postgres };
}

function parsePostgres(connection: unknown): PostgresSettings {
  if (!isObject(connection)) throw malformed('connection');
  const { host, port, database, user, password, ssl } = connection;
  if (!isText(host)) throw malformed('connection.host');
  if (!Number.isSafeInteger(port) || (port as number) < 1 || (port as number) > 65_535) throw malformed('connection.port');
  if (!isText(database)) throw malformed('connection.database');
  if (!isText(user)) throw malformed('connection.user');
  if (password !== null && typeof password !== 'string') throw malformed('connection.password');
  if (!isObject(ssl) || typeof ssl.mode !== 'string' || !SSL_MODES.includes(ssl.mode)) throw malformed('connection.ssl.mode');
  if (ssl.ca !== undefined && ssl.ca !== null && !isText(ssl.ca)) throw malformed('connection.ssl.ca');
  const mode = ssl.mode as SslMode;
  return { host, port: port as number, database, user, password, ssl: isText(ssl.ca) ? { mode, ca: ssl.ca } : { mode } };
}

function malformed(field: string): Error {
  return new Error(`the service answered a data source whose "${field}" is missing or malformed`);
}

/** The service's error code (`not_found`, `forbidden`…) from its envelope, or undefined. */
function errorCodeOf(text: string): string | undefined {
  try {
    const code = (JSON.parse(text) as { error?: { code?: unknown } } | null)?.error?.code;
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
}
