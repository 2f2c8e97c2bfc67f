import pg from 'pg';
import { StartupError } from '../../kernel/errors.js';
import type { Store } from '../store.js';
import { holdsStore, migratePostgres } from './migrate-postgres.js';
import { SqlApiKeys } from '../sql/sql-api-keys.js';
import { SqlAuditLog } from '../sql/sql-audit-log.js';
import { SqlConsoleSessions } from '../sql/sql-console-sessions.js';
import { SqlEvents } from '../sql/sql-events.js';
import { SqlSettings } from '../sql/sql-settings.js';
import { SqlSigningKeys } from '../sql/sql-signing-keys.js';
import { SqlUsage } from '../sql/sql-usage.js';
import { PostgresDatabase } from './postgres-database.js';
import { PostgresQueries } from './postgres-queries.js';
import { SQL } from './postgres-statements.js';
import { SqlTransfer } from '../sql/sql-transfer.js';
import { STORE_TYPES } from './postgres-types.js';
import { PostgresUserGroups } from './postgres-user-groups.js';
import { PostgresEmbedSessions, type RunStatement } from './postgres-embed-sessions.js';
import { SqlWebhookDeliveries } from '../sql/sql-webhook-deliveries.js';
import { SqlWebhooks } from '../sql/sql-webhooks.js';
import { SqlDataSources } from '../sql/sql-data-sources.js';
import { SqlMetabase } from '../sql/sql-metabase.js';
import { SqlGroupTags } from '../sql/sql-group-tags.js';
import { SqlCustomers } from '../sql/sql-customers.js';
import { RevocationListener } from './revocation-listener.js';
import type { RetryPolicy } from './transient-errors.js';

export interface PostgresStoreOptions {
  connectionString: string;
  /** Connections this process may hold; replicas x poolSize must fit the server's max_connections. */
  poolSize: number;
  statementTimeoutMs: number;
  connectTimeoutMs: number;
  retry?: RetryPolicy;
  /** Refuse, creating nothing, when the database holds no store yet (none of its tables). */
  mustExist?: boolean;
}

/** Where a connection string points, without its password, for error messages. */
export function describeDatabase(connectionString: string): string {
  try {
    const url = new URL(connectionString);
    return `${url.hostname}:${url.port || 5432}${url.pathname}`;
  } catch {
    return 'the DATABASE_URL database';
  }
}

/**
 * The store for many replicas: PostgreSQL (or a compatible distributed
 * database). Every request-path statement is a single statement in autocommit,
 * using only INSERT ... ON CONFLICT, UPDATE ... RETURNING and indexed reads,
 * so no transaction spans a round trip. The one advisory lock orders the
 * embed revocation feed (see FEED_ORDER_LOCK). Each port is one file beside
 * this one, all sharing the pool.
 */
export class PostgresStore implements Store {
  readonly userGroups: PostgresUserGroups;
  readonly apiKeys: SqlApiKeys;
  readonly audit: SqlAuditLog;
  readonly events: SqlEvents;
  readonly transfer: SqlTransfer;
  readonly tokenReseal: PostgresUserGroups;
  readonly settings: SqlSettings;
  readonly embedSessions: PostgresEmbedSessions;
  readonly usage: SqlUsage;
  readonly consoleSessions: SqlConsoleSessions;
  readonly signingKeys: SqlSigningKeys;
  readonly webhooks: SqlWebhooks;
  readonly dataSources: SqlDataSources;
  readonly metabase: SqlMetabase;
  readonly groupTags: SqlGroupTags;
  readonly customers: SqlCustomers;
  readonly webhookDeliveries: SqlWebhookDeliveries;

  private constructor(
    private readonly queries: PostgresQueries,
    private readonly revocations: RevocationListener,
  ) {
    this.userGroups = new PostgresUserGroups(queries);
    this.tokenReseal = this.userGroups;
    const sql = new PostgresDatabase(queries);
    this.apiKeys = new SqlApiKeys(sql, revocations);
    this.audit = new SqlAuditLog(sql);
    this.events = new SqlEvents(sql);
    this.settings = new SqlSettings(sql);
    const run: RunStatement = (name, text, values) => queries.queryText({ name: `ugs_${name}`, text, values });
    this.embedSessions = new PostgresEmbedSessions(run);
    this.usage = new SqlUsage(sql);
    this.signingKeys = new SqlSigningKeys(sql);
    this.consoleSessions = new SqlConsoleSessions(sql);
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
  }

  static async open(options: PostgresStoreOptions): Promise<{ store: PostgresStore; appliedMigrations: string[]; created: boolean }> {
    const pool = new pg.Pool({
      connectionString: options.connectionString,
      max: options.poolSize,
      connectionTimeoutMillis: options.connectTimeoutMs,
      statement_timeout: options.statementTimeoutMs,
      application_name: 'user-group-service',
      types: STORE_TYPES,
    });
    // An idle connection that breaks (database restart) must not crash the process; the pool replaces it.
    pool.on('error', () => {});
    try {
      await pool.query(SQL.ping);
    } catch (error) {
      await pool.end();
      throw new StartupError(`Cannot reach PostgreSQL at ${describeDatabase(options.connectionString)}: ${(error as Error).message}`);
    }
    try {
      const existed = await holdsStore(pool);
      if (options.mustExist && !existed) {
        throw new StartupError(
          `No store in the PostgreSQL database ${describeDatabase(options.connectionString)} (none of its tables), and this command creates none: check DATABASE_URL, or make the store with \`ugs keys create\` or \`ugs migrate\`.`,
        );
      }
      const appliedMigrations = await migratePostgres(pool);
      const revocations = new RevocationListener({
        connectionString: options.connectionString,
        connectTimeoutMs: options.connectTimeoutMs,
      });
      return {
        store: new PostgresStore(new PostgresQueries(pool, options.retry ?? { attempts: 3, baseDelayMs: 25 }), revocations),
        appliedMigrations,
        created: !existed,
      };
    } catch (error) {
      await pool.end();
      throw error;
    }
  }

  async ping(): Promise<void> {
    await this.queries.pool.query(SQL.ping);
  }

  async clock(): Promise<Date> {
    const { rows } = await this.queries.pool.query<{ now: string }>(SQL.clock);
    return new Date(rows[0]!.now);
  }

  /** Nothing to follow: the revocation listener connects on its first use, by the key cache. */
  monitor(): void {}

  async close(): Promise<void> {
    await this.revocations.close();
    if (!this.queries.pool.ended) await this.queries.pool.end();
  }
}
