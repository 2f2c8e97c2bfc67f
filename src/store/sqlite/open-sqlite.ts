import { accessSync, chmodSync, constants, existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type Database from 'better-sqlite3';
import { SqliteDatabase } from './sqlite-driver.js';
import { StartupError } from '../../domain/errors.js';
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
}

/**
 * Opens the database at `options.path` (its folder created when missing),
 * checked against the data dir's store-id (store-marker.ts), in WAL mode with
 * synchronous=FULL, migrated. Every failure a person can fix is a
 * StartupError of one line: a folder that is a file or read-only, a missing
 * database, a full disk.
 */
export async function openSqlite(options: OpenSqliteOptions): Promise<{ db: Database.Database; appliedMigrations: string[] }> {
  const { path, busyTimeoutMs } = options;
  const dir = dirname(path);
  let db: Database.Database;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new StartupError(`Cannot open the SQLite store at ${path} (check UGS_DATA_DIR): ${(error as Error).message}`);
  }
  assertWritable(dir, 'The data dir');
  if (existsSync(path)) assertWritable(path, 'The SQLite database');
  const marker = new StoreMarker(path);
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
    return { db, appliedMigrations };
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
    throw new StartupError(`${what} ${path} is read-only (${code}): the store must write there; make it writable, or point UGS_DATA_DIR elsewhere.`);
  }
}
