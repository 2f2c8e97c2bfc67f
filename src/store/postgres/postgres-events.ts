import type { Environment } from '../../domain/environment.js';
import type { EventRecord, EventType } from '../../domain/event.js';
import type { EventStore } from '../../domain/event-store.js';
import { FEED_ORDER_LOCK } from './postgres-feed-order.js';
import type { PostgresQueries } from './postgres-queries.js';

/**
 * The CTE that writes the events of the audit rows `audited` returned, in the
 * same statement as the change and its audit record. Appended to every audited
 * statement (postgres-statements.ts). `data` is the shape eventData
 * (src/domain/event-payload.ts) builds: names only, nulls left out.
 *
 * It takes the revocation feed's lock (FEED_ORDER_LOCK) before numbering, held
 * until commit, so events become visible in sequence order and a reader's
 * cursor never passes one still to come. One lock for both feeds: a statement
 * that writes to both cannot deadlock against another.
 */
export const EVENTS_OF_AUDITED = `evented AS (
    INSERT INTO events (id, environment, type, at, data)
    SELECT 'evt_' || replace(gen_random_uuid()::text, '-', ''), a.environment, a.action, a.at,
           jsonb_strip_nulls(jsonb_build_object(
             'api_environment_tag', a.environment,
             'user_group_id', a.provided_id,
             'team_id', a.team_id,
             'api_key_id', CASE WHEN a.action LIKE 'api_key.%' THEN a.key_id END,
             'webhook_id', a.webhook_id,
             'changed', CASE WHEN a.action IN ('user_group.updated', 'user_group.moved') THEN a.fields::jsonb END))
    FROM audited a, ${FEED_ORDER_LOCK}
    ORDER BY a.id
  )`;

export interface EventRow {
  sequence: number;
  id: string;
  environment: string;
  type: string;
  at: string;
  data: EventRecord['data'];
}

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
    const { rows } = await this.queries.queryText<EventRow>({ name: 'ugs_listEvents', text, values: [environment, afterSequence, notBefore, limit] });
    return rows.map(toEventRecord);
  }

  async listRecentEvents(environment: Environment, limit: number, notBefore: string, userGroupId?: string): Promise<EventRecord[]> {
    const values = [environment, notBefore, userGroupId ?? null, limit];
    const { rows } = await this.queries.queryText<EventRow>({ name: 'ugs_listRecentEvents', text: SQL.listRecentEvents, values });
    return rows.map(toEventRecord);
  }
}

export function toEventRecord(row: EventRow): EventRecord {
  return {
    id: row.id,
    sequence: row.sequence,
    environment: row.environment as Environment,
    type: row.type as EventType,
    timestamp: row.at,
    data: row.data,
  };
}
