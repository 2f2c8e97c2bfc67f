import type {
  CreateWebhookBody,
  DeliveriesResponse,
  DeliveryResponse,
  EventItem,
  EventsResponse,
  GetOrCreateBody,
  GetOrCreateResponse,
  GetResponse,
  GroupUsageResponse,
  GroupViewersResponse,
  IntrospectResponse,
  ListResponse,
  MintBody,
  MintResponse,
  RevocationsResponse,
  RevokeViewerResponse,
  RotateResponse,
  TopUsageResponse,
  UpdateBody,
  UpdateResponse,
  UserGroupItem,
  Webhook,
  WebhookListResponse,
  WebhookResponse,
  WebhookWithSecretResponse,
} from './wire-types.js';
import { isDotSegment, pathSegment } from '../platform/http/path-segment.js';
import { UserGroupServiceError } from './client-error.js';
import { CustomerClient } from './customer-client.js';
import { DataSourceClient } from './data-source-client.js';
import { GroupTagClient } from './group-tag-client.js';
import { MetabaseClient } from './metabase-client.js';
import { fetchTransport, isNode, nodeTransport, type Transport, type WireRequest, type WireResponse } from './transport.js';

export interface UserGroupClientOptions {
  /** Where the service runs, e.g. http://localhost:8080. */
  baseUrl: string;
  apiKey: string;
  /** Attempts after a 429 or 503 (never after any other 4xx); default 3. */
  retries?: number;
  /** First backoff; doubled each retry, raised to the server's Retry-After when it asks for longer, capped by maxDelayMs. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Override how requests are sent; by default node:http on Node.js (GET bodies) and fetch elsewhere (query string). */
  transport?: 'node' | 'fetch' | Transport;
}

export type UserGroup = GetOrCreateResponse['user_group'];
/** What `getOrCreate` answers: the group, and whether this call created it. */
export type UserGroupOrNew = Omit<GetOrCreateResponse, 'success'>;
export type UpdatedUserGroup = UpdateResponse['user_group'];
export type RotatedUserGroup = RotateResponse['user_group'];
export type { UserGroupItem };
/** What `get` answers: the group, its ancestors (root first), the values it inherits and its mapping resolved to data sources. */
export type UserGroupWithLineage = GetResponse['user_group'];
/**
 * One schema of a group's `resolved_mapping` (in `get`'s answer, named as the wire names it beside `effective_mapping`): the
 * value, the group it comes from (`inherited` when an ancestor's) and the data source it names, null when it names none.
 */
export type ResolvedMappingEntry = UserGroupWithLineage['resolved_mapping'][number];
export type EmbedSession = MintResponse['embed_session'];
export type EmbedSessionRequest = MintBody;
export type EmbedIntrospection = IntrospectResponse;
/** One page of the revocation feed; an entry with `viewer_id` (and `user_group_id` null) ended that viewer's sessions in every group. */
export type EmbedRevocationPage = Omit<RevocationsResponse, 'success'>;
/** What `revokeViewerSessions` answers: every session of the viewer minted up to `revoked_at`'s second ended. */
export type ViewerRevocation = Omit<RevokeViewerResponse, 'success'>;
/** One page of a group's viewers; `next_cursor` (pass it as `after`) is null on the last. */
export type GroupViewerPage = Omit<GroupViewersResponse, 'success'>;
/** A viewer seen in a group's sessions: when first and last, and how many sessions named them there. */
export type GroupViewer = GroupViewerPage['viewers'][number];
/** One bucket of a group's usage: its first instant (UTC), sessions minted, tokens renewed, distinct viewers. */
export type UsageBucket = GroupUsageResponse['usage'][number];
/** Where a usage range starts and ends (RFC 3339 text or a Date; defaults: the last 30 UTC days, today's included). */
export interface UsageRangeOptions {
  from?: string | Date;
  to?: string | Date;
}
/** What `topUsage` answers: the range counted (`from`, `to`: whole UTC hours) and the groups ranked in it. */
export type TopUsage = Omit<TopUsageResponse, 'success'>;
/** A group's totals over a range, as `topUsage` ranks them; `last_session_at` is null when no mint is kept. */
export type GroupUsageTotals = TopUsage['groups'][number];
/** One event of the outbox: `id` (what a consumer deduplicates on), `type`, `timestamp`, `data`. */
export type ServiceEvent = EventItem;
export type EventPage = Omit<EventsResponse, 'success'>;
export type { Webhook };
export type WebhookRequest = CreateWebhookBody;
/** A webhook as registered or re-keyed: with its signing secret, shown this once. */
export type WebhookWithSecret = WebhookWithSecretResponse['webhook'];
export type WebhookDelivery = DeliveryResponse['delivery'];
export type WebhookDeliveryPage = Omit<DeliveriesResponse, 'success'>;

