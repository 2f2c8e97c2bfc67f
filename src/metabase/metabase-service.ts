import type { AuditContext, ChangeOrigin } from '../audit/audit.js';
import { forbidden, invalidRequest, notFound, conflict } from '../kernel/errors.js';
import type { Environment } from '../kernel/environment.js';
import { keyKind, may, readRefusal, type Principal } from '../kernel/principal.js';
import type { TokenCipher } from '../secrets/token-cipher.js';
import type { EmbedSessionService } from '../embed-sessions/embed-session-service.js';
import type { SessionActivity } from '../embed-sessions/session-activity.js';
import { checkViewer, type Viewer } from '../viewers/viewer.js';
import { metabaseConfigured, metabaseRemoved, metabaseTokenMinted } from './metabase-consequences.js';
import {
  checkedMaxExpiresIn,
  checkedSecret,
  checkedSiteUrl,
  metabaseSecretSealContext,
  METABASE_LIMITS,
  toMetabaseSettingsView,
  type MetabaseSettingsRecord,
  type MetabaseSettingsView,
} from './metabase-settings.js';
import type { MetabaseStore } from './metabase-store.js';
import {
  checkedParameterSources,
  checkedResource,
  embedUrl,
  lockedValue,
  signMetabaseToken,
  type LockedValue,
  type MetabaseResource,
  type ParameterSource,
} from './metabase-token.js';

export interface MetabaseServiceDeps {
  store: MetabaseStore;
  cipher: Pick<TokenCipher, 'seal' | 'open'>;
  /** What a session minted now for a group would carry: its effective properties and subtree. */
  sessions: Pick<EmbedSessionService, 'sessionClaims'>;
  /** A Metabase token counts in the group's usage as a session. */
  activity: Pick<SessionActivity, 'record'>;
  now?: () => Date;
}

export interface MetabaseSettingsInput {
  siteUrl: string;
  secretKey: string;
  maxExpiresIn?: number;
}

export interface MetabaseTokenRequest {
  userGroupId: string;
  resource: Record<string, unknown>;
  params: Record<string, string>;
  viewer?: Viewer;
  expiresIn?: number;
}

export interface MintedMetabaseToken {
  token: string;
  url: string;
  expiresAt: string;
  resource: MetabaseResource;
  params: Record<string, LockedValue>;
}

/**
 * Metabase static embedding for an environment's groups: the site and embedding secret key (sealed with the server
 * secret), and tokens Metabase verifies itself, signed with that key, whose locked parameters carry the group's own
 * values, so Metabase's filters keep each group to its rows. Metabase cannot end a token before its exp: lifetimes
 * are short and bounded.
 */
export class MetabaseService {
  private readonly now: () => Date;

