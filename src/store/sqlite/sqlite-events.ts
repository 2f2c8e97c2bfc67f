import { toEventRecord, type EventRow } from '../rows.js';
import type Database from 'better-sqlite3';
import type { Environment } from '../../kernel/environment.js';
import type { EventRecord } from '../../events/event.js';
import type { EventStore } from '../../events/event-store.js';
import type { GroupCommit } from './group-commit.js';
import type { SqliteHealth } from './sqlite-health.js';

/** Expired events forgotten per read that finds any: enough to outpace any write rate, small enough to cost nothing. */
const PRUNE_PER_READ = 10;

/**
 * The SQLite outbox. Appended by SqliteConsequences, so every change writes
 * its events in its own group-commit transaction; SQLite has one writer at a
 * time, so sequence order is commit order.
 */
export class SqliteEvents implements EventStore {
  private readonly statements;

  constructor(
    db: Database.Database,
    private readonly health: SqliteHealth,
    private readonly groupCommit: GroupCommit,
  ) {
    this.statements = {
      list: db.prepare<[string, number, string, number], EventRow>(
        'SELECT * FROM events WHERE environment = ? AND sequence > ? AND at >= ? ORDER BY sequence LIMIT ?',
      ),
      recent: db.prepare<[string, string, number], EventRow>(
        'SELECT * FROM events WHERE environment = ? AND at >= ? ORDER BY sequence DESC LIMIT ?',
      ),
      recentOfGroup: db.prepare<[string, string, string, number], EventRow>(
        "SELECT * FROM events WHERE environment = ? AND at >= ? AND json_extract(data, '$.user_group_id') = ? ORDER BY sequence DESC LIMIT ?",
      ),
      anyExpired: db.prepare<[string], { one: number }>('SELECT 1 AS one FROM events WHERE at < ? LIMIT 1'),
      prune: db.prepare<[string, number]>(
        'DELETE FROM events WHERE sequence IN (SELECT sequence FROM events WHERE at < ? ORDER BY at LIMIT ?)',
      ),
    };
  }

  async listEvents(environment: Environment, afterSequence: number, limit: number, notBefore: string): Promise<EventRecord[]> {
    this.health.assertUsable();
    // A poll costs one index probe; only when something expired does it write (in group commit, as every write).
    if (this.statements.anyExpired.get(notBefore)) await this.groupCommit.run(() => this.statements.prune.run(notBefore, PRUNE_PER_READ));
    return this.statements.list.all(environment, afterSequence, notBefore, limit).map(toEventRecord);
  }

  async listRecentEvents(environment: Environment, limit: number, notBefore: string, userGroupId?: string): Promise<EventRecord[]> {
    this.health.assertUsable();
    const rows =
      userGroupId === undefined
        ? this.statements.recent.all(environment, notBefore, limit)
        : this.statements.recentOfGroup.all(environment, notBefore, userGroupId, limit);
    return rows.map(toEventRecord);
  }
}
