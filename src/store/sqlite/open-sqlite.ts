import { accessSync, chmodSync, constants, existsSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import type Database from 'better-sqlite3';
import SqliteDatabase from 'better-sqlite3';
import { StartupError } from '../../kernel/errors.js';
import { makePrivateFolder } from '../../platform/durable-file.js';
import { migrateSqlite } from './migrate-sqlite.js';
import { describeAtStart, storageProblem } from './storage-errors.js';
import { StoreMarker } from './store-marker.js';

export interface OpenSqliteOptions {
  path: string;
  busyTimeoutMs: number;
  /**
   * Start a new, empty store even though the data dir held one whose
   * database is missing, and take the database found as the data dir's store
   * even if it is another (`ugs migrate --create`).
   */
  create?: boolean;
  /** Refuse, creating nothing, when there is no store here yet: for commands that only use an existing one. */
  mustExist?: boolean;
}

/** The opened database; `created` when this call made the store (a fresh data dir). */
export interface OpenedSqlite {
  db: Database.Database;
  appliedMigrations: string[];
  created: boolean;
}

/**
 * Opens the database at `options.path` (its folder created when missing),
 * checked against the data dir's store-id (store-marker.ts), in WAL mode with
 * synchronous=FULL, migrated. Every failure a person can fix is a
 * StartupError of one line: a folder that is a file or read-only, a missing
 * database, a full disk.
 */
export async function openSqlite(options: OpenSqliteOptions): Promise<OpenedSqlite> {
  const { path, busyTimeoutMs } = options;
  const dir = dirname(path);
  const marker = new StoreMarker(path);
  const existed = existsSync(path);
  if (options.mustExist && !existed) {
    // A data dir that lost its database says so (and how to recover) rather than "no store".
    marker.checkBeforeOpen(marker.recorded());
    throw new StartupError(
      `No store in ${dir} (no ${basename(path)}), and this command creates none: check UGS_DATA_DIR, or make the store with \`ugs keys create\`.`,
    );
  }
  let db: Database.Database;
  try {
    makePrivateFolder(dir);
  } catch (error) {
    throw new StartupError(`Cannot open the SQLite store at ${path} (check UGS_DATA_DIR): ${(error as Error).message}`);
  }
  assertWritable(dir, 'The data dir');
  if (existed) assertWritable(path, 'The SQLite database');
  const recorded = marker.recorded();
  if (!options.create) marker.checkBeforeOpen(recorded);
  try {
    db = new SqliteDatabase(path, { timeout: busyTimeoutMs });
  } catch (error) {
    throw new StartupError(`Cannot open the SQLite store at ${path} (check UGS_DATA_DIR): ${(error as Error).message}`);
  }
  try {
    // Before anything writes to the file: a database that is not this dir's store is left as it was found.
    if (!options.create) marker.checkDatabase(recorded, marker.storedId(db));
    // Hashes and ciphertexts only, but still nobody else's business; WAL files inherit this mode.
    chmodSync(path, 0o600);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    // Each write of a group-commit batch runs in a savepoint, whose statement journal (the pages'
    // earlier contents) otherwise spills to a temporary file: two write calls per page, most of a
    // write's system time. In memory it costs a write's own pages for the moment it runs.
    db.pragma('temp_store = MEMORY');
    const appliedMigrations = await migrateSqlite(path, busyTimeoutMs);
    marker.bind(db, recorded);
    return { db, appliedMigrations, created: !existed };
  } catch (error) {
    db.close();
    const problem = storageProblem(error);
    if (problem === undefined) throw error;
    throw new StartupError(`Cannot open the SQLite store at ${path}: ${describeAtStart(problem, error)}; check the disk and UGS_DATA_DIR.`);
  }
}

/** Root ignores permissions but not a read-only file system: access() reports both. */
function assertWritable(path: string, what: string): void {
  try {
    accessSync(path, constants.W_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new StartupError(
      `${what} ${path} is read-only (${code}): the store must write there; make it writable, or point UGS_DATA_DIR elsewhere.`,
    );
  }
}
