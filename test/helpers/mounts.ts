import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir } from './temp-dir.js';

/**
 * Real file systems for the tests of a full disk or a read-only data dir.
 * They run as root (CI too), where permissions are no obstacle, so a small
 * tmpfs (that fills up) and a read-only bind mount are how those states are
 * made for real. Each returns a reason to skip where mounting is not allowed.
 */
export interface Mount {
  path: string;
  /** Unmounts and removes the mount point. */
  remove(): void;
}

function run(args: string[]): string | undefined {
  const result = spawnSync(args[0]!, args.slice(1), { encoding: 'utf8' });
  if (result.error) return result.error.message;
  return result.status === 0 ? undefined : result.stderr.trim() || `${args.join(' ')} exited ${result.status}`;
}

function unmount(path: string, remove: () => void): void {
  run(['umount', path]);
  remove();
}

/** A tmpfs of `sizeBytes` with an empty `data` folder in it, or why one cannot be mounted here. */
export function mountTmpfs(sizeBytes: number): Mount | string {
  const point = makeTempDir('ugs-tmpfs');
  const failure = run(['mount', '-t', 'tmpfs', '-o', `size=${sizeBytes},mode=0700`, 'tmpfs', point.path]);
  if (failure !== undefined) {
    point.remove();
    return `cannot mount a tmpfs here (${failure}); needs root and CAP_SYS_ADMIN`;
  }
  mkdirSync(join(point.path, 'data'));
  return { path: join(point.path, 'data'), remove: () => unmount(point.path, point.remove) };
}

/** `dir` seen read-only through a bind mount, or why one cannot be made here. */
export function readOnlyView(dir: string): Mount | string {
  const point = makeTempDir('ugs-readonly');
  const failure = run(['mount', '--bind', dir, point.path]) ?? run(['mount', '-o', 'remount,ro,bind', point.path]);
  if (failure !== undefined) {
    unmount(point.path, point.remove);
    return `cannot make a read-only bind mount here (${failure}); needs root and CAP_SYS_ADMIN`;
  }
  return { path: point.path, remove: () => unmount(point.path, point.remove) };
}

/** Whether mounting works here at all: the tests that need it skip with this reason otherwise. */
export function mountUnavailable(): string | false {
  const probe = mountTmpfs(64 * 1024);
  if (typeof probe === 'string') return probe;
  probe.remove();
  return false;
}
