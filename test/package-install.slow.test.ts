import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, describe, it } from 'node:test';
import { makeTempDir } from './helpers/temp-dir.js';

const run = promisify(execFile);
const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');

/** What npm says when it cannot reach the registry for a package missing from its cache. */
const UNREACHABLE = /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|ENOTCACHED/;

/** A dashboard's own code: imports both entry points by the package's name, as the README shows. */
const DASHBOARD_JS = `
import { UserGroupClient, UserGroupServiceError } from 'user-group-service/client';
import { createEmbedVerifier, bindProperties, EmbedTokenError } from 'user-group-service/embed';
const client = new UserGroupClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'ugsk_x' });
console.log(JSON.stringify({
  UserGroupClient: typeof UserGroupClient, getOrCreate: typeof client.getOrCreate, UserGroupServiceError: typeof UserGroupServiceError,
  createEmbedVerifier: typeof createEmbedVerifier, bindProperties: typeof bindProperties, EmbedTokenError: typeof EmbedTokenError,
}));
`;

const DASHBOARD_TS = `
import { UserGroupClient, type UserGroup } from 'user-group-service/client';
import { createEmbedVerifier, type EmbedClaims } from 'user-group-service/embed';
export const client: UserGroupClient = new UserGroupClient({ baseUrl: 'http://localhost:8080', apiKey: 'k' });
export const verifier = createEmbedVerifier({ serviceUrl: 'http://localhost:8080' });
export type Seen = [UserGroup['token'], EmbedClaims];
`;

/**
 * A dashboard project outside the checkout installs the package from the
 * tarball `npm pack` makes, as a customer would, and imports the client and
 * the embed verifier by name, in JavaScript and (types) in TypeScript. The
 * install takes the dependencies from npm's cache where `npm ci` left them, and
 * runs no install script: neither entry point may need better-sqlite3 built.
 */
