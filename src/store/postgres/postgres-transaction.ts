import type pg from 'pg';
import type { WriteConsequences } from '../../consequences/write-consequences.js';
import { APPEND_CONSEQUENCES, consequenceParameters } from './postgres-consequences.js';
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

/** Appends the consequences of the change the transaction made, in one statement. */
export async function appendConsequencesIn(tx: Tx, consequences: WriteConsequences): Promise<void> {
  await tx(APPEND_CONSEQUENCES, consequenceParameters([consequences]));
}
