import { setTimeout as sleep } from 'node:timers/promises';
import { decodeProtectedHeader, errors, jwtVerify } from 'jose';
import { keyKind, may, type Principal } from '../kernel/principal.js';
import type { ChangeOrigin } from '../audit/audit.js';
import {
  checkOrigins,
  dashboardOptionClaims,
  EMBED_LIMITS,
  EMBED_TOKEN_TYPE,
  type EmbedClaims,
  type EmbedSessionRecord,
  type EmbedSessionRequest,
} from './embed-session.js';
import { tokenVersionOf, type EmbedRevocation } from '../consequences/embed-revocation.js';
import type { SessionActivity } from './session-activity.js';
import type { OpenedSessionId, SessionIds } from './session-id.js';
import { checkViewer, overlaidProperties, type Viewer } from '../viewers/viewer.js';
import type { EmbedSessionStore } from './embed-session-store.js';
import { sessionRevoked } from './embed-session-consequences.js';
import { signEmbedToken } from './embed-token-signer.js';
import { conflict, forbidden, invalidRequest, notFound } from '../kernel/errors.js';
import type { StoreClock } from '../kernel/store-clock.js';
import type { PositionSeal } from '../kernel/position-seal.js';
import { hashSecret } from '../secrets/secret-format.js';
import type { Environment } from '../kernel/environment.js';
import type { SigningKeyring } from '../signing-keys/signing-keys.js';
import type { Mapping, Properties, UserGroupRecord } from '../user-groups/user-group.js';
import { effectiveValues } from '../user-groups/user-group-hierarchy.js';
import type { UserGroupLineage, UserGroupStore } from '../user-groups/user-group-store.js';
import { userGroupTokenFormat } from '../user-groups/user-group-token.js';

/** What an environment's tokens carry as `iss` and `aud`; the two environments' differ (config refuses them equal). */
export interface EmbedSettings {
  issuer: string;
  audience: string;
}

export interface EmbedSessionServiceDeps {
  sessions: EmbedSessionStore;
  groups: Pick<
    UserGroupStore,
    'findUserGroup' | 'findUserGroupByTeamId' | 'findUserGroupByTokenHash' | 'findUserGroupLineage' | 'listDescendants'
  >;
  /** Makes and checks session ids: minting stores nothing. */
  sessionIds: SessionIds;
  /** Counts mints and renewals in memory for the store (src/embed-sessions/session-activity.ts). */
  activity: SessionActivity;
  /** Each environment's keys: a group's tokens are signed with its environment's. */
  signingKeys: SigningKeyring;
  settings: Readonly<Record<Environment, EmbedSettings>>;
  /** The feed's sequence is shared by both environments: its cursor is sealed. */
  positions: PositionSeal;
  /** Refuses minting and renewing while this process's clock is too far from the store's (viewer revocations rely on it). */
  clock?: Pick<StoreClock, 'assertWithinBound'>;
  now?: () => Date;
  /** Waits that many milliseconds (a test's clock may skip it). */
  wait?: (ms: number) => Promise<void>;
}

export interface MintedSession {
  token: string;
  sessionId: string;
  expiresAt: string;
  userGroupId: string;
  teamId: number;
}

/** The claims only a signed token has: what `sessionClaims` leaves out. */
const SESSION_ONLY_CLAIMS = new Set(['jti', 'iat', 'exp']);

/** What a session minted now would carry, without the token's own claims. */
export type GroupSessionClaims = Omit<EmbedClaims, 'jti' | 'iat' | 'exp'>;

export type Introspection = { active: false } | ({ active: true } & EmbedClaims);

/**
 * Embed sessions: short-lived signed tokens a customer's backend mints for a
 * group, so the long-lived group token never reaches a browser; and what a
 * dashboard layer asks about them (introspection, the revocation feed).
 */
export class EmbedSessionService {
  private readonly sessions: EmbedSessionStore;
  private readonly groups: EmbedSessionServiceDeps['groups'];
  private readonly now: () => Date;
  private readonly wait: (ms: number) => Promise<void>;

