import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Writes a small file (a secret) so that no reader ever sees it half-written
 * and it survives a power loss once this returns: the content goes to a
 * private temporary name and is synced, then appears under `path` in one step,
 * and the folder entry is synced too. `exclusive` publishes with link(), which
 * fails with EEXIST when `path` exists (the first of several racing processes
 * wins); otherwise rename() replaces it.
 */
export function writeFileDurably(path: string, content: string, options: { exclusive: boolean }): void {
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  const fd = openSync(temporary, 'wx', 0o600);
  try {
    writeSync(fd, content);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    if (options.exclusive) linkSync(temporary, path);
    else renameSync(temporary, path);
    syncFolder(dirname(path));
  } finally {
    rmSync(temporary, { force: true });
  }
}

/** Makes a folder's entries (a file just linked, renamed or removed) survive a power loss. */
export function syncFolder(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Makes a folder that holds secrets (the data dir) where it is missing, with
 * its missing parents, readable by this user only; an existing one is left as
 * it is. Returns the first folder it made, if any.
 */
export function makePrivateFolder(path: string): string | undefined {
  return mkdirSync(path, { recursive: true, mode: 0o700 });
}
