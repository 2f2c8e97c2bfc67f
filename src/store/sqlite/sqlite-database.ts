import type Database from 'better-sqlite3';
import type { ExclusiveSession, SqlDatabase, TransactionStep, TransactionWork, WriteEffects } from '../sql/sql-database.js';
import type { SqlParameters, SqlStatement } from '../sql/sql-statement.js';
import type { GroupCommit } from './group-commit.js';
import type { RevocationCounter } from './revocation-counter.js';
import type { SqliteConsequences } from './sqlite-consequences.js';
import type { SqliteHealth } from './sqlite-health.js';

/** better-sqlite3 binds no booleans: SQLite holds them as 0 and 1. */
function bindable(parameters: SqlParameters): Record<string, unknown> {
  const bound: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(parameters)) bound[name] = typeof value === 'boolean' ? Number(value) : (value ?? null);
  return bound;
}

/**
 * SqlDatabase on the store's one SQLite connection: each statement prepared
 * once, reads checked against the file's health, writes and transactions run
 * in group commit (one transaction per burst, each write in its own savepoint),
 * synchronously, so nothing else runs between a transaction's statements.
 */
export class SqliteDatabase implements SqlDatabase {
  readonly dialect = 'sqlite';
  private readonly prepared = new Map<string, Database.Statement>();

  constructor(
    private readonly db: Database.Database,
    private readonly health: SqliteHealth,
    private readonly groupCommit: GroupCommit,
    private readonly consequences: SqliteConsequences,
    private readonly revocations: RevocationCounter,
  ) {}

  async all<Row>(statement: SqlStatement<Row>, parameters: SqlParameters = {}): Promise<Row[]> {
    this.health.assertUsable();
    return this.rowsOf(statement, parameters);
  }

  async first<Row>(statement: SqlStatement<Row>, parameters: SqlParameters = {}): Promise<Row | undefined> {
    this.health.assertUsable();
    if (statement.text.sqlite === '') return undefined;
    return this.prepare(statement).get(bindable(parameters)) as Row | undefined;
  }

  write<Row>(statement: SqlStatement<Row>, parameters: SqlParameters = {}, effects?: WriteEffects): Promise<Row[]> {
    return this.groupCommit.run(() => {
      const rows = this.rowsOf(statement, parameters);
      if (effects && rows.length > 0) this.appendEffects(effects);
      return rows;
    });
  }

  transaction<T>(work: () => TransactionWork<T>): Promise<T> {
    return this.groupCommit.run(() => this.drive(work()));
  }

  async exclusiveSession<T>(work: (session: ExclusiveSession) => Promise<T>): Promise<T> {
    this.health.assertUsable();
    // Across awaits on the one connection: the session is its only user meanwhile (no group commit can begin).
    this.db.exec('BEGIN IMMEDIATE');
    try {
      const result = await work({ run: async (steps) => this.drive(steps()) });
      this.health.beforeCommit();
      this.db.exec('COMMIT');
      return result;
    } catch (error) {
      throw this.health.failed(error);
    } finally {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
    }
  }

  /** Runs a transaction's steps synchronously, each answered with its rows. */
  private drive<T>(steps: TransactionWork<T>): T {
    let answer: unknown;
    for (;;) {
      const step = steps.next(answer);
      if (step.done) return step.value;
      answer = this.take(step.value);
    }
  }

  private take(step: TransactionStep): unknown {
    if ('effects' in step) return this.appendEffects(step.effects);
    return this.rowsOf(step.statement, step.parameters);
  }

  private appendEffects(effects: WriteEffects): void {
    if (effects.consequences) this.consequences.persist(effects.consequences);
    if (effects.keyRevoked) this.revocations.recordRevocation();
  }

  private rowsOf<Row>(statement: SqlStatement<Row>, parameters: SqlParameters): Row[] {
    if (statement.text.sqlite === '') return [];
    const prepared = this.prepare(statement);
    if (prepared.reader) return prepared.all(bindable(parameters)) as Row[];
    prepared.run(bindable(parameters));
    return [];
  }

  private prepare(statement: SqlStatement): Database.Statement {
    let prepared = this.prepared.get(statement.name);
    if (prepared === undefined) {
      prepared = this.db.prepare(statement.text.sqlite);
      this.prepared.set(statement.name, prepared);
    }
    return prepared;
  }
}
