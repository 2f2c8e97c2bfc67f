import type { AuditContext } from '../audit/audit.js';
import { viewerRevocation } from '../consequences/embed-revocation.js';
import type { Environment } from '../kernel/environment.js';
import { auditedChange, type WriteConsequences } from '../consequences/write-consequences.js';

/**
 * A viewer's sessions ended, in every group (audited, an event, a feed entry):
 * the viewer is the subject, no group. ViewerService hands these to the store
 * (ViewerStore.revokeViewerSessions).
 */
export function viewerSessionsRevoked(environment: Environment, viewerId: string, at: string, audit: AuditContext): WriteConsequences {
  const revoked = auditedChange('viewer.sessions_revoked', at, { environment, teamId: null, providedId: null, viewerId }, audit);
  return { ...revoked, revocations: [viewerRevocation(environment, viewerId, at)] };
}
