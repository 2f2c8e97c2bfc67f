import type { AuditContext } from '../audit/audit.js';
import { sessionRevocation, type EmbedSessionRecord } from './embed-session.js';
import { signingKeyRotatedData } from '../events/event-payload.js';
import type { SigningKeyRecord } from '../signing-keys/signing-key.js';
import { auditedChange, unauditedEvent, type WriteConsequences } from '../kernel/write-consequences.js';

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

/** A signing key rotated in: its event in the key's environment, so verifiers can fetch the new key ahead of its use. */
export function signingKeyRotated(key: SigningKeyRecord): WriteConsequences {
  return unauditedEvent('signing_key.rotated', key.createdAt, signingKeyRotatedData(key.environment, key.kid, key.activatesAt));
}