describe('the package, installed from its tarball in another project', () => {
  const scratch = makeTempDir('ugs-package');
  after(() => scratch.remove());

  it(
    'packs only what runs (dist/src, docs, README, LICENSE), and a dashboard project imports user-group-service/client and /embed',
    { timeout: 300_000 },
    async (t) => {
      const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', scratch.path], {
        cwd: REPO_ROOT,
        maxBuffer: 64 * 1024 * 1024,
      });
      const [{ filename, files, size }] = JSON.parse(packed.stdout) as [{ filename: string; files: { path: string }[]; size: number }];
      t.diagnostic(`tarball: ${filename}, ${size} bytes, ${files.length} files`);
      const outside = files.map((f) => f.path).filter((path) => !/^(dist\/src\/|docs\/|README\.md$|LICENSE$|package\.json$)/.test(path));
      assert.deepEqual(outside, [], 'the tarball carries files no installation runs');
      const devOnly = files.map((f) => f.path).filter((path) => /(^|\/)(test|bench|scripts|examples)\//.test(path));
      assert.deepEqual(devOnly, [], 'the tarball carries tests, benchmarks, scripts or examples');
      assert.deepEqual(
        files.map((f) => f.path).filter((path) => path.startsWith('docs/') && !path.endsWith('.md')),
        [],
        "the tarball carries docs' images (the console's screenshots are most of a megabyte each)",
      );
      // npm 11 lists a tarball's `prepare` (and any install script) as a script the installing project has not
      // approved, and warns: the build runs in the clone as `postprepare` and `prepack`, which installs never run.
      const { stdout: packedManifest } = await run('tar', ['-xzOf', join(scratch.path, filename), 'package/package.json']);
      const { scripts = {} } = JSON.parse(packedManifest) as { scripts?: Record<string, string> };
      assert.deepEqual(
        ['preinstall', 'install', 'postinstall', 'prepare'].filter((name) => name in scripts),
        [],
        'the tarball has a script an install runs or asks about',
      );
      for (const entry of [
        'dist/src/client/index.js',
        'dist/src/client/index.d.ts',
        'dist/src/embed/index.js',
        'dist/src/embed/index.d.ts',
        'dist/src/cli/main.js',
      ]) {
        assert.ok(
          files.some((f) => f.path === entry),
          `${entry} is not in the tarball`,
        );
      }

      const project = join(scratch.path, 'dashboard');
      await run('mkdir', [project]);
      writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'dashboard', private: true, type: 'module' }));
      try {
        await run(
          'npm',
          ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--omit=optional', join(scratch.path, filename)],
          {
            cwd: project,
            timeout: 240_000,
            killSignal: 'SIGKILL',
          },
        );
      } catch (error) {
        const { stderr = '', killed } = error as { stderr?: string; killed?: boolean };
        if (killed || UNREACHABLE.test(stderr))
          return t.skip(`dependencies not in npm's cache and the registry unreachable: ${stderr.trim().split('\n').at(-1) ?? 'timed out'}`);
        throw error;
      }
      const lock = JSON.parse(readFileSync(join(project, 'package-lock.json'), 'utf8')) as { packages: Record<string, unknown> };
      const bytes = readdirSync(join(project, 'node_modules'), { recursive: true, encoding: 'utf8' })
        .map((file) => statSync(join(project, 'node_modules', file)))
        .reduce((sum, stat) => sum + (stat.isFile() ? stat.size : 0), 0);
      // README (The typed client) compares them with the dashboard package's.
      t.diagnostic(`installed: ${Object.keys(lock.packages).length - 1} packages, ${(bytes / 1e6).toFixed(1)} MB in node_modules`);
      assert.ok(
        readdirSync(join(project, 'node_modules', 'user-group-service')).includes('dist'),
        'installed as a copy, not a link to the checkout',
      );
      // The CLI under the package's own name (`ugs` is another package on the registry), and ugs beside it.
      for (const bin of ['user-group-service', 'ugs'])
        assert.ok(existsSync(join(project, 'node_modules', '.bin', bin)), `the install linked no ${bin} command`);
      const version = await run(process.execPath, [join(project, 'node_modules', '.bin', 'user-group-service'), '--version'], {
        cwd: project,
      });
      assert.equal(version.stdout, `${JSON.parse(packedManifest).version}\n`);
      // The `node` package that runs this checkout's npm scripts is a dev dependency: a dashboard on Node 22 or 24 keeps its own.
      assert.ok(
        !existsSync(join(project, 'node_modules', 'node')) && !existsSync(join(project, 'node_modules', '.bin', 'node')),
        'the install brought a second Node',
      );

      writeFileSync(join(project, 'dashboard.js'), DASHBOARD_JS);
      const imported = await run(process.execPath, ['dashboard.js'], { cwd: project });
      assert.deepEqual(JSON.parse(imported.stdout), {
        UserGroupClient: 'function',
        getOrCreate: 'function',
        UserGroupServiceError: 'function',
        createEmbedVerifier: 'function',
        bindProperties: 'function',
        EmbedTokenError: 'function',
      });

      writeFileSync(join(project, 'dashboard.ts'), DASHBOARD_TS);
      const tsc = await run(
        process.execPath,
        [
          TSC,
          '--noEmit',
          '--strict',
          '--skipLibCheck',
          '--module',
          'nodenext',
          '--moduleResolution',
          'nodenext',
          '--target',
          'es2022',
          '--typeRoots',
          join(REPO_ROOT, 'node_modules', '@types'),
          '--types',
          'node',
          'dashboard.ts',
        ],
        {
          cwd: project,
        },
      ).catch((error: { stdout?: string }) => assert.fail(`the types do not resolve from outside the checkout:\n${error.stdout}`));
      assert.equal(tsc.stdout, '');
    },
  );

  it('`npm run build:src` (the package alone, outside the install and pack build) compiles no test, bench, script or example', async () => {
    const listed = await run(process.execPath, [TSC, '-p', 'tsconfig.build.json', '--listFilesOnly'], {
      cwd: REPO_ROOT,
      maxBuffer: 16 * 1024 * 1024,
    });
    const compiled = listed.stdout.split('\n').filter((file) => file !== '' && !file.includes('/node_modules/'));
    assert.ok(
      compiled.some((file) => file.endsWith('/src/cli/main.ts')),
      'the build misses the CLI',
    );
    assert.deepEqual(
      compiled.filter((file) => !file.startsWith(`${REPO_ROOT}src/`)),
      [],
      'the package build compiles files outside src/',
    );
  });
});
