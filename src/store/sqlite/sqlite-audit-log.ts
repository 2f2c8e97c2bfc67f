import type Database from 'better-sqlite3';
import type { AuditQuery, AuditRecord } from '../../audit/audit.js';
import type { AuditStore } from '../../audit/audit-store.js';
import type { SqliteHealth } from './sqlite-health.js';
import { toAuditRecord, type AuditRow } from '../rows.js';

/**
 * The SQLite audit log: appended by the other ports' writes inside their own
 * transaction (SqliteConsequences), read by `ugs audit` and the export.
 */
export class SqliteAuditLog implements AuditStore {
  private readonly statements;

  constructor(
    private readonly db: Database.Database,
    private readonly health: SqliteHealth,
  ) {
    this.statements = {
      importRecord: db.prepare(
        `INSERT INTO audit_log (id, at, action, environment, team_id, provided_id, key_id, fields, client_address, webhook_id, viewer_id)
         VALUES (@id, @at, @action, @environment, @teamId, @providedId, @keyId, @fields, @clientAddress, @webhookId, @viewerId)`,
      ),
      listAfter: db.prepare<[number, number], AuditRow>('SELECT * FROM audit_log WHERE id > ? ORDER BY id LIMIT ?'),
    };
  }

  /** Inserts an exported record as it is, id included; call inside the import's transaction. */
  importRecord(record: AuditRecord): void {
    this.statements.importRecord.run({
      ...record,
      fields: JSON.stringify(record.fields),
      webhookId: record.webhookId ?? null,
      viewerId: record.viewerId ?? null,
    });
  }

  async listAuditRecords(query: AuditQuery): Promise<AuditRecord[]> {
    this.health.assertUsable();
    const where: string[] = [];
    const values: Record<string, unknown> = { limit: query.limit };
    if (query.group && 'teamId' in query.group) {
      where.push('team_id = @teamId');
      values.teamId = query.group.teamId;
    } else if (query.group) {
      where.push('provided_id = @providedId');
      values.providedId = query.group.providedId;
    }
    if (query.since) {
      where.push('at >= @since');
      values.since = query.since;
    }
    if (query.environment) {
      where.push('environment = @environment');
      values.environment = query.environment;
    }
    if (query.beforeId !== undefined) {
      where.push('id < @beforeId');
      values.beforeId = query.beforeId;
    }
    // Filters vary per call, so this one statement is prepared on demand (it is not on the request path).
    const sql = `SELECT * FROM audit_log ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id${query.newestFirst ? ' DESC' : ''} LIMIT @limit`;
    return this.db.prepare<Record<string, unknown>, AuditRow>(sql).all(values).map(toAuditRecord);
  }

  async listAuditRecordsAfter(afterId: number, limit: number): Promise<AuditRecord[]> {
    this.health.assertUsable();
    return this.statements.listAfter.all(afterId, limit).map(toAuditRecord);
  }
}
