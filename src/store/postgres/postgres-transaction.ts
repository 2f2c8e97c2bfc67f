import type pg from 'pg';
import type { PostgresQueries } from './postgres-queries.js';
import { asUnavailable } from './transient-errors.js';

/** Statements (SQL text, or a named prepared statement's config) run on the connection of one transaction. */
export type Tx = <Row extends pg.QueryResultRow>(query: string | pg.QueryConfig, values: unknown[]) => Promise<pg.QueryResult<Row>>;

/**
 * Runs `work` in one transaction on a connection of its own: committed if it
 * returns, rolled back if it throws. For the writes that need a read and a
 * decision between statements (SqlDatabase's transactions, the hierarchy's writes); the request path keeps to single statements.
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
