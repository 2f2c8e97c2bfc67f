import type {
  CheckResponse,
  CreateDataSourceBody,
  CredentialsResponse,
  DataSourceDetailResponse,
  DataSourceResponse,
  DataSourcesResponse,
  DataSourceUpdate,
} from './wire-types.js';
import { pathSegment } from '../platform/http/path-segment.js';
import type { WireRequest } from './transport.js';

/** A data source as the service shows it: where it connects and whether a password is set (`password_set`), never the password. */
export type DataSource = DataSourceResponse['data_source'];
/** One data source as `get` reads it: with `mapped_groups`, the groups whose own mapping names it (the first 20, and how many in all). */
export type DataSourceWithGroups = DataSourceDetailResponse['data_source'];
/** One page of data sources; `next_cursor` (pass it as `after`) is null on the last. */
export type DataSourcePage = Omit<DataSourcesResponse, 'success'>;
/** What `create` takes: `kind` is "postgresql" when absent; `connection.port` 5432, `ssl` `{ mode: "disable" }`. */
export type DataSourceRequest = Omit<CreateDataSourceBody, 'kind'> & { kind?: CreateDataSourceBody['kind'] };
/** What `update` takes: only what changes (a kind never does); `connection.password: null` removes the password, `ssl.ca: null` the CA. */
// The domain's type, not the wire's: UpdateDataSourceBody's static type marks host, database and user required, where its schema does not.
export type DataSourceChanges = Omit<DataSourceUpdate, 'kind'>;
/** What a connection check found, as categories (never the server's own text); a field is null when the check stopped before it. */
export type DataSourceCheck = CheckResponse['check'];
/** The connection with its password: what a `dashboard` key reads, to open a pool with. */
export type DataSourceCredentials = CredentialsResponse['data_source'];

/** How the client sends one request: UserGroupClient's own, with its retries and errors. */
export type SendRequest = <T>(method: WireRequest['method'], path: string, body?: unknown) => Promise<T>;

/**
 * /api/data_sources, as `client.dataSources`: the databases group mappings name. Read-write keys write and check;
 * read-only keys list and get; only a `dashboard` key reads `credentials`. Answers are the wire's, as every method's.
 */
export class DataSourceClient {
  constructor(private readonly send: SendRequest) {}

  /** GET /api/data_sources: one page of the environment's data sources, in id order; `after` is a next_cursor. */
  async list(options: { after?: string; limit?: number } = {}): Promise<DataSourcePage> {
    const query = new URLSearchParams();
    if (options.after !== undefined) query.set('after', options.after);
    if (options.limit !== undefined) query.set('limit', String(options.limit));
    const { data_sources, next_cursor } = await this.send<DataSourcesResponse>('GET', `/api/data_sources?${query}`);
    return { data_sources, next_cursor };
  }

  /** GET /api/data_sources/{id}: throws not_found when absent. */
  async get(id: string): Promise<DataSourceWithGroups> {
    return (await this.send<DataSourceDetailResponse>('GET', path(id))).data_source;
  }

  /** POST /api/data_sources: the password is sealed at rest and never answered (only `password_set`); conflict when the id is taken. */
  async create(input: DataSourceRequest): Promise<DataSource> {
    const body = { ...input, kind: input.kind ?? 'postgresql' };
    return (await this.send<DataSourceResponse>('POST', '/api/data_sources', body)).data_source;
  }

  /** PUT /api/data_sources/{id}: changes only what is given; its version moves on when something changed. */
  async update(id: string, changes: DataSourceChanges): Promise<DataSource> {
    return (await this.send<DataSourceResponse>('PUT', path(id), changes)).data_source;
  }

  /** DELETE /api/data_sources/{id}: conflict while a group's own mapping names it, unless `force` (those values then resolve to none). */
  async remove(id: string, options: { force?: boolean } = {}): Promise<void> {
    await this.send('DELETE', `${path(id)}${options.force ? '?force=true' : ''}`);
  }

  /** POST /api/data_sources/{id}/check: connects once with a short timeout; rate-limited per key (429 is retried as any). */
  async check(id: string): Promise<DataSourceCheck> {
    return (await this.send<CheckResponse>('POST', `${path(id)}/check`)).check;
  }

  /** GET /api/data_sources/{id}/credentials: with the password; a `dashboard` key only (any other is forbidden). Keep it in memory. */
  async credentials(id: string): Promise<DataSourceCredentials> {
    return (await this.send<CredentialsResponse>('GET', `${path(id)}/credentials`)).data_source;
  }
}

function path(id: string): string {
  return `/api/data_sources/${pathSegment(id)}`;
}
