import type { AuditQuery, AuditRecord } from '../../audit/audit.js';
import type { AuditStore } from '../../audit/audit-store.js';
import { toAuditRecord, type AuditRow } from '../rows.js';
import type { SqlDatabase } from './sql-database.js';
import { statement, type SqlParameters, type SqlStatement } from './sql-statement.js';

/** Inserts an exported record as it is, id included, inside the import's transaction (parameters: importedAuditRecord). */
export const IMPORT_AUDIT_RECORD = statement(
  'importAuditRecord',
  `INSERT INTO audit_log (id, at, action, environment, team_id, provided_id, key_id, fields, client_address, webhook_id, viewer_id, data_source_id)
   VALUES (@id, @at, @action, @environment, @teamId, @providedId, @keyId, @fields, @clientAddress, @webhookId, @viewerId, @dataSourceId)`,
);

/** IMPORT_AUDIT_RECORD's parameters for an exported record. */
export function importedAuditRecord(record: AuditRecord): SqlParameters {
  return {
    ...record,
    fields: JSON.stringify(record.fields),
    webhookId: record.webhookId ?? null,
    viewerId: record.viewerId ?? null,
    dataSourceId: record.dataSourceId ?? null,
  };
}

const LIST_AFTER = statement<AuditRow>('listAuditRecordsAfter', 'SELECT * FROM audit_log WHERE id > @afterId ORDER BY id LIMIT @limit');

/** The filters a listing may combine, each its parameter's condition. */
const FILTERS = [
  ['teamId', 'team_id = @teamId'],
  ['providedId', 'provided_id = @providedId'],
  ['since', 'at >= @since'],
  ['environment', 'environment = @environment'],
  ['beforeId', 'id < @beforeId'],
] as const;

type Filter = (typeof FILTERS)[number][0];

/** A listing's statement per combination of filters and order (at most 32), made on first use: each keeps to the indexes it can use. */
const LISTS = new Map<string, SqlStatement<AuditRow>>();

function listStatement(filters: readonly (typeof FILTERS)[number][], newestFirst: boolean): SqlStatement<AuditRow> {
  const key = `${filters.map(([name]) => name).join('_')}${newestFirst ? '_desc' : ''}`;
  let list = LISTS.get(key);
  if (list === undefined) {
    const where = filters.length > 0 ? `WHERE ${filters.map(([, condition]) => condition).join(' AND ')}` : '';
    list = statement<AuditRow>(
      `listAuditRecords_${key}`,
      `SELECT * FROM audit_log ${where} ORDER BY id${newestFirst ? ' DESC' : ''} LIMIT @limit`,
    );
    LISTS.set(key, list);
  }
  return list;
}

/**
 * The audit log, as `ugs audit`, the console and the export read it; the
 * writes append to it with their consequences (SqliteConsequences,
 * postgres-consequences.ts), never through this port.
 */
export class SqlAuditLog implements AuditStore {
  constructor(private readonly db: SqlDatabase) {}

  async listAuditRecords(query: AuditQuery): Promise<AuditRecord[]> {
    const group = query.group;
    const values: Record<Filter | 'limit', unknown> = {
      teamId: group && 'teamId' in group ? group.teamId : undefined,
      providedId: group && 'providedId' in group ? group.providedId : undefined,
      since: query.since || undefined,
      environment: query.environment || undefined,
      beforeId: query.beforeId,
      limit: query.limit,
    };
    const filters = FILTERS.filter(([name]) => values[name] !== undefined);
    return (await this.db.all(listStatement(filters, query.newestFirst === true), values)).map(toAuditRecord);
  }

  async listAuditRecordsAfter(afterId: number, limit: number): Promise<AuditRecord[]> {
    return (await this.db.all(LIST_AFTER, { afterId, limit })).map(toAuditRecord);
  }
}