  constructor(private readonly deps: EmbedSessionServiceDeps) {
    this.sessions = deps.sessions;
    this.groups = deps.groups;
    this.now = deps.now ?? (() => new Date());
    this.wait = deps.wait ?? ((ms) => sleep(ms));
  }

  async mint(principal: Principal, request: EmbedSessionRequest): Promise<MintedSession> {
    assertMayMint(principal);
    // Awaited only when a reading must be taken: the usual fresh reading is judged synchronously.
    const clockReading = this.deps.clock?.assertWithinBound();
    if (clockReading) await clockReading;
    const group = await this.findGroup(principal, request);
    const expiresIn = request.expiresIn ?? EMBED_LIMITS.expiresInDefault;
    if (!Number.isInteger(expiresIn) || expiresIn < EMBED_LIMITS.expiresInMin || expiresIn > EMBED_LIMITS.expiresInMax) {
      throw invalidRequest(
        `"expires_in" must be a whole number of seconds from ${EMBED_LIMITS.expiresInMin} to ${EMBED_LIMITS.expiresInMax}.`,
      );
    }
    const maxLifetime = request.maxLifetime ?? Math.max(EMBED_LIMITS.maxLifetimeDefault, expiresIn);
    if (!Number.isInteger(maxLifetime) || maxLifetime < expiresIn || maxLifetime > EMBED_LIMITS.maxLifetimeMax) {
      throw invalidRequest(
        `"max_lifetime" must be a whole number of seconds from "expires_in" (${expiresIn}) to ${EMBED_LIMITS.maxLifetimeMax} (7 days).`,
      );
    }
    const origins = request.origins === undefined ? undefined : checkOrigins(request.origins);
    const viewer = request.viewer === undefined ? undefined : checkViewer(request.viewer);
    const now = viewer === undefined ? this.now() : await this.pastViewerCutOff(group.environment, viewer.id);
    const iat = Math.floor(now.getTime() / 1000);
    const ids = await this.deps.sessionIds.forEnvironment(group.environment);
    // The id carries the session's end, past which no renewal reaches: the renewals need no storage either.
    const sessionId = ids.mint({ teamId: group.teamId, expiresAt: iat + maxLifetime });
    const claims = await this.claimsFor(group, {
      sessionId,
      iat,
      exp: iat + expiresIn,
      dashboard: request.dashboard,
      origins,
      includeDescendants: request.includeDescendants === true,
      viewer,
      options: dashboardOptionClaims(request.dashboardOptions),
    });
    // Nothing is stored: the id proves itself when the session is ended early, and the count is written with others.
    this.deps.activity.record(group.environment, group.teamId, now, viewer?.id);
    return this.signed(group, claims);
  }

