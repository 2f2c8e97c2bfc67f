import type { AuditContext } from '../../audit/audit.js';
import type { EmbedRevocation, EmbedSessionRecord } from '../../embed-sessions/embed-session.js';
import type { SessionActivityBatch, SessionActivityCount } from '../../embed-sessions/session-activity.js';
import type { ViewerActivity, ViewerPosition } from '../../viewers/viewer.js';
import type { EmbedSessionStore } from '../../embed-sessions/embed-session-store.js';
import type { Environment } from '../../kernel/environment.js';
import type { SigningKeyRecord } from '../../signing-keys/signing-key.js';
import type { SigningKeyStore } from '../../signing-keys/signing-key-store.js';
import type { StoreTiming } from './store-timing.js';
import type { GroupUsage, UsageBucket, UsageRange } from '../../usage/usage.js';
import type { UsageStore } from '../../usage/usage-store.js';

/* The embed session ports, timed as timed-ports.ts times the others. */

export class TimedEmbedSessionStore implements EmbedSessionStore {
  constructor(
    private readonly inner: EmbedSessionStore,
    private readonly timing: StoreTiming,
  ) {}

  findEmbedSession(environment: Environment, sessionId: string): Promise<EmbedSessionRecord | null> {
    return this.timing.time('findEmbedSession', () => this.inner.findEmbedSession(environment, sessionId));
  }
  revokeEmbedSession(session: EmbedSessionRecord, revokedAt: string, audit: AuditContext): Promise<boolean> {
    return this.timing.time('revokeEmbedSession', () => this.inner.revokeEmbedSession(session, revokedAt, audit));
  }
  revokeViewerSessions(environment: Environment, viewerId: string, revokedAt: string, audit: AuditContext): Promise<void> {
    return this.timing.time('revokeViewerSessions', () => this.inner.revokeViewerSessions(environment, viewerId, revokedAt, audit));
  }
  latestViewerRevocation(environment: Environment, viewerId: string, now: string): Promise<string | null> {
    return this.timing.time('latestViewerRevocation', () => this.inner.latestViewerRevocation(environment, viewerId, now));
  }
  listViewers(environment: Environment, teamId: number, after: ViewerPosition | null, limit: number): Promise<ViewerActivity[]> {
    return this.timing.time('listViewers', () => this.inner.listViewers(environment, teamId, after, limit));
  }
  addSessionActivity(batch: SessionActivityBatch, now: string, forgetBefore?: string): Promise<void> {
    return this.timing.time('addSessionActivity', () => this.inner.addSessionActivity(batch, now, forgetBefore));
  }
  listSessionActivity(environment: Environment, teamId: number, fromHour: string, toHour: string): Promise<SessionActivityCount[]> {
    return this.timing.time('listSessionActivity', () => this.inner.listSessionActivity(environment, teamId, fromHour, toHour));
  }
  listEmbedRevocations(environment: Environment, afterSequence: number, limit: number, now: string): Promise<EmbedRevocation[]> {
    return this.timing.time('listEmbedRevocations', () => this.inner.listEmbedRevocations(environment, afterSequence, limit, now));
  }
}

export class TimedSigningKeyStore implements SigningKeyStore {
  constructor(
    private readonly inner: SigningKeyStore,
    private readonly timing: StoreTiming,
  ) {}

  listSigningKeys(environment: Environment): Promise<SigningKeyRecord[]> {
    return this.timing.time('listSigningKeys', () => this.inner.listSigningKeys(environment));
  }
  insertSigningKey(key: SigningKeyRecord, announce?: boolean): Promise<boolean> {
    return this.timing.time('insertSigningKey', () => this.inner.insertSigningKey(key, announce));
  }
  deleteSigningKeys(environment: Environment, kids: readonly string[]): Promise<void> {
    return this.timing.time('deleteSigningKeys', () => this.inner.deleteSigningKeys(environment, kids));
  }
  replaceSigningKeyCiphertext(environment: Environment, kid: string, expected: Buffer, next: Buffer): Promise<boolean> {
    return this.timing.time('replaceSigningKeyCiphertext', () => this.inner.replaceSigningKeyCiphertext(environment, kid, expected, next));
  }
}

export class TimedUsageStore implements UsageStore {
  constructor(
    private readonly inner: UsageStore,
    private readonly timing: StoreTiming,
  ) {}

  listUsage(environment: Environment, teamId: number | null, range: UsageRange): Promise<UsageBucket[]> {
    return this.timing.time('listUsage', () => this.inner.listUsage(environment, teamId, range));
  }
  rankGroups(environment: Environment, range: UsageRange, limit: number): Promise<GroupUsage[]> {
    return this.timing.time('rankGroups', () => this.inner.rankGroups(environment, range, limit));
  }
}
