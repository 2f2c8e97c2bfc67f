import type { AuditContext } from '../audit/audit.js';
import type { Environment } from '../kernel/environment.js';
import { auditedChange, type WriteConsequences } from '../consequences/write-consequences.js';

/**
 * A change of the environment's Metabase settings: an audit record and its event (metabase.configured names the
 * changed fields, "secret_key" among them, never a value), as each data source change has. A webhook receiver learns
 * that the site or key changed, e.g. to reload a Metabase it runs.
 */
const settingsChange =
  (action: 'metabase.configured' | 'metabase.removed') =>
  (environment: Environment, at: string, audit: AuditContext): WriteConsequences =>
    auditedChange(action, at, { environment, teamId: null, providedId: null }, audit);

export const metabaseConfigured = settingsChange('metabase.configured');
export const metabaseRemoved = settingsChange('metabase.removed');

/**
 * A mint changes nothing, so no event (an embed session's mint emits none either); its audit record says who
 * minted for which group (and viewer), from where, and in `fields` the resource kind and each locked parameter with
 * where its value came from (`params.tenant=user_group_id`): never a value, the secret or the token.
 */
export function metabaseTokenMinted(
  environment: Environment,
  at: string,
  audit: AuditContext,
  group: { teamId: number; providedId: string },
  viewerId: string | null,
): WriteConsequences {
  return {
    audit: [
      {
        at,
        action: 'metabase.token_minted',
        environment,
        teamId: group.teamId,
        providedId: group.providedId,
        keyId: audit.keyId,
        fields: audit.fields,
        clientAddress: audit.clientAddress ?? null,
        ...(viewerId === null ? {} : { viewerId }),
      },
    ],
    events: [],
    revocations: [],
  };
}
