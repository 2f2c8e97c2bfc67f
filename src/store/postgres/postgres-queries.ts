import type pg from 'pg';
import { SQL } from './postgres-statements.js';
import { asUnavailable, withRetry, type RetryPolicy } from './transient-errors.js';

export type StatementName = keyof typeof SQL;

/**
 * The connection pool every PostgreSQL port shares, and the one way they
 * query it: transient failures retried (see transient-errors.ts), a database
 * out of reach reported as 503 `unavailable`.
 */
export class PostgresQueries {
  constructor(
    readonly pool: pg.Pool,
    private readonly retry: RetryPolicy,
  ) {}

  /** One of the named statements of postgres-statements.ts: `pg` prepares each once per connection and reuses the plan. */
  query<Row extends pg.QueryResultRow>(name: StatementName, values: unknown[]): Promise<pg.QueryResult<Row>> {
    return this.queryText<Row>({ name: `ugs_${name}`, text: SQL[name], values });
  }

  /** A statement built for this call (e.g. the audit log's filters), not prepared. */
  queryText<Row extends pg.QueryResultRow>(query: pg.QueryConfig): Promise<pg.QueryResult<Row>> {
    return withRetry(() => this.pool.query<Row>(query), true, this.retry).catch((error: unknown) => {
      throw asUnavailable(error);
    });
  }

  /** A connection of its own, for a transaction across statements (the import); release it when done. */
  connect(): Promise<pg.PoolClient> {
    return this.pool.connect().catch((error: unknown) => {
      throw asUnavailable(error);
    });
  }
}
