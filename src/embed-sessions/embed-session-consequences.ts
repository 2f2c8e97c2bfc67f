import type { AuditContext } from '../audit/audit.js';
import { type EmbedSessionRecord } from './embed-session.js';
import { sessionRevocation } from '../consequences/embed-revocation.js';
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
