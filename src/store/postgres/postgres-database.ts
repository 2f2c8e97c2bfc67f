import type pg from 'pg';
import type { ExclusiveSession, SqlDatabase, TransactionStep, TransactionWork, WriteEffects } from '../sql/sql-database.js';
import { toPositional, type PositionalText, type SqlParameters, type SqlStatement } from '../sql/sql-statement.js';
import { APPEND_CONSEQUENCES, appendConsequences, consequenceParameters } from './postgres-consequences.js';
import type { PostgresQueries } from './postgres-queries.js';
import { REVOCATION_CHANNEL } from './postgres-statements.js';
import { inTransaction, type Tx } from './postgres-transaction.js';

const NOTIFY_KEY_REVOKED = `SELECT pg_notify('${REVOCATION_CHANNEL}', '')`;

/** A statement as pg takes it: prepared under the statement's name, `@name` parameters numbered. */
interface Prepared extends PositionalText {
  name: string;
}

/**
 * SqlDatabase on the store's PostgreSQL pool. A write with effects stays one
 * statement, one round trip: the statement becomes a CTE and the effects'
 * inserts (postgres-consequences.ts) join on the rows it returned, so they are
 * appended exactly when it changed something. A transaction takes a
 * connection of its own (BEGIN, its statements, COMMIT).
 */
export class PostgresDatabase implements SqlDatabase {
  readonly dialect = 'postgres';
  private readonly prepared = new Map<string, Prepared>();

  constructor(private readonly queries: PostgresQueries) {}

  async all<Row>(statement: SqlStatement<Row>, parameters: SqlParameters = {}): Promise<Row[]> {
    if (statement.text.postgres === '') return [];
    return (await this.queries.queryText<Row & pg.QueryResultRow>(this.config(this.prepare(statement), parameters))).rows;
  }

  async first<Row>(statement: SqlStatement<Row>, parameters: SqlParameters = {}): Promise<Row | undefined> {
    return (await this.all(statement, parameters))[0];
  }

  async write<Row>(statement: SqlStatement<Row>, parameters: SqlParameters = {}, effects?: WriteEffects): Promise<Row[]> {
    if (!effects) return this.all(statement, parameters);
    const prepared = this.withEffects(statement, effects);
    const config = this.config(prepared, parameters);
    if (effects.consequences) config.values!.push(...consequenceParameters([effects.consequences]));
    return (await this.queries.queryText<Row & pg.QueryResultRow>(config)).rows;
  }

  transaction<T>(work: () => TransactionWork<T>): Promise<T> {
    return inTransaction(this.queries, (tx) => this.drive(tx, work()));
  }

  exclusiveSession<T>(work: (session: ExclusiveSession) => Promise<T>): Promise<T> {
    return inTransaction(this.queries, (tx) => work({ run: (steps) => this.drive(tx, steps()) }));
  }

  /** Runs a transaction's steps on its connection, each answered with its rows. */
  private async drive<T>(tx: Tx, steps: TransactionWork<T>): Promise<T> {
    let answer: unknown;
    for (;;) {
      const step = steps.next(answer);
      if (step.done) return step.value;
      answer = await this.take(tx, step.value);
    }
  }

  private async take(tx: Tx, step: TransactionStep): Promise<unknown> {
    if ('statement' in step) {
      if (step.statement.text.postgres === '') return [];
      const config = this.config(this.prepare(step.statement), step.parameters);
      return (await tx(config, config.values!)).rows;
    }
    const { consequences, keyRevoked } = step.effects;
    if (consequences) await tx(APPEND_CONSEQUENCES, consequenceParameters([consequences]));
    if (keyRevoked) await tx(NOTIFY_KEY_REVOKED, []);
    return undefined;
  }

  private config(prepared: Prepared, parameters: SqlParameters): pg.QueryConfig {
    return { name: prepared.name, text: prepared.text, values: prepared.names.map((name) => parameters[name] ?? null) };
  }

  private prepare(statement: SqlStatement): Prepared {
    let prepared = this.prepared.get(statement.name);
    if (prepared === undefined) {
      prepared = { name: `ugs_${statement.name}`, ...toPositional(statement.text.postgres) };
      this.prepared.set(statement.name, prepared);
    }
    return prepared;
  }

  /**
   * The statement with its effects in the same statement: `changed` is its
   * RETURNING rows, `written` one row when there are any, and the effects
   * join on it. Unreferenced SELECT CTEs do not run, so the notification's is
   * referenced by the final SELECT.
   */
  private withEffects(statement: SqlStatement, effects: WriteEffects): Prepared {
    const key = `${statement.name}${effects.consequences ? '+c' : ''}${effects.keyRevoked ? '+n' : ''}`;
    let prepared = this.prepared.get(key);
    if (prepared === undefined) {
      const { text, names } = toPositional(statement.text.postgres);
      const ctes = ['written AS (SELECT 1 AS input_n WHERE EXISTS (SELECT 1 FROM changed))'];
      if (effects.consequences) ctes.push(appendConsequences(names.length + 1, 'written'));
      if (effects.keyRevoked) ctes.push(`notified AS (SELECT pg_notify('${REVOCATION_CHANNEL}', '') FROM written)`);
      const select = effects.keyRevoked ? 'SELECT * FROM changed WHERE (SELECT count(*) FROM notified) >= 0' : 'SELECT * FROM changed';
      prepared = { name: `ugs_${key}`, text: `WITH changed AS (${text}), ${ctes.join(', ')} ${select}`, names };
      this.prepared.set(key, prepared);
    }
    return prepared;
  }
}
