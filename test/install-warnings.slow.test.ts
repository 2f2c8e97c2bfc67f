import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { nodeBuild } from './helpers/node-build.js';
import { makeTempDir } from './helpers/temp-dir.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The packages npm names in its `EBADENGINE` warnings, one per block, in order. */
function engineWarnings(stderr: string): string[] {
  return [...stderr.matchAll(/^npm warn EBADENGINE {3}package: '([^@']+)@/gm)].map((m) => m[1]!);
}

/** Runs `command` in `cwd` with `bin` first on PATH (so npm runs on that folder's node), and answers its stderr. */
function run(command: string, args: string[], cwd: string, bin: string): Promise<string> {
  // The test runner's PATH starts with the clone's node_modules/.bin (Node 24): leave it out, as a new terminal has it.
  const path = [bin, ...(process.env.PATH ?? '').split(delimiter).filter((dir) => !dir.includes('node_modules'))].join(delimiter);
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, PATH: path }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', () => resolve(stderr));
  });
}

/** Removes the entry a first `npx` in `dir` leaves in npx's cache (a link to `dir`, which the test removes). */
function forgetNpxLink(dir: string): void {
  const npx = join(process.env.npm_config_cache ?? join(homedir(), '.npm'), '_npx');
  if (!existsSync(npx)) return;
  for (const entry of readdirSync(npx)) {
    const manifest = join(npx, entry, 'package.json');
    if (existsSync(manifest) && readFileSync(manifest, 'utf8').includes(dir)) rmSync(join(npx, entry), { recursive: true, force: true });
  }
}

/**
 * README, Node versions, "What npm prints on Node 20": a clone's `npm ci` and
 * its first `npx ugs`, with npm running on the official Node 20.20.2 and on the
 * Node running the tests. The manifest and lockfile are the clone's; the
 * install takes its packages from npm's cache where `npm ci` left them, and runs
 * no script (the warnings come before any).
 */
describe('what npm warns about while a clone installs', { timeout: 600_000 }, () => {
  const cases = [
    {
      name: 'Node 20.20.2',
      version: '20.20.2',
      ci: ['user-group-service', 'better-sqlite3', 'cookie'],
      npx: ['user-group-service', 'user-group-service'],
    },
    { name: `the Node running the tests (${process.version})`, version: undefined, ci: [], npx: [] },
  ];
  for (const expected of cases) {
    it(`on ${expected.name}: npm ci warns EBADENGINE for ${expected.ci.join(', ') || 'nothing'}, the first npx ugs for ${expected.npx.length || 'nothing'}`, async (t) => {
      let bin = dirname(process.execPath);
      if (expected.version) {
        const build = await nodeBuild(expected.version);
        if ('unavailable' in build) return t.skip(build.unavailable);
        bin = build.bin;
      }
      const clone = makeTempDir('ugs-install-warnings');
      try {
        for (const file of ['package.json', 'package-lock.json']) copyFileSync(join(ROOT, file), join(clone.path, file));
        const ci = await run('npm', ['ci', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund'], clone.path, bin);
        assert.deepEqual(engineWarnings(ci), expected.ci, ci);
        assert.equal(ci.split('\n').filter((line) => line.includes('EBADENGINE')).length, 5 * expected.ci.length, ci);
        // No script ran, so no dist/: `ugs` itself fails to start here, after npx has checked and linked the clone.
        const npx = await run('npx', ['ugs', '--version'], clone.path, bin);
        assert.deepEqual(engineWarnings(npx), expected.npx, npx);
      } finally {
        forgetNpxLink(clone.path);
        clone.remove();
      }
    });
  }
});
