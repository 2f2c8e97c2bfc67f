import type { AuditContext } from '../audit/audit.js';
import type { Environment } from '../kernel/environment.js';
import { auditedChange, type WriteConsequences } from '../consequences/write-consequences.js';

/** What each change of a data source records: an audit record and its event, naming the data source, never a secret. */
const dataSourceChange =
  (action: 'data_source.created' | 'data_source.updated' | 'data_source.deleted') =>
  (environment: Environment, dataSourceId: string, at: string, audit: AuditContext): WriteConsequences =>
    auditedChange(action, at, { environment, teamId: null, providedId: null, dataSourceId }, audit);

export const dataSourceCreated = dataSourceChange('data_source.created');
export const dataSourceUpdated = dataSourceChange('data_source.updated');
export const dataSourceDeleted = dataSourceChange('data_source.deleted');

/**
 * A connection check changes nothing, so no event; its audit record says who probed which data source, from
 * where, and (in `fields`) the category it came to.
 */
export function dataSourceChecked(environment: Environment, dataSourceId: string, at: string, audit: AuditContext): WriteConsequences {
  return {
    audit: [
      {
        at,
        action: 'data_source.checked',
        environment,
        teamId: null,
        providedId: null,
        keyId: audit.keyId,
        fields: audit.fields,
        clientAddress: audit.clientAddress ?? null,
        dataSourceId,
      },
    ],
    events: [],
    revocations: [],
  };
}
