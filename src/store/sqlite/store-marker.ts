import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import type Database from 'better-sqlite3';
import { StartupError } from '../../kernel/errors.js';
import { writeFileDurably } from '../../platform/durable-file.js';

const STORE_ID_SETTING = 'store_id';

/**
 * Beside the database: names the store the data dir holds, so a lost database
 * file is noticed rather than replaced. `user-groups.sqlite` has
 * `user-groups.store-id`, which `rm user-groups.sqlite*` leaves in place.
 */
export function storeIdFile(databasePath: string): string {
  return join(dirname(databasePath), `${basename(databasePath, extname(databasePath))}.store-id`);
}

/**
 * Which store a data dir holds. Each store gets a random id when it is
 * created, kept in its settings table and, once the database is committed,
 * in the store-id file beside it. A data dir whose store-id names a store
 * opens only the database holding that id: if the database file is missing,
 * empty or another store's, start-up stops instead of quietly creating a new,
 * empty store over it. A fresh dir (no store-id) needs nothing, and a
 * database brought into a dir without one (a restore, a store made before
 * this existed) is adopted.
 */
export class StoreMarker {
  private readonly file: string;

  constructor(private readonly databasePath: string) {
    this.file = storeIdFile(databasePath);
  }

  /** The id the data dir names, if any. */
  recorded(): string | undefined {
    if (!existsSync(this.file)) return undefined;
    return readFileSync(this.file, 'utf8').trim() || undefined;
  }

  /** Before the database is opened (which would create it): refuses a data dir whose database file is missing. */
  checkBeforeOpen(recorded: string | undefined): void {
    const present = existsSync(this.databasePath) && statSync(this.databasePath).size > 0;
    if (recorded !== undefined && !present) throw this.refusal('is missing');
  }

  /** The id stored in the database, read without changing the file (it may not be migrated yet). */
  storedId(db: Database.Database): string | undefined {
    try {
      return db.prepare<[string], string>('SELECT value FROM settings WHERE name = ?').pluck().get(STORE_ID_SETTING);
    } catch {
      return undefined; // no settings table: an empty or foreign database
    }
  }

  /** After opening and before migrating: refuses a database that is not the store the data dir names. */
  checkDatabase(recorded: string | undefined, stored: string | undefined): void {
    if (recorded === undefined || stored === recorded) return;
    throw this.refusal(
      stored === undefined
        ? 'is not the store this data dir held (it holds no store id)'
        : `holds another store (id ${stored}, not ${recorded})`,
    );
  }

  /** After migrating: gives the database an id if it has none, and records it in the data dir. */
  bind(db: Database.Database, recorded: string | undefined): string {
    db.prepare('INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING').run(STORE_ID_SETTING, randomUUID());
    const id = this.storedId(db)!;
    if (id === recorded) return id;
    try {
      // Exclusive when adding: of processes creating the store together, one writes it, the others find the same id.
      writeFileDurably(this.file, `${id}\n`, { exclusive: recorded === undefined });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || this.recorded() !== id) throw error;
    }
    return id;
  }

  private refusal(what: string): StartupError {
    return new StartupError(
      `The SQLite database ${this.databasePath} ${what}, but ${this.file} says this data dir held a store: ` +
        'restore the database file from a backup, or run `ugs migrate --create` to start a new, empty store here.',
    );
  }
}