  /**
   * A new token for a live session, with the same session id, a new expiry
   * (capped by the session's maximum lifetime) and the group's claims as they
   * are now; the viewer, dashboard and origins carried over. A session that
   * has ended cannot be renewed (409, saying why); a token that is not one of
   * this environment's is 400.
   */
  async renew(principal: Principal, token: string, expiresIn: number = EMBED_LIMITS.expiresInDefault): Promise<MintedSession> {
    assertMayMint(principal);
    // Awaited only when a reading must be taken: the usual fresh reading is judged synchronously.
    const clockReading = this.deps.clock?.assertWithinBound();
    if (clockReading) await clockReading;
    if (!Number.isInteger(expiresIn) || expiresIn < EMBED_LIMITS.expiresInMin || expiresIn > EMBED_LIMITS.expiresInMax) {
      throw invalidRequest(
        `"expires_in" must be a whole number of seconds from ${EMBED_LIMITS.expiresInMin} to ${EMBED_LIMITS.expiresInMax}.`,
      );
    }
    const environment = principal.environment;
    const read = await this.verifiedClaims(environment, token, EMBED_LIMITS.renewGraceSeconds);
    if (read === null || (read !== 'expired' && read.env !== environment)) {
      throw invalidRequest(`"token" is not a valid embed token of the ${environment} environment (signature, issuer, audience or format).`);
    }
    if (read === 'expired') {
      throw conflict(
        `The session has ended: its token expired more than ${EMBED_LIMITS.renewGraceSeconds} s ago, so its viewer was idle for a whole token lifetime. Mint a new session.`,
      );
    }
    if (read.org !== undefined && !originsStillAccepted(read.org)) {
      throw conflict(
        'This session names origins this service no longer accepts (wildcards or other text a CSP source list reads otherwise); it ends at its exp. Mint a new session with origins such as "https://app.example.com".',
      );
    }
    const opened = (await this.deps.sessionIds.forEnvironment(environment)).open(read.jti);
    if (opened.kind !== 'sealed') {
      throw conflict('This session was minted before sessions could be renewed; it ends at its exp. Mint a new session.');
    }
    const now = this.now();
    // One read of the group and its ancestors decides the renewal and fills its claims: a second read could see a
    // rotation the first did not, and sign the new token version into a session the rotation ended.
    const lineageRead = this.groups.findUserGroupLineage(environment, read.sub);
    const ended = await this.endedBecause(
      environment,
      read,
      opened,
      now,
      lineageRead.then((lineage) => lineage?.group ?? null),
    );
    const lineage = await lineageRead;
    if (ended !== null) throw conflict(`The session has ended: ${ended}. Mint a new session.`);
    const group = lineage!.group;
    const iat = Math.floor(now.getTime() / 1000);
    const claims = await this.claimsFor(
      group,
      {
        sessionId: read.jti,
        iat,
        exp: Math.min(iat + expiresIn, opened.expiresAt),
        dashboard: read.dsh,
        origins: read.org,
        includeDescendants: read.desc !== undefined,
        viewer: read.vid === undefined ? undefined : { id: read.vid, ...(read.vat === undefined ? {} : { attributes: read.vat }) },
        options: {
          ...(read.cht === undefined ? {} : { cht: read.cht }),
          ...(read.rbc === undefined ? {} : { rbc: read.rbc }),
          ...(read.des === undefined ? {} : { des: read.des }),
        },
      },
      lineage!,
    );
    // Counted like a mint, with others: a renewal writes nothing either.
    this.deps.activity.record(environment, group.teamId, now, read.vid, 'renewed');
    return this.signed(group, claims);
  }

  /**
   * The time a session of the viewer is stamped with (its `iat`): now, unless a revocation of the viewer has a
   * cut-off at or after now's second, which would end the session being minted; then the first second past the
   * cut-off, waited for (at most the cut-off's allowance, a few seconds, and only right after a revocation).
   */
  private async pastViewerCutOff(environment: Environment, viewerId: string): Promise<Date> {
    let now = this.now();
    const cutOff = await this.sessions.latestViewerRevocation(environment, viewerId, now.toISOString());
    if (cutOff === null) return now;
    const firstLive = (Math.floor(Date.parse(cutOff) / 1000) + 1) * 1000;
    while (now.getTime() < firstLive) {
      await this.wait(firstLive - now.getTime());
      now = this.now();
    }
    return now;
  }

  /**
   * The claims a session minted now for the group would carry (what
   * withSessionClaims and bindProperties read), for `ugs isolation-check`:
   * nothing is signed, no session id is made and nothing is counted, so the
   * session-only claims (jti, iat, exp) are left out. An unknown group is 404.
   */
  async sessionClaims(
    principal: Principal,
    userGroupId: string,
    options: { includeDescendants?: boolean } = {},
  ): Promise<GroupSessionClaims> {
    const group = await this.findGroup(principal, { userGroupId });
    const iat = Math.floor(this.now().getTime() / 1000);
    const claims = await this.claimsFor(group, { sessionId: '', iat, exp: iat, includeDescendants: options.includeDescendants === true });
    return Object.fromEntries(Object.entries(claims).filter(([name]) => !SESSION_ONLY_CLAIMS.has(name))) as GroupSessionClaims;
  }

