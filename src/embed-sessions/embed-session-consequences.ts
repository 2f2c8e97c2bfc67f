import type { AuditContext } from '../audit/audit.js';
import { type EmbedSessionRecord } from './embed-session.js';
import { sessionRevocation, viewerRevocation } from '../consequences/embed-revocation.js';
import type { Environment } from '../kernel/environment.js';
import { signingKeyRotatedData } from '../events/event-payload.js';
import type { SigningKeyRecord } from '../signing-keys/signing-key.js';
import { auditedChange, unauditedEvent, type WriteConsequences } from '../consequences/write-consequences.js';

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

/** A signing key rotated in: its event in the key's environment, so verifiers can fetch the new key ahead of its use. */
export function signingKeyRotated(key: SigningKeyRecord): WriteConsequences {
  return unauditedEvent('signing_key.rotated', key.createdAt, signingKeyRotatedData(key.environment, key.kid, key.activatesAt));
}
