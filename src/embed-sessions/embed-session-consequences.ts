import type { AuditContext } from '../audit/audit.js';
import { type EmbedSessionRecord } from './embed-session.js';
import { sessionRevocation, viewerRevocation } from '../consequences/embed-revocation.js';
import type { Environment } from '../kernel/environment.js';
import { auditedChange, type WriteConsequences } from '../consequences/write-consequences.js';

/** A session ended (the first time only): audited, and listed in the revocation feed. */
export function sessionRevoked(session: EmbedSessionRecord, at: string, audit: AuditContext): WriteConsequences {
  const revoked = auditedChange(
    'embed_session.revoked',
    at,
    { environment: session.environment, teamId: session.teamId, providedId: session.providedId },
    audit,
  );
  return { ...revoked, revocations: [sessionRevocation(session, at)] };
}

/** A viewer's sessions ended, in every group (audited, an event, a feed entry): the viewer is the subject, no group. */
export function viewerSessionsRevoked(environment: Environment, viewerId: string, at: string, audit: AuditContext): WriteConsequences {
  const revoked = auditedChange('viewer.sessions_revoked', at, { environment, teamId: null, providedId: null, viewerId }, audit);
  return { ...revoked, revocations: [viewerRevocation(environment, viewerId, at)] };
}