  /**
   * Why a session a verified token names has ended, or null while it lives, judged against `groupRead`: the
   * caller's one read of the token's group (null when there is none), so that what decides is what it signs from.
   */
  private async endedBecause(
    environment: Environment,
    claims: EmbedClaims,
    opened: OpenedSessionId,
    now: Date,
    groupRead: Promise<UserGroupRecord | null>,
  ): Promise<string | null> {
    if (opened.kind === 'unknown') return 'its id is not one of this environment';
    if (opened.kind === 'sealed' && opened.expiresAt * 1000 <= now.getTime()) return 'it reached its maximum lifetime (max_lifetime)';
    const [session, group, viewerCutoff] = await Promise.all([
      this.sessions.findEmbedSession(environment, claims.jti),
      groupRead,
      claims.vid === undefined ? null : this.sessions.latestViewerRevocation(environment, claims.vid, now.toISOString()),
    ]);
    // A viewer's revocation covers the sessions minted up to the end of its second (iat is in whole seconds).
    if (viewerCutoff !== null && claims.iat <= Math.floor(Date.parse(viewerCutoff) / 1000))
      return "its viewer's sessions were ended (DELETE /api/viewers/{viewer_id}/sessions)";
    // A stored row means ended early, but for the ids minted before they checked themselves, whose row had to exist.
    if (session === null ? opened.kind === 'stored' : session.revokedAt !== null) return 'it was ended (DELETE /api/embed_sessions/{id})';
    if (group === null || group.teamId !== claims.tid) return 'its user group was deleted';
    if (tokenVersionOf(group.tokenHash) !== claims.tv) return "its user group's token was rotated";
    return null;
  }

  /** The claims of a token for `group` as it is now. */
  private async claimsFor(
    group: UserGroupRecord,
    session: {
      sessionId: string;
      iat: number;
      exp: number;
      dashboard?: string;
      origins?: readonly string[];
      includeDescendants: boolean;
      viewer?: Viewer;
      options?: Pick<EmbedClaims, 'cht' | 'rbc' | 'des'>;
    },
    lineage?: UserGroupLineage,
  ): Promise<EmbedClaims> {
    const { ancestors, properties, mapping } = lineage ? inheritedFrom(lineage) : await this.inherited(group);
    const descendants = session.includeDescendants ? await this.descendantIds(group) : undefined;
    const { issuer, audience } = this.deps.settings[group.environment];
    const viewer = session.viewer;
    return {
      iss: issuer,
      aud: audience,
      sub: group.providedId,
      env: group.environment,
      tid: group.teamId,
      name: group.name,
      map: mapping ?? {},
      props: overlaidProperties(properties ?? {}, viewer?.attributes),
      // The group's own, beside the overlay: a viewer's attributes may narrow what a session reads, never widen what a policy admits.
      ...(viewer?.attributes === undefined ? {} : { gprops: properties ?? {} }),
      tv: tokenVersionOf(group.tokenHash),
      jti: session.sessionId,
      iat: session.iat,
      exp: session.exp,
      ...(session.dashboard === undefined ? {} : { dsh: session.dashboard }),
      ...(session.origins === undefined ? {} : { org: [...session.origins] }),
      anc: ancestors,
      ...(descendants === undefined ? {} : { desc: descendants }),
      ...(viewer === undefined ? {} : { vid: viewer.id }),
      ...(viewer?.attributes === undefined ? {} : { vat: viewer.attributes }),
      ...session.options,
    };
  }

  /** The `kid` the environment's new sessions are signed with (the Customer API's generate_jwt checks its key_id against it). */
  activeKeyId(environment: Environment): string {
    return this.deps.signingKeys[environment].active().kid;
  }

  private signed(group: UserGroupRecord, claims: EmbedClaims): MintedSession {
    const token = signEmbedToken(claims, this.deps.signingKeys[group.environment].active(), EMBED_TOKEN_TYPE);
    const expiresAt = new Date(claims.exp * 1000).toISOString();
    return { token, sessionId: claims.jti, expiresAt, userGroupId: group.providedId, teamId: group.teamId };
  }

  /** Ends one session at once; ending it again is not an error. */
  async revoke(principal: Principal, sessionId: string, origin?: ChangeOrigin): Promise<void> {
    assertMayMint(principal);
    const session = await this.sessionToEnd(principal.environment, sessionId);
    if (session === null)
      throw notFound(`No embed session with id ${JSON.stringify(sessionId)} exists in the ${principal.environment} environment.`);
    if (session === 'ended') return;
    const at = this.now().toISOString();
    await this.sessions.revokeEmbedSession(
      session,
      at,
      sessionRevoked(session, at, { keyId: principal.keyId, fields: [], clientAddress: origin?.ip ?? null }),
    );
  }