  constructor(private readonly deps: MetabaseServiceDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  async get(principal: Principal): Promise<MetabaseSettingsView> {
    if (!may(principal, 'read')) throw forbidden(readRefusal(principal, 'the Metabase settings'));
    const settings = await this.deps.store.findMetabaseSettings(principal.environment);
    if (!settings) throw notFound(`Metabase is not configured for the ${principal.environment} environment.`);
    return toMetabaseSettingsView(settings);
  }

  /** Sets (or replaces) the environment's settings; the same values again write nothing. */
  async configure(principal: Principal, input: MetabaseSettingsInput, origin?: ChangeOrigin): Promise<MetabaseSettingsView> {
    assertWritable(principal);
    const siteUrl = checkedSiteUrl(input.siteUrl);
    const secretKey = checkedSecret(input.secretKey);
    const maxExpiresIn = checkedMaxExpiresIn(input.maxExpiresIn);
    const current = await this.deps.store.findMetabaseSettings(principal.environment);
    const fields = [
      ...(current?.siteUrl === siteUrl ? [] : ['site_url']),
      ...(current && this.secretOf(current) === secretKey ? [] : ['secret_key']),
      ...(current?.maxExpiresIn === maxExpiresIn ? [] : ['max_expires_in']),
    ];
    if (current && fields.length === 0) return toMetabaseSettingsView(current);
    const at = this.now().toISOString();
    const record: MetabaseSettingsRecord = {
      environment: principal.environment,
      siteUrl,
      secretCiphertext: this.deps.cipher.seal(secretKey, metabaseSecretSealContext(principal.environment)),
      maxExpiresIn,
      createdAt: current?.createdAt ?? at,
      updatedAt: at,
    };
    const stored = await this.deps.store.putMetabaseSettings(
      record,
      metabaseConfigured(principal.environment, at, auditOf(principal, fields, origin)),
    );
    return toMetabaseSettingsView(stored);
  }

  async remove(principal: Principal, origin?: ChangeOrigin): Promise<void> {
    assertWritable(principal);
    const at = this.now().toISOString();
    const removed = await this.deps.store.deleteMetabaseSettings(
      principal.environment,
      metabaseRemoved(principal.environment, at, auditOf(principal, [], origin)),
    );
    if (!removed) throw notFound(`Metabase is not configured for the ${principal.environment} environment.`);
  }

  /** A token for one dashboard or question of Metabase, its locked parameters bound to the group's (and viewer's) values. */
  async mint(principal: Principal, request: MetabaseTokenRequest, origin?: ChangeOrigin): Promise<MintedMetabaseToken> {
    if (!may(principal, 'mint'))
      throw forbidden(`This API key is ${keyKind(principal.access)}; Metabase tokens are minted with a read-write or embed key.`);
    const resource = checkedResource(request.resource);
    const sources = checkedParameterSources(request.params);
    const viewer = request.viewer === undefined ? undefined : checkViewer(request.viewer);
    const settings = await this.settings(principal.environment);
    const expiresIn = request.expiresIn ?? Math.min(METABASE_LIMITS.expiresInDefault, settings.maxExpiresIn);
    if (!Number.isInteger(expiresIn) || expiresIn < METABASE_LIMITS.expiresInMin || expiresIn > settings.maxExpiresIn)
      throw invalidRequest(
        `"expires_in" must be a whole number of seconds from ${METABASE_LIMITS.expiresInMin} to ${settings.maxExpiresIn} (this environment's max_expires_in): Metabase cannot end a token before it expires.`,
      );
    const wantsSubtree = [...sources.values()].some((s) => s.from === 'user_group_subtree');
    const claims = await this.deps.sessions.sessionClaims(principal, request.userGroupId, { includeDescendants: wantsSubtree });
    const params = Object.fromEntries([...sources].map(([slug, source]) => [slug, valueOf(slug, source, claims, viewer)] as const));
    const now = this.now();
    const exp = Math.floor(now.getTime() / 1000) + expiresIn;
    const token = signMetabaseToken({ resource, params, exp }, this.secretOf(settings));
    await this.deps.store.appendRecord(
      metabaseTokenMinted(
        principal.environment,
        now.toISOString(),
        auditOf(principal, mintFields(resource, request.params, expiresIn), origin),
        { teamId: claims.tid, providedId: claims.sub },
        viewer?.id ?? null,
      ),
    );
    this.deps.activity.record(principal.environment, claims.tid, now, viewer?.id);
    return { token, url: embedUrl(settings.siteUrl, resource, token), expiresAt: new Date(exp * 1000).toISOString(), resource, params };
  }

  private async settings(environment: Environment): Promise<MetabaseSettingsRecord> {
    const settings = await this.deps.store.findMetabaseSettings(environment);
    if (!settings) throw notConfigured(environment);
    return settings;
  }

  private secretOf(settings: MetabaseSettingsRecord): string {
    return this.deps.cipher.open(settings.secretCiphertext, metabaseSecretSealContext(settings.environment));
  }
}

function valueOf(
  slug: string,
  source: ParameterSource,
  claims: { sub: string; desc?: string[]; props: Record<string, unknown> },
  viewer: Viewer | undefined,
): LockedValue {
  switch (source.from) {
    case 'user_group_id':
      return claims.sub;
    case 'user_group_subtree':
      return [claims.sub, ...(claims.desc ?? [])];
    case 'property': {
      const value = claims.props[source.name];
      if (value === undefined || value === null)
        throw invalidRequest(`"params.${slug}": the group ${JSON.stringify(claims.sub)} has no property ${JSON.stringify(source.name)}.`);
      return lockedValue(value, `"params.${slug}": property ${JSON.stringify(source.name)}`);
    }
    case 'viewer': {
      const value = viewer?.attributes?.[source.name];
      if (value === undefined || value === null)
        throw invalidRequest(`"params.${slug}": the request's viewer has no attribute ${JSON.stringify(source.name)}.`);
      return lockedValue(value, `"params.${slug}": viewer attribute ${JSON.stringify(source.name)}`);
    }
  }
}

/**
 * What a mint's audit record lists: the resource, each locked parameter with where its value came from (as the
 * request named it), and the lifetime; ids and sources only, never a value the token carries.
 */
function mintFields(resource: MetabaseResource, params: Record<string, string>, expiresIn: number): string[] {
  const [kind, id] = Object.entries(resource)[0]!;
  return [
    `resource.${kind}=${id}`,
    ...Object.entries(params).map(([slug, source]) => `params.${slug}=${source}`),
    `expires_in=${expiresIn}`,
  ];
}

function notConfigured(environment: Environment) {
  return conflict(
    `Metabase is not configured for the ${environment} environment: PUT /api/integrations/metabase with its site_url and secret_key first.`,
  );
}

function assertWritable(principal: Principal): void {
  if (!may(principal, 'read')) throw forbidden(readRefusal(principal, 'the Metabase settings'));
  if (!may(principal, 'write')) throw forbidden('This API key is read-only; changing the Metabase settings needs a read-write key.');
}

function auditOf(principal: Principal, fields: string[], origin: ChangeOrigin | undefined): AuditContext {
  return { keyId: principal.keyId, fields, clientAddress: origin?.ip ?? null };
}