const RETRYABLE = new Set([429, 503]);

/**
 * Typed client for the user group service. Every method takes and answers the wire's own names (snake_case, as
 * curl and the API reference show them): its answer is the body without `success`, or the one object the body
 * wraps (`user_group`, `embed_session`, …). Types are the service's wire schemas, written out in ./wire-types.ts;
 * failures throw UserGroupServiceError with status and code.
 */
export class UserGroupClient {
  private readonly baseUrl: string;
  private readonly transport: Transport;
  private readonly sendsGetBodies: boolean;
  /** Only node:http sends a path as written: every other transport (fetch, a custom one) may resolve `%2E` segments away. */
  private readonly keepsDotSegments: boolean;
  /** /api/data_sources: list, get, create, update, remove, check, and (a `dashboard` key only) credentials. */
  readonly dataSources: DataSourceClient;
  /** /api/integrations/metabase: Metabase static embedding tokens minted from groups. */
  readonly metabase: MetabaseClient;
  /** Explo's Customer API over the same groups: getOrCreate, get, update, delete, refreshToken, list (v2), listAll (v1), generateJwt. */
  readonly customers: CustomerClient;
  /** Explo's Group Tag API: list, create, rename, delete. */
  readonly groupTags: GroupTagClient;

  constructor(private readonly options: UserGroupClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    const choice = options.transport ?? (isNode() ? 'node' : 'fetch');
    this.transport = choice === 'node' ? nodeTransport : choice === 'fetch' ? fetchTransport : choice;
    this.sendsGetBodies = choice !== 'fetch';
    this.keepsDotSegments = choice === 'node';
    this.dataSources = new DataSourceClient((method, path, body) => this.call(method, path, body));
    this.metabase = new MetabaseClient((method, path, body) => this.call(method, path, body));
    this.customers = new CustomerClient((method, path, body) => this.call(method, path, body));
    this.groupTags = new GroupTagClient((method, path, body) => this.call(method, path, body));
  }

  /** GET /api/user: the group for this id, created when missing (then `name` is required); `new_user_group` says which. */
  async getOrCreate(input: GetOrCreateBody): Promise<UserGroupOrNew> {
    const { new_user_group, user_group } = this.sendsGetBodies
      ? await this.call<GetOrCreateResponse>('GET', '/api/user', input)
      : await this.call<GetOrCreateResponse>('GET', `/api/user?${getOrCreateQuery(input)}`);
    return { new_user_group, user_group };
  }

  /** PUT /api/user: replaces the given fields; `properties: null` clears them. */
  async update(input: UpdateBody): Promise<UpdatedUserGroup> {
    return (await this.call<UpdateResponse>('PUT', '/api/user', input)).user_group;
  }

  /** POST /api/user: a new token for the group holding `currentToken`; the old one stops working. */
  async rotateToken(currentToken: string): Promise<RotatedUserGroup> {
    return (await this.call<RotateResponse>('POST', '/api/user', { current_token: currentToken })).user_group;
  }

  /** GET /api/user_groups/{id}: the group without its token, with ancestors and effective values; throws not_found when absent. */
  async get(userGroupId: string): Promise<UserGroupWithLineage> {
    return (await this.call<GetResponse>('GET', `/api/user_groups/${pathSegment(userGroupId)}`)).user_group;
  }