  /** Writes the mints counted since the last flush (serving does every few seconds, and at shutdown). */
  flushActivity(): Promise<void> {
    return this.deps.activity.flush();
  }

  /**
   * The session an id names, as it is to be stored when ended; 'ended' when
   * nothing is left to end (ended before, expired, or its group deleted,
   * which ended every session of it); null when this environment never
   * minted it.
   */
  private async sessionToEnd(environment: Environment, sessionId: string): Promise<EmbedSessionRecord | 'ended' | null> {
    const opened = (await this.deps.sessionIds.forEnvironment(environment)).open(sessionId);
    if (opened.kind === 'unknown') return null;
    const stored = await this.sessions.findEmbedSession(environment, sessionId);
    if (stored) return stored.revokedAt === null ? stored : 'ended';
    if (opened.kind === 'stored') return null;
    const now = this.now();
    if (opened.expiresAt * 1000 <= now.getTime()) return 'ended';
    const group = await this.groups.findUserGroupByTeamId(environment, opened.teamId);
    if (!group) return 'ended';
    return {
      sessionId,
      environment,
      teamId: group.teamId,
      providedId: group.providedId,
      // The group's token now: had it been rotated since the mint, the session would have ended with it.
      tokenVersion: tokenVersionOf(group.tokenHash),
      createdAt: now.toISOString(),
      expiresAt: new Date(opened.expiresAt * 1000).toISOString(),
      revokedAt: null,
    };
  }

  /**
   * RFC 7662 for embed tokens: active only when the signature (by a key of
   * the API key's environment), issuer, audience, type and expiry hold, the
   * token is of the key's environment, its session was not ended, and its
   * group still holds the token it was minted under. The claims answered are
   * the token's own, which its holder can read anyway, and which this key
   * could have minted.
   */
  async introspect(principal: Principal, token: string): Promise<Introspection> {
    // A dashboard key reads data sources and the revocation feed only: what a token says is for the keys that mint or read.
    if (!may(principal, 'read') && !may(principal, 'mint'))
      throw forbidden(
        `This API key is ${keyKind(principal.access)}; embed sessions are introspected with a read-write, read-only or embed key.`,
      );
    const claims = await this.verifiedClaims(principal.environment, token);
    if (claims === null || claims === 'expired' || claims.env !== principal.environment) return { active: false };
    const opened = (await this.deps.sessionIds.forEnvironment(principal.environment)).open(claims.jti);
    const group = this.groups.findUserGroup(principal.environment, claims.sub);
    if ((await this.endedBecause(principal.environment, claims, opened, this.now(), group)) !== null) return { active: false };
    return { active: true, ...claims };
  }

  /** The environment's revocations after `after` (a cursor from a previous page), oldest first. */
  async revocations(
    principal: Principal,
    page: { after?: string; limit?: number },
  ): Promise<{ revocations: EmbedRevocation[]; nextCursor: string }> {
    const seal = await this.deps.positions.forEnvironment(principal.environment);
    const after = page.after === undefined ? 0 : seal.openCursor('revocations', page.after, 'after');
    const limit = page.limit ?? EMBED_LIMITS.revocationsPageDefault;
    const revocations = await this.sessions.listEmbedRevocations(principal.environment, after, limit, this.now().toISOString());
    const last = revocations.at(-1)?.sequence ?? after;
    return { revocations, nextCursor: seal.seal('revocations', last) };
  }

