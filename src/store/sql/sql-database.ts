import type { WriteConsequences } from '../../consequences/write-consequences.js';
import type { Dialect, SqlParameters, SqlStatement } from './sql-statement.js';

/** What a write leaves beside its rows, appended in its own transaction only when it changed something. */
export interface WriteEffects {
  /** The audit records, events and revocation entries the service decided (src/consequences/write-consequences.ts). */
  consequences?: WriteConsequences;
  /** An API key was revoked: every process's key cache must hear of it when the write commits. */
  keyRevoked?: boolean;
}

/** One step of a transaction: a statement to run (answered with its rows), or effects to append. */
export type TransactionStep = { statement: SqlStatement; parameters: SqlParameters } | { effects: WriteEffects };

/**
 * A transaction's work, written once: a generator that yields steps and is
 * answered with their rows, so the same code runs synchronously inside a
 * SQLite group commit and awaits each statement on a PostgreSQL connection.
 * Build it with `run` and `append`; what it returns is what the transaction
 * resolves to. It must do nothing but yield steps: no awaiting, no I/O.
 */
export type TransactionWork<T> = Generator<TransactionStep, T, unknown>;

/** Runs a statement inside a transaction's work: `const rows = yield* run(statement, parameters)`. */
export function* run<Row>(statement: SqlStatement<Row>, parameters: SqlParameters = {}): Generator<TransactionStep, Row[], unknown> {
  return (yield { statement, parameters }) as Row[];
}

/** Appends effects inside a transaction's work: `yield* append({ consequences })`. */
export function* append(effects: WriteEffects): Generator<TransactionStep, void, unknown> {
  yield { effects };
}

/** A transaction held across awaits (see SqlDatabase.exclusiveSession): each `run` adds steps to it, none commits. */
export interface ExclusiveSession {
  /** Runs `work`'s steps inside the held transaction, as `transaction` runs them, and answers what it returns. */
  run<T>(work: () => TransactionWork<T>): Promise<T>;
}

/**
 * The one way the storage areas off the hot path reach either database
 * (sqlite/sqlite-database.ts, postgres/postgres-database.ts). Their queries
 * are written once, as SqlStatements; the hot paths (group lookups and
 * writes, embed sessions, group commit's batches) keep dialect-specific code.
 */
export interface SqlDatabase {
  readonly dialect: Dialect;
  /** Every row a read returns. */
  all<Row>(statement: SqlStatement<Row>, parameters?: SqlParameters): Promise<Row[]>;
  /** The first row a read returns. */
  first<Row>(statement: SqlStatement<Row>, parameters?: SqlParameters): Promise<Row | undefined>;
  /**
   * One statement as one atomic write, resolving to the rows it returned.
   * `effects` are appended in the same transaction when it returned a row,
   * so a statement that has effects says what it changed with RETURNING.
   */
  write<Row>(statement: SqlStatement<Row>, parameters?: SqlParameters, effects?: WriteEffects): Promise<Row[]>;
  /** Several statements, each able to decide the next, in one transaction: committed if `work` returns, rolled back if it throws. */
  transaction<T>(work: () => TransactionWork<T>): Promise<T>;
  /**
   * One transaction that spans awaits, for `ugs import` (which reads its file
   * while it writes): committed if `work` resolves, rolled back if it rejects.
   * It holds the database for itself: on SQLite the store's one connection
   * (BEGIN IMMEDIATE; nothing else may use the store until it ends), on
   * PostgreSQL a connection of its own.
   */
  exclusiveSession<T>(work: (session: ExclusiveSession) => Promise<T>): Promise<T>;
}
