import type Database from 'better-sqlite3';
import type { KeyRevocationSignal } from '../../api-keys/key-revocation-signal.js';

/** The settings row counting revocations; no migration needed, and the export leaves settings alone. */
const COUNTER = 'key_revocations';

const NOT_READ = Symbol('not read this turn');

/**
 * SQLite's KeyRevocationSignal. Every revocation adds one to a counter in
 * the settings table, in the revocation's own transaction, so the counter
 * moves exactly when the revocation commits. Reading it on every request
 * would cost a table read; `PRAGMA data_version` costs a read transaction and
 * no page read, and changes only when another connection (the CLI, another
 * worker) has committed something, so the counter is read again only then.
 * This connection's own revocations reset the cached version instead.
 */
export class RevocationCounter implements KeyRevocationSignal {
  private readonly dataVersion: Database.Statement<[], number>;
  private readonly read: Database.Statement<[], string>;
  private readonly add: Database.Statement;
  private seenVersion: number | undefined;
  private counter = 0;
  private epochOfTurn: number | undefined | typeof NOT_READ = NOT_READ;
  private readonly forgetEpochOfTurn = () => {
    this.epochOfTurn = NOT_READ;
  };

  constructor(
    db: Database.Database,
    /** False while the store must not be trusted (its file is gone): the cache then stands aside. */
    private readonly usable: () => boolean,
  ) {
    this.dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
    this.read = db.prepare<[], string>(`SELECT value FROM settings WHERE name = '${COUNTER}'`).pluck();
    this.add = db.prepare(
      `INSERT INTO settings (name, value) VALUES ('${COUNTER}', '1')
       ON CONFLICT (name) DO UPDATE SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT)`,
    );
  }

  /**
   * Read once per turn of the event loop: the requests of one turn were read
   * together, so they are answered as of one moment, and a turn's batch of
   * cached-key requests pays for one read transaction instead of one each
   * (hit path CPU 62 → 53 µs per request, docs/performance.md). A revocation another process commits is seen
   * from the next turn on; this connection's own at once (recordRevocation).
   */
  epoch(): number | undefined {
    if (this.epochOfTurn === NOT_READ) {
      this.epochOfTurn = this.currentEpoch();
      setImmediate(this.forgetEpochOfTurn);
    }
    return this.epochOfTurn;
  }

  private currentEpoch(): number | undefined {
    if (!this.usable()) return undefined;
    try {
      const version = this.dataVersion.get()!;
      if (version !== this.seenVersion) {
        this.counter = Number(this.read.get() ?? 0);
        this.seenVersion = version;
      }
      return this.counter;
    } catch {
      return undefined;
    }
  }

  /** Counts a revocation; call inside the transaction that revokes. */
  recordRevocation(): void {
    this.add.run();
    // data_version does not move for this connection's own commits: read the counter afresh next time.
    this.seenVersion = undefined;
    this.epochOfTurn = NOT_READ;
  }
}
