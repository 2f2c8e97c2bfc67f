import type { AuditContext } from '../audit/audit.js';
import type { Environment } from '../kernel/environment.js';
import type { WriteConsequences } from '../consequences/write-consequences.js';

type MetabaseAction = 'metabase.configured' | 'metabase.removed' | 'metabase.token_minted';

/**
 * What a Metabase action leaves: an audit record (who, from where, the field or parameter names; never the secret
 * or a token). No event: these change no group, and a webhook receiver has nothing to act on.
 */
export function metabaseRecord(
  action: MetabaseAction,
  environment: Environment,
  at: string,
  audit: AuditContext,
  group: { teamId: number; providedId: string } | null = null,
  viewerId: string | null = null,
): WriteConsequences {
  return {
    audit: [
      {
        at,
        action,
        environment,
        teamId: group?.teamId ?? null,
        providedId: group?.providedId ?? null,
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