  /** GET /api/user_groups: every page of the environment's groups, newest first; `parent` keeps that group's children. */
  list(options: { limit?: number; q?: string; parent?: string } = {}): AsyncGenerator<UserGroupItem[], void, undefined> {
    return this.pages('/api/user_groups', options);
  }

  /** GET /api/user_groups/{id}/descendants: every page of the group's whole subtree, newest first. */
  descendants(userGroupId: string, options: { limit?: number } = {}): AsyncGenerator<UserGroupItem[], void, undefined> {
    return this.pages(`/api/user_groups/${pathSegment(userGroupId)}/descendants`, options);
  }

  /** DELETE /api/user: deletes the group; its token stops working at once. With `cascade`, its whole subtree goes (else a group with
   * children is refused with conflict). */
  async delete(userGroupId: string, options: { cascade?: boolean } = {}): Promise<void> {
    await this.call('DELETE', '/api/user', { user_group_id: userGroupId, ...(options.cascade && { cascade: true }) });
  }

  private async *pages(
    path: string,
    options: Record<string, string | number | undefined>,
  ): AsyncGenerator<UserGroupItem[], void, undefined> {
    let cursor: string | null = null;
    do {
      const query = new URLSearchParams();
      for (const [name, value] of Object.entries(options)) if (value !== undefined) query.set(name, String(value));
      if (cursor !== null) query.set('cursor', cursor);
      const page: ListResponse = await this.call<ListResponse>('GET', `${path}?${query}`);
      yield page.user_groups;
      cursor = page.next_cursor;
    } while (cursor !== null);
  }

  /** POST /api/embed_sessions: a short-lived signed embed token for a group, to hand to the browser. With `viewer`, the token names
   * that person (`vid`) and its `props` carry their attributes over the group's properties. */
  async mintEmbedSession(input: EmbedSessionRequest): Promise<EmbedSession> {
    return (await this.call<MintResponse>('POST', '/api/embed_sessions', input)).embed_session;
  }

  /**
   * POST /api/embed_sessions/renew: a new token for the same session (same session_id), its exp capped by the
   * session's max_lifetime, its claims from the group as it is now. A session that has ended throws
   * UserGroupServiceError with code `conflict` (409), its message saying why.
   */
  async renewEmbedSession(token: string, options: { expires_in?: number } = {}): Promise<EmbedSession> {
    return (await this.call<MintResponse>('POST', '/api/embed_sessions/renew', { token, ...options })).embed_session;
  }

  /** POST /api/embed_sessions/introspect: `{ active: true, ...claims }` for a live token of the key's environment, else `{ active: false
   * }`. */
  async introspect(token: string): Promise<EmbedIntrospection> {
    return this.call<IntrospectResponse>('POST', '/api/embed_sessions/introspect', { token });
  }

  /** DELETE /api/embed_sessions/{id}: ends the session at once. */
  async revokeEmbedSession(sessionId: string): Promise<void> {
    await this.call('DELETE', `/api/embed_sessions/${pathSegment(sessionId)}`);
  }

  /** GET /api/embed_sessions/revocations: one page of revocations after `after` (a next_cursor), oldest first. */
  async embedRevocations(options: { after?: string; limit?: number } = {}): Promise<EmbedRevocationPage> {
    const { environment, revocations, next_cursor } = await this.call<RevocationsResponse>(
      'GET',
      `/api/embed_sessions/revocations?${pageQuery(options)}`,
    );
    return { environment, revocations, next_cursor };
  }

  /** DELETE /api/viewers/{id}/sessions: ends every session of the viewer in every group of the key's environment; resolves once sessions
   * minted from then on work. */
  async revokeViewerSessions(viewerId: string): Promise<ViewerRevocation> {
    const { viewer_id, revoked_at } = await this.call<RevokeViewerResponse>('DELETE', `/api/viewers/${pathSegment(viewerId)}/sessions`);
    return { viewer_id, revoked_at };
  }

