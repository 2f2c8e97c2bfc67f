import { ServiceError } from '../../kernel/errors.js';
import type { StoreLog } from '../store.js';
import type { CommitGuard } from './group-commit.js';
import type { DatabaseFileWatch } from './database-file-watch.js';
import { describeStorageProblem, storageProblem, type StorageProblem } from './storage-errors.js';

/**
 * After the last write the disk refused, how long /readyz answers 503 unless
 * a write commits meanwhile; also the Retry-After of those refusals. Past it,
 * readiness is claimed again, so a service with nothing to write (a load
 * balancer sends it nothing while it is not ready) does not stay out forever.
 */
const WRITE_RECOVERY_MS = 5000;

const REFUSAL: Record<StorageProblem, string> = {
  full: "The service's disk is full; writes fail until an operator frees space. Retry later.",
  'read-only': "The service's database cannot be written (read-only); writes fail until an operator fixes it. Retry later.",
  io: "The service's disk failed a write; retry later.",
};

/**
 * What the SQLite store knows of its disk, and says once: the database file
 * gone from its path (every call refused), and writes the disk refuses (full,
 * read-only, I/O errors; writes refused, reads still served). Each change is
 * one log line for the operator; callers get 503 `unavailable`, never 500.
 */
export class SqliteHealth implements CommitGuard {
  private fileGone: ServiceError | undefined;
  private lastRefusal: { error: ServiceError; at: number } | undefined;

  constructor(
    private readonly path: string,
    private readonly file: DatabaseFileWatch,
    private readonly log: StoreLog,
    private readonly now: () => number = Date.now,
  ) {}

  /** Follows the file's identity in the background until `stop`. */
  start(): void {
    this.file.start(() => this.refreshFile());
  }

  stop(): void {
    this.file.stop();
  }

  /** False once the file is gone: a field read, cheap enough for every call. */
  get usable(): boolean {
    return this.fileGone === undefined;
  }

  /** Throws the 503 every store call gets while the database file is gone. */
  assertUsable(): void {
    if (this.fileGone) throw this.fileGone;
  }

  /** For /readyz: the file checked now, and no write refused by the disk lately. */
  assertReady(): void {
    this.beforeCommit();
    if (this.lastRefusal && this.now() - this.lastRefusal.at < WRITE_RECOVERY_MS) throw this.lastRefusal.error;
  }

  /** Checks the file's identity now (one stat), so no write is ever acknowledged into a file that is gone. */
  beforeCommit(): void {
    this.refreshFile();
    this.assertUsable();
  }

  failed(error: unknown): unknown {
    if (error instanceof ServiceError) return error;
    const problem = storageProblem(error);
    if (problem === undefined) return error;
    if (this.lastRefusal === undefined) this.log.error(`The SQLite store at ${this.path} ${describeStorageProblem(problem, error)}.`);
    const refusal = new ServiceError('unavailable', REFUSAL[problem], { retryAfterSeconds: WRITE_RECOVERY_MS / 1000 });
    this.lastRefusal = { error: refusal, at: this.now() };
    return refusal;
  }

  committed(): void {
    if (this.lastRefusal === undefined) return;
    this.lastRefusal = undefined;
    this.log.info(`The SQLite store at ${this.path} writes again.`);
  }

  private refreshFile(): void {
    const problem = this.file.problem();
    if (problem !== undefined && this.fileGone === undefined) {
      this.fileGone = new ServiceError(
        'unavailable',
        "The service's database file was deleted or replaced while it ran; every call fails until an operator restores it. Retry later.",
        { retryAfterSeconds: 30 },
      );
      this.log.error(
        `The SQLite database file ${this.path} ${problem} while the service ran: every store call now answers 503 and nothing more is written. ` +
          'Restore the file from a backup and restart, or run `ugs migrate --create` to start a new, empty store there.',
      );
    } else if (problem === undefined && this.fileGone !== undefined) {
      this.fileGone = undefined;
      this.log.info(`The SQLite database file ${this.path} is the open file again: serving resumes.`);
    }
  }
}
