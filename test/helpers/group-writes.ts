import { NO_AUDIT_DETAIL, type AuditContext } from '../../src/audit/audit.js';
import type { EmbedSessionRecord } from '../../src/embed-sessions/embed-session.js';
import { sessionRevoked } from '../../src/embed-sessions/embed-session-consequences.js';
import type { EmbedSessionStore } from '../../src/embed-sessions/embed-session-store.js';
import type { Environment } from '../../src/kernel/environment.js';
import { groupCreated, groupsDeleted, groupUpdated, tokenRotated } from '../../src/user-groups/user-group-consequences.js';
import type { NewUserGroup, TokenReplacement, UserGroupChanges, UserGroupStore } from '../../src/user-groups/user-group-store.js';
import { viewerSessionsRevoked } from '../../src/viewers/viewer-consequences.js';

interface Groups {
  readonly userGroups: UserGroupStore;
}

interface Sessions {
  readonly embedSessions: EmbedSessionStore;
}

/**
 * The store writes of user groups, embed sessions and viewers as the services
 * make them: each hands the store the consequences the domain builds for it
 * (src/user-groups/user-group-consequences.ts,
 * src/embed-sessions/embed-session-consequences.ts,
 * src/viewers/viewer-consequences.ts), audited as `audit` says; without one,
 * as a change no key made. Async, as the store methods are: consequences the
 * domain cannot build reject. For tests that set up or observe stored state; a
 * test of what a store does with the consequences it is handed calls the port.
 */
export async function insertGroup(store: Groups, group: NewUserGroup, audit: AuditContext = NO_AUDIT_DETAIL) {
  return store.userGroups.insertUserGroupIfAbsent(group, groupCreated(group, audit));
}

export async function updateGroup(
  store: Groups,
  environment: Environment,
  providedId: string,
  changes: UserGroupChanges,
  audit: AuditContext = NO_AUDIT_DETAIL,
) {
  return store.userGroups.updateUserGroup(environment, providedId, changes, groupUpdated(environment, providedId, changes, audit));
}

export async function replaceToken(store: Groups, replacement: TokenReplacement, audit: AuditContext = NO_AUDIT_DETAIL) {
  return store.userGroups.replaceToken(replacement, tokenRotated(replacement, audit));
}

export async function deleteGroup(
  store: Groups,
  environment: Environment,
  providedId: string,
  deletedAt: string,
  audit: AuditContext = NO_AUDIT_DETAIL,
  options?: { cascade?: boolean },
) {
  return store.userGroups.deleteUserGroup(environment, providedId, groupsDeleted(deletedAt, audit), options);
}

export async function revokeSession(
  store: Sessions,
  session: EmbedSessionRecord,
  revokedAt: string,
  audit: AuditContext = NO_AUDIT_DETAIL,
) {
  return store.embedSessions.revokeEmbedSession(session, revokedAt, sessionRevoked(session, revokedAt, audit));
}

export async function revokeViewer(
  store: Sessions,
  environment: Environment,
  viewerId: string,
  revokedAt: string,
  audit: AuditContext = NO_AUDIT_DETAIL,
) {
  return store.embedSessions.revokeViewerSessions(revokedAt, viewerSessionsRevoked(environment, viewerId, revokedAt, audit));
}