  /** GET /api/user_groups/{id}/viewers: one page of the group's viewers, most recently seen first; the counts lag the mints by up to
   * the service's activity flush interval (5 s by default). */
  async listViewers(userGroupId: string, options: { after?: string; limit?: number } = {}): Promise<GroupViewerPage> {
    const { viewers, next_cursor } = await this.call<GroupViewersResponse>(
      'GET',
      `/api/user_groups/${pathSegment(userGroupId)}/viewers?${pageQuery(options)}`,
    );
    return { viewers, next_cursor };
  }

  /** GET /api/user_groups/{id}/usage: every UTC hour or day bucket of the range (default: the last 30 UTC days, today's included,
   * per day: 30 buckets), zeros included;
   * the counts lag the sessions by up to the service's activity flush interval (5 s by default). */
  async groupUsage(userGroupId: string, options: UsageRangeOptions & { granularity?: 'hour' | 'day' } = {}): Promise<UsageBucket[]> {
    const query = rangeQuery(options);
    if (options.granularity !== undefined) query.set('granularity', options.granularity);
    return (await this.call<GroupUsageResponse>('GET', `/api/user_groups/${pathSegment(userGroupId)}/usage?${query}`)).usage;
  }

  /** GET /api/usage: the environment's groups with the most sessions in the range (default: the last 30 UTC days, today's included), at
   * most `limit` (1 to 100,
   * default 10). */
  async topUsage(options: UsageRangeOptions & { limit?: number } = {}): Promise<TopUsage> {
    const query = rangeQuery(options);
    if (options.limit !== undefined) query.set('limit', String(options.limit));
    const { from, to, groups } = await this.call<TopUsageResponse>('GET', `/api/usage?${query}`);
    return { from, to, groups };
  }

  /** GET /api/events: the environment's events after `after` (a next_cursor; omitted: the oldest kept), in commit order. */
  async events(options: { after?: string; limit?: number } = {}): Promise<EventPage> {
    const { events, next_cursor } = await this.call<EventsResponse>('GET', `/api/events?${pageQuery(options)}`);
    return { events, next_cursor };
  }

  /** POST /api/webhooks: registers an endpoint for the environment's events; the answer holds its secret, shown this once. */
  async createWebhook(input: WebhookRequest): Promise<WebhookWithSecret> {
    return (await this.call<WebhookWithSecretResponse>('POST', '/api/webhooks', input)).webhook;
  }

  /** GET /api/webhooks: the environment's webhooks, without secrets. */
  async listWebhooks(): Promise<Webhook[]> {
    return (await this.call<WebhookListResponse>('GET', '/api/webhooks')).webhooks;
  }

  async getWebhook(webhookId: string): Promise<Webhook> {
    return (await this.call<WebhookResponse>('GET', `/api/webhooks/${pathSegment(webhookId)}`)).webhook;
  }

  /** DELETE /api/webhooks/{id}: its pending deliveries are not sent. */
  async deleteWebhook(webhookId: string): Promise<void> {
    await this.call('DELETE', `/api/webhooks/${pathSegment(webhookId)}`);
  }

  /** POST /api/webhooks/{id}/rotate_secret: a new secret; the previous one keeps signing beside it for 24 hours. */
  async rotateWebhookSecret(webhookId: string): Promise<WebhookWithSecret> {
    return (await this.call<WebhookWithSecretResponse>('POST', `/api/webhooks/${pathSegment(webhookId)}/rotate_secret`)).webhook;
  }

  /** POST /api/webhooks/{id}/enable: delivers again after it was disabled for failing. */
  async enableWebhook(webhookId: string): Promise<Webhook> {
    return (await this.call<WebhookResponse>('POST', `/api/webhooks/${pathSegment(webhookId)}/enable`)).webhook;
  }

  /** GET /api/webhooks/{id}/deliveries: newest first, each with its attempts; `after` is a next_cursor. */
  async webhookDeliveries(webhookId: string, options: { after?: string; limit?: number } = {}): Promise<WebhookDeliveryPage> {
    const { deliveries, next_cursor } = await this.call<DeliveriesResponse>(
      'GET',
      `/api/webhooks/${pathSegment(webhookId)}/deliveries?${pageQuery(options)}`,
    );
    return { deliveries, next_cursor };
  }

