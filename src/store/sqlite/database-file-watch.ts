import { statSync, watch, type FSWatcher } from 'node:fs';

/** How often the file is checked when nothing has been heard from the watcher (a backstop, e.g. where inotify is missing). */
const CHECK_EVERY_MS = 1000;

/**
 * Whether the database file at a path is still the file the connection has
 * open. SQLite keeps using an open file after it is deleted or replaced, so
 * writes would go on succeeding into a file nobody will open again. The
 * identity (device and inode) is compared at the path: before every commit
 * (one stat per batch of writes, beside its fsync), and on every change the
 * file system reports (fs.watch on the file: an unlink changes its link
 * count) or at least once a second, so reads learn of it without a check per
 * request.
 */
export class DatabaseFileWatch {
  private readonly dev: number;
  private readonly ino: number;
  private watcher: FSWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;

  /** Call right after the connection opened `path`, so the identity taken is the open file's. */
  constructor(private readonly path: string) {
    const { dev, ino } = statSync(path);
    this.dev = dev;
    this.ino = ino;
  }

  /** Why the file at the path is no longer the open one (deleted, replaced), or undefined while it is. */
  problem(): string | undefined {
    let found;
    try {
      found = statSync(this.path, { throwIfNoEntry: false });
    } catch (error) {
      return `cannot be checked (${(error as NodeJS.ErrnoException).code})`;
    }
    if (found === undefined) return 'was deleted';
    if (found.dev !== this.dev || found.ino !== this.ino) return 'was replaced by another file';
    return undefined;
  }

  /** Calls `check` whenever the file may have changed identity, until `stop`. */
  start(check: () => void): void {
    if (this.timer) return;
    try {
      this.watcher = watch(this.path, { persistent: false }, () => check());
      this.watcher.on('error', () => this.watcher?.close());
    } catch {
      // No watcher here (inotify limits, an exotic file system): the timer alone will do.
    }
    this.timer = setInterval(check, CHECK_EVERY_MS);
    this.timer.unref();
  }

  stop(): void {
    this.watcher?.close();
    clearInterval(this.timer);
  }
}
