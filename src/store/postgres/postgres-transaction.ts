import type pg from 'pg';
import type { AuditContext } from '../../domain/audit.js';
import type { Environment } from '../../domain/environment.js';
import { EVENTS_OF_AUDITED } from './postgres-events.js';
import type { PostgresQueries } from './postgres-queries.js';
import { asUnavailable } from './transient-errors.js';

/** Statements (SQL text, or a named prepared statement's config) run on the connection of one transaction. */
export type Tx = <Row extends pg.QueryResultRow>(query: string | pg.QueryConfig, values: unknown[]) => Promise<pg.QueryResult<Row>>;

/**
 * Runs `work` in one transaction on a connection of its own: committed if it
 * returns, rolled back if it throws. For the writes that need a read and a
 * decision between statements (webhooks, the hierarchy's writes); the request path keeps to single statements.
 */
export async function inTransaction<T>(queries: PostgresQueries, work: (tx: Tx) => Promise<T>): Promise<T> {
  const client = await queries.connect();
  const tx: Tx = (query, values) => client.query(query, values);
  try {
    await client.query('BEGIN');
    const result = await work(tx);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw asUnavailable(error);
  } finally {
    client.release();
  }
}

/** A webhook change's audit record and its event (the events CTE), in the change's transaction. */
const AUDIT_WEBHOOK = `WITH audited AS (
    INSERT INTO audit_log (at, action, environment, key_id, fields, client_address, webhook_id)
    VALUES ($1, $2, $3, $4, $5, $6, $7)
    RETURNING *
  ), ${EVENTS_OF_AUDITED}
  SELECT 1`;

export async function auditWebhookChange(tx: Tx, action: string, at: string, environment: Environment, webhookId: string, audit: AuditContext): Promise<void> {
  await tx(AUDIT_WEBHOOK, [at, action, environment, audit.keyId, JSON.stringify(audit.fields), audit.clientAddress ?? null, webhookId]);
}
