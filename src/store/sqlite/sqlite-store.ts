import type Database from 'better-sqlite3';
import { SILENT_STORE_LOG, type Store, type StoreLog } from '../store.js';
import { DatabaseFileWatch } from './database-file-watch.js';
import { BUSY_TIMEOUT_MS, GroupCommit } from './group-commit.js';
import { openSqlite } from './open-sqlite.js';
import { RevocationCounter } from './revocation-counter.js';
import { SqliteConsequences } from './sqlite-consequences.js';
import { SqliteDatabase } from './sqlite-database.js';
import { SqlApiKeys } from '../sql/sql-api-keys.js';
import { SqlAuditLog } from '../sql/sql-audit-log.js';
import { SqlConsoleSessions } from '../sql/sql-console-sessions.js';
import { SqlEvents } from '../sql/sql-events.js';
import { SqlSettings } from '../sql/sql-settings.js';
import { SqlSigningKeys } from '../sql/sql-signing-keys.js';
import { SqlUsage } from '../sql/sql-usage.js';
import { SqliteEmbedSessions } from './sqlite-embed-sessions.js';
import { SqliteHealth } from './sqlite-health.js';
import { SqlTransfer } from '../sql/sql-transfer.js';
import { SqliteUserGroups } from './sqlite-user-groups.js';
import { SqlWebhookDeliveries } from '../sql/sql-webhook-deliveries.js';
import { SqlWebhooks } from '../sql/sql-webhooks.js';
import { SqlDataSources } from '../sql/sql-data-sources.js';
import { SqlMetabase } from '../sql/sql-metabase.js';
import { SqlGroupTags } from '../sql/sql-group-tags.js';
import { SqlCustomers } from '../sql/sql-customers.js';

export interface SqliteStoreOptions {
  /** Path of the database file; its folder is created when missing. */
  path: string;
  /** How long a write waits for another process's lock (the CLI and the server share the file). */
  busyTimeoutMs?: number;
  /** Create a store even where the data dir's store-id names one that is missing (`ugs migrate --create`; see open-sqlite.ts). */
  create?: boolean;
  /** Refuse, creating nothing, when the database does not exist yet (see open-sqlite.ts). */
  mustExist?: boolean;
  /** Where the store says, once, that its file is gone or its disk refuses writes. */
  log?: StoreLog;
}

/**
 * The embedded default store: one SQLite file in WAL mode with
 * synchronous=FULL, so an acknowledged write survives a crash or power loss.
 * better-sqlite3 is synchronous; each method is a few short statements, so
 * the event loop is held for microseconds, and the single connection makes
 * every method atomic with respect to this process's other requests. Writes
 * go through group commit (one transaction and one fsync per burst); group
 * lookups through per-turn batches (one read transaction per burst). Each
 * port is one file beside this one, all sharing the connection.
 *
 * Every call first asks `health` whether the file is still there (a field
 * read); a file deleted or replaced, a disk full or read-only, answer 503
 * `unavailable` (sqlite-health.ts).
 */
export class SqliteStore implements Store {
  readonly userGroups: SqliteUserGroups;
  readonly apiKeys: SqlApiKeys;
  readonly audit: SqlAuditLog;
  readonly events: SqlEvents;
  readonly transfer: SqlTransfer;
  readonly tokenReseal: SqliteUserGroups;
  readonly settings: SqlSettings;
  readonly embedSessions: SqliteEmbedSessions;
  readonly usage: SqlUsage;
  readonly signingKeys: SqlSigningKeys;
  readonly consoleSessions: SqlConsoleSessions;
  readonly webhooks: SqlWebhooks;
  readonly dataSources: SqlDataSources;
  readonly metabase: SqlMetabase;
  readonly groupTags: SqlGroupTags;
  readonly customers: SqlCustomers;
  readonly webhookDeliveries: SqlWebhookDeliveries;
  private readonly pingStatement: Database.Statement;

  private constructor(
    private readonly db: Database.Database,
    busyTimeoutMs: number,
    private readonly health: SqliteHealth,
  ) {
    const groupCommit = new GroupCommit(db, busyTimeoutMs, health);
    const revocations = new RevocationCounter(db, () => db.open && health.usable);
    const consequences = new SqliteConsequences(db);
    const sql = new SqliteDatabase(db, health, groupCommit, consequences, revocations);
    this.events = new SqlEvents(sql);
    this.audit = new SqlAuditLog(sql);
    this.settings = new SqlSettings(sql);
    this.embedSessions = new SqliteEmbedSessions(db, groupCommit, health, consequences);
    this.usage = new SqlUsage(sql);
    this.signingKeys = new SqlSigningKeys(sql);
    this.consoleSessions = new SqlConsoleSessions(sql);
    this.userGroups = new SqliteUserGroups(db, health, groupCommit, consequences);
    this.tokenReseal = this.userGroups;
    this.apiKeys = new SqlApiKeys(sql, revocations);
    this.webhooks = new SqlWebhooks(sql);
    this.dataSources = new SqlDataSources(sql);
    this.metabase = new SqlMetabase(sql);
    this.groupTags = new SqlGroupTags(sql);
    this.customers = new SqlCustomers(sql);
    this.transfer = new SqlTransfer(sql, {
      userGroups: this.userGroups,
      apiKeys: this.apiKeys,
      auditLog: this.audit,
      dataSources: this.dataSources,
      metabase: this.metabase,
      groupTags: this.groupTags,
    });
    this.webhookDeliveries = new SqlWebhookDeliveries(sql);
    this.pingStatement = db.prepare('SELECT 1');
  }

  /** Opens (creating when missing; see open-sqlite.ts for when not) and migrates the database at `options.path`. */
  static async open(options: SqliteStoreOptions): Promise<{ store: SqliteStore; appliedMigrations: string[]; created: boolean }> {
    const busyTimeoutMs = options.busyTimeoutMs ?? BUSY_TIMEOUT_MS;
    const { db, appliedMigrations, created } = await openSqlite({
      path: options.path,
      busyTimeoutMs,
      create: options.create,
      mustExist: options.mustExist,
    });
    const health = new SqliteHealth(options.path, new DatabaseFileWatch(options.path), options.log ?? SILENT_STORE_LOG);
    return { store: new SqliteStore(db, busyTimeoutMs, health), appliedMigrations, created };
  }

  /** Follows the file's identity in the background (commits check it anyway): what a long-running reader needs. */
  monitor(): void {
    this.health.start();
  }

  async ping(): Promise<void> {
    this.health.assertReady();
    this.pingStatement.get();
  }

  /** The file is on this machine: every process that opens it reads the one clock. */
  async clock(): Promise<null> {
    return null;
  }

  async close(): Promise<void> {
    this.health.stop();
    if (this.db.open) this.db.close();
  }
}