  /**
   * The token's claims when its signature (by a key of the environment), issuer, audience and type hold
   * and it has not expired, or expired at most `graceSeconds` ago; 'expired' when it expired before
   * that; null for anything else (garbage, a bad signature, another environment's).
   */
  private async verifiedClaims(environment: Environment, token: string, graceSeconds = 0): Promise<EmbedClaims | 'expired' | null> {
    try {
      const { kid } = decodeProtectedHeader(token);
      const key = kid === undefined ? undefined : this.deps.signingKeys[environment].verificationKey(kid);
      if (!key) return null;
      const { payload } = await jwtVerify(token, key.publicKey, {
        algorithms: [key.algorithm],
        issuer: this.deps.settings[environment].issuer,
        audience: this.deps.settings[environment].audience,
        typ: EMBED_TOKEN_TYPE,
        currentDate: this.now(),
        clockTolerance: graceSeconds,
        requiredClaims: ['sub', 'jti', 'exp', 'iat'],
      });
      return typeof payload.jti === 'string' &&
        typeof payload.sub === 'string' &&
        typeof payload['tv'] === 'string' &&
        (payload['vid'] === undefined || typeof payload['vid'] === 'string')
        ? (payload as unknown as EmbedClaims)
        : null;
    } catch (error) {
      // Garbage, a bad signature: all the same answer, as RFC 7662 asks; expiry is told apart for renewal.
      return error instanceof errors.JWTExpired ? 'expired' : null;
    }
  }

  /** What the group inherits: a group without a parent costs no second read. */
  private async inherited(
    group: UserGroupRecord,
  ): Promise<{ ancestors: string[]; properties: Properties | null; mapping: Mapping | null }> {
    if (group.parentTeamId === null || group.parentTeamId === undefined)
      return { ancestors: [], properties: group.properties, mapping: group.mapping };
    const lineage = await this.groups.findUserGroupLineage(group.environment, group.providedId);
    // Deleted between the two reads: mint for what was found, as a session minted a moment earlier would be.
    if (!lineage) return { ancestors: [], properties: group.properties, mapping: group.mapping };
    return inheritedFrom(lineage);
  }

  private async descendantIds(group: UserGroupRecord): Promise<string[]> {
    const max = EMBED_LIMITS.descendantsMax;
    const page = await this.groups.listDescendants(group.environment, group.providedId, {
      beforeTeamId: Number.MAX_SAFE_INTEGER,
      limit: max + 1,
    });
    if (page.length > max) {
      throw conflict(
        `User group ${JSON.stringify(group.providedId)} has more than ${max} descendants; "include_descendants" lists at most ${max}. Bind a narrower group, or leave it out.`,
      );
    }
    return page.map((d) => d.providedId);
  }

  private async findGroup(principal: Principal, request: EmbedSessionRequest): Promise<UserGroupRecord> {
    if ((request.userGroupId === undefined) === (request.userGroupToken === undefined)) {
      throw invalidRequest('Give exactly one of "user_group_id" or "user_group_token".');
    }
    if (request.userGroupId !== undefined) {
      const group = await this.groups.findUserGroup(principal.environment, request.userGroupId);
      if (!group)
        throw notFound(
          `No user group with "user_group_id" ${JSON.stringify(request.userGroupId)} exists in the ${principal.environment} environment.`,
        );
      return group;
    }
    // Built only when thrown: an Error captures a stack trace.
    const unknown = () =>
      notFound(
        `No user group in the ${principal.environment} environment holds this "user_group_token": it is unknown, malformed or was rotated.`,
      );
    if (!userGroupTokenFormat.isWellFormed(request.userGroupToken!)) throw unknown();
    const group = await this.groups.findUserGroupByTokenHash(principal.environment, hashSecret(request.userGroupToken!));
    if (!group) throw unknown();
    return group;
  }
}

/** What a group inherits along the lineage read with it. */
function inheritedFrom(lineage: UserGroupLineage): { ancestors: string[]; properties: Properties | null; mapping: Mapping | null } {
  return { ancestors: lineage.ancestors.map((a) => a.providedId), ...effectiveValues([...lineage.ancestors, lineage.group]) };
}

/** Whether origins a token carries pass today's rule: a session minted under an older, looser one is not renewed. */
function originsStillAccepted(origins: readonly string[]): boolean {
  try {
    checkOrigins(origins);
    return true;
  } catch {
    return false;
  }
}

function assertMayMint(principal: Principal): void {
  if (!may(principal, 'mint'))
    throw forbidden(`This API key is ${keyKind(principal.access)}; embed sessions are minted and ended with a read-write or embed key.`);
}
