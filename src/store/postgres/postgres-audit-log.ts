import type { AuditQuery, AuditRecord } from '../../audit/audit.js';
import type { AuditStore } from '../../audit/audit-store.js';
import type { PostgresQueries } from './postgres-queries.js';
import { toAuditRecord, type AuditRow } from '../rows.js';

/** The PostgreSQL audit log, as `ugs audit` and the export read it; writes append to it with their consequences (postgres-consequences.ts).
 * */
export class PostgresAuditLog implements AuditStore {
  constructor(private readonly queries: PostgresQueries) {}

  async listAuditRecords(query: AuditQuery): Promise<AuditRecord[]> {
    const where: string[] = [];
    const values: unknown[] = [];
    if (query.group && 'teamId' in query.group) where.push(`team_id = $${values.push(query.group.teamId)}`);
    else if (query.group) where.push(`provided_id = $${values.push(query.group.providedId)}`);
    if (query.since) where.push(`at >= $${values.push(query.since)}`);
    if (query.environment) where.push(`environment = $${values.push(query.environment)}`);
    if (query.beforeId !== undefined) where.push(`id < $${values.push(query.beforeId)}`);
    const text = `SELECT * FROM audit_log ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id${query.newestFirst ? ' DESC' : ''} LIMIT $${values.push(query.limit)}`;
    return (await this.queries.queryText<AuditRow>({ text, values })).rows.map(toAuditRecord);
  }

  async listAuditRecordsAfter(afterId: number, limit: number): Promise<AuditRecord[]> {
    return (await this.queries.query<AuditRow>('listAuditAfter', [afterId, limit])).rows.map(toAuditRecord);
  }
}
