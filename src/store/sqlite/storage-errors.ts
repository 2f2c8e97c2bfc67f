/**
 * Failures that are the disk's state, not a request's fault: no space left,
 * a file system or file that may not be written, an I/O error. SQLite reports
 * them as its own codes (better-sqlite3's `code` is the extended code, e.g.
 * SQLITE_IOERR_WRITE); Node's file calls as errno codes.
 */
export type StorageProblem = 'full' | 'read-only' | 'io';

export function storageProblem(error: unknown): StorageProblem | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return undefined;
  if (code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'EDQUOT') return 'full';
  if (code.startsWith('SQLITE_READONLY') || code === 'EROFS' || code === 'EACCES' || code === 'EPERM') return 'read-only';
  if (code.startsWith('SQLITE_IOERR') || code === 'EIO') return 'io';
  return undefined;
}

/** What an operator reads, after "The SQLite store at <path> ...". */
export function describeStorageProblem(problem: StorageProblem, error: unknown): string {
  const code = (error as { code?: string }).code;
  switch (problem) {
    case 'full':
      return `cannot write: the disk is full (${code}); writes answer 503 until space is freed`;
    case 'read-only':
      return `cannot write: the database or its folder is read-only (${code}); writes answer 503 until it is writable again`;
    case 'io':
      return `cannot write: an I/O error (${code}); writes answer 503 while it lasts; check the disk`;
  }
}

/** The same, for start-up, where nothing is answered yet. */
export function describeAtStart(problem: StorageProblem, error: unknown): string {
  const code = (error as { code?: string }).code;
  const what = { full: 'the disk is full', 'read-only': 'the database or its folder is read-only', io: 'an I/O error' }[problem];
  return `${what} (${code})`;
}
