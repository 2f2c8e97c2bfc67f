import type { Environment } from '../../kernel/environment.js';
import type { EventRecord } from '../../events/event.js';
import type { EventStore } from '../../events/event-store.js';
import { toEventRecord, type EventRow } from '../rows.js';
import type { SqlDatabase } from './sql-database.js';
import { statement } from './sql-statement.js';

/** Expired events forgotten per read that finds any: enough to outpace any write rate, small enough to cost nothing. */
const PRUNE_PER_READ = 10;

const LIST =
  'SELECT * FROM events WHERE environment = @environment AND sequence > @afterSequence AND at >= @notBefore ORDER BY sequence LIMIT @limit';

/**
 * A poll. On PostgreSQL it forgets a few expired events on its way, in the
 * same statement (rows another poll is deleting are skipped); on SQLite, which
 * deletes in no CTE, the poll only reads (see SqlEvents.listEvents).
 */
const LIST_EVENTS = statement<EventRow>('listEvents', {
  sqlite: LIST,
  postgres: `WITH pruned AS (
               DELETE FROM events WHERE sequence IN (
                 SELECT sequence FROM events WHERE at < @notBefore LIMIT ${PRUNE_PER_READ} FOR UPDATE SKIP LOCKED)
             )
             ${LIST}`,
});
const SQLITE_ANY_EXPIRED = statement<{ one: number }>('anyExpiredEvent', 'SELECT 1 AS one FROM events WHERE at < @notBefore LIMIT 1');
const SQLITE_PRUNE = statement(
  'pruneEvents',
  `DELETE FROM events WHERE sequence IN (SELECT sequence FROM events WHERE at < @notBefore ORDER BY at LIMIT ${PRUNE_PER_READ})`,
);

const RECENT = 'SELECT * FROM events WHERE environment = @environment AND at >= @notBefore';
const LIST_RECENT = statement<EventRow>('listRecentEvents', `${RECENT} ORDER BY sequence DESC LIMIT @limit`);
const LIST_RECENT_OF_GROUP = statement<EventRow>('listRecentEventsOfGroup', {
  sqlite: `${RECENT} AND json_extract(data, '$.user_group_id') = @userGroupId ORDER BY sequence DESC LIMIT @limit`,
  postgres: `${RECENT} AND data->>'user_group_id' = @userGroupId ORDER BY sequence DESC LIMIT @limit`,
});

/**
 * The outbox, as GET /api/events and the console read it. The writes append
 * to it with their consequences, in their own transactions, numbered in
 * commit order (SQLite has one writer at a time; PostgreSQL numbers events
 * under FEED_ORDER_LOCK, see postgres-feed-order.ts), so a reader resuming
 * from the last sequence it saw misses none.
 */
export class SqlEvents implements EventStore {
  constructor(private readonly db: SqlDatabase) {}

  async listEvents(environment: Environment, afterSequence: number, limit: number, notBefore: string): Promise<EventRecord[]> {
    // On SQLite a poll costs one index probe; only when something expired does it write (in group commit, as every write).
    if (this.db.dialect === 'sqlite' && (await this.db.first(SQLITE_ANY_EXPIRED, { notBefore })))
      await this.db.write(SQLITE_PRUNE, { notBefore });
    return (await this.db.all(LIST_EVENTS, { environment, afterSequence, notBefore, limit })).map(toEventRecord);
  }

  async listRecentEvents(environment: Environment, limit: number, notBefore: string, userGroupId?: string): Promise<EventRecord[]> {
    const rows =
      userGroupId === undefined
        ? await this.db.all(LIST_RECENT, { environment, notBefore, limit })
        : await this.db.all(LIST_RECENT_OF_GROUP, { environment, notBefore, userGroupId, limit });
    return rows.map(toEventRecord);
  }
}