  /** POST /api/webhooks/{id}/redeliver: the event again, with the same webhook-id, as a new delivery due now. */
  async redeliver(webhookId: string, eventId: string): Promise<WebhookDelivery> {
    return (await this.call<DeliveryResponse>('POST', `/api/webhooks/${pathSegment(webhookId)}/redeliver`, { event_id: eventId })).delivery;
  }

  private async call<T>(method: WireRequest['method'], path: string, body?: unknown): Promise<T> {
    const dotted = path.split('?')[0]!.split('/').find(isDotSegment);
    if (dotted !== undefined && !this.keepsDotSegments)
      throw new UserGroupServiceError(
        0,
        'invalid_request',
        `The id ${JSON.stringify(decodeURIComponent(dotted))} cannot be sent in a URL path by this transport: fetch and other URL parsers read the segment ${dotted} as a step up or in place (percent-encoded or not) and would send the request to another route. Use the node transport (the default on Node.js), which sends the path as written.`,
        undefined,
      );
    const request: WireRequest = {
      method,
      url: `${this.baseUrl}${path}`,
      headers: {
        authorization: `Token ${this.options.apiKey}`,
        accept: 'application/json',
        ...(body !== undefined && { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    };
    const retries = this.options.retries ?? 3;
    for (let attempt = 0; ; attempt++) {
      let response: WireResponse;
      try {
        response = await this.transport(request);
      } catch (error) {
        throw new UserGroupServiceError(0, 'network_error', `Could not reach the service: ${(error as Error).message}`, undefined);
      }
      if (response.status >= 200 && response.status < 300) return JSON.parse(response.text) as T;
      if (!RETRYABLE.has(response.status) || attempt >= retries) throw toError(response);
      await sleep(this.backoff(attempt, response.headers['retry-after']));
    }
  }

  private backoff(attempt: number, retryAfter: string | undefined): number {
    const base = (this.options.baseDelayMs ?? 200) * 2 ** attempt * (0.5 + Math.random() / 2);
    const asked = retryAfter !== undefined && /^\d+$/.test(retryAfter) ? Number(retryAfter) * 1000 : 0;
    return Math.min(Math.max(base, asked), this.options.maxDelayMs ?? 10_000);
  }
}

/** The query string of a usage range: `from` and `to` when given, a Date as its ISO text. */
function rangeQuery(options: UsageRangeOptions): URLSearchParams {
  const query = new URLSearchParams();
  for (const name of ['from', 'to'] as const) {
    const value = options[name];
    if (value !== undefined) query.set(name, value instanceof Date ? value.toISOString() : value);
  }
  return query;
}

/** The query string of a feed page: `after` and `limit` when given. */
function pageQuery(options: { after?: string; limit?: number }): URLSearchParams {
  const query = new URLSearchParams();
  if (options.after !== undefined) query.set('after', options.after);
  if (options.limit !== undefined) query.set('limit', String(options.limit));
  return query;
}

function getOrCreateQuery(input: GetOrCreateBody): URLSearchParams {
  const query = new URLSearchParams({ user_group_id: input.user_group_id });
  if (input.name !== undefined) query.set('name', input.name);
  if (input.mapping !== undefined) query.set('mapping', JSON.stringify(input.mapping));
  if (input.properties !== undefined) query.set('properties', JSON.stringify(input.properties));
  if (input.parent_user_group_id !== undefined) query.set('parent_user_group_id', input.parent_user_group_id);
  return query;
}

function toError(response: WireResponse): UserGroupServiceError {
  const requestId = response.headers['x-request-id'];
  try {
    const body = JSON.parse(response.text) as { error?: { code?: string; message?: string; request_id?: string } };
    // The body's id survives proxies that drop or replace the header; it is the same value otherwise.
    if (body.error?.code)
      return new UserGroupServiceError(
        response.status,
        body.error.code as never,
        body.error.message ?? '',
        body.error.request_id ?? requestId,
      );
  } catch {
    // Not the service's envelope (a proxy's page, say): report the status alone.
  }
  return new UserGroupServiceError(
    response.status,
    response.status >= 500 ? 'internal' : 'invalid_request',
    `HTTP ${response.status}`,
    requestId,
  );
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
