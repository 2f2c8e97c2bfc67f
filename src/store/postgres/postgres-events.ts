import { toEventRecord, type EventRow } from '../rows.js';
import type { Environment } from '../../kernel/environment.js';
import type { EventRecord } from '../../events/event.js';
import type { EventStore } from '../../events/event-store.js';
import type { PostgresQueries } from './postgres-queries.js';

/** Expired events forgotten per read: enough to outpace any write rate, small enough to cost nothing. */
const PRUNE_PER_READ = 10;

const SQL = {
  listEvents: `WITH pruned AS (
                 DELETE FROM events WHERE sequence IN (
                   SELECT sequence FROM events WHERE at < $3 LIMIT ${PRUNE_PER_READ} FOR UPDATE SKIP LOCKED)
               )
               SELECT * FROM events WHERE environment = $1 AND sequence > $2 AND at >= $3 ORDER BY sequence LIMIT $4`,
  listRecentEvents: `SELECT * FROM events WHERE environment = $1 AND at >= $2 AND ($3::text IS NULL OR data->>'user_group_id' = $3)
                     ORDER BY sequence DESC LIMIT $4`,
} as const;

/** The PostgreSQL outbox, as GET /api/events reads it. */
export class PostgresEvents implements EventStore {
  constructor(private readonly queries: PostgresQueries) {}

  async listEvents(environment: Environment, afterSequence: number, limit: number, notBefore: string): Promise<EventRecord[]> {
    const text = SQL.listEvents;
    const { rows } = await this.queries.queryText<EventRow>({
      name: 'ugs_listEvents',
      text,
      values: [environment, afterSequence, notBefore, limit],
    });
    return rows.map(toEventRecord);
  }

  async listRecentEvents(environment: Environment, limit: number, notBefore: string, userGroupId?: string): Promise<EventRecord[]> {
    const values = [environment, notBefore, userGroupId ?? null, limit];
    const { rows } = await this.queries.queryText<EventRow>({ name: 'ugs_listRecentEvents', text: SQL.listRecentEvents, values });
    return rows.map(toEventRecord);
  }
}
