import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, describe, it } from 'node:test';
import { buildForSuite } from '../helpers/build.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const run = promisify(execFile);
const PACKAGE = fileURLToPath(new URL('../../../packages/embed/', import.meta.url));
const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const UNREACHABLE = /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|ENOTCACHED/;

/** A dashboard's backend: the client mints, the verifier checks, the binder binds, the policy helper writes SQL. */
const DASHBOARD_JS = `
import { UserGroupClient } from 'user-group-service-embed/client';
import { createEmbedVerifier, bindProperties, tablePolicySql, createDataRouter, createCubeCheckAuth } from 'user-group-service-embed/embed';
const client = new UserGroupClient({ baseUrl: process.env.UGS_URL, apiKey: process.env.UGS_API_KEY });
await client.getOrCreate({ user_group_id: 'acme', name: 'Acme', properties: { region: 'eu' } });
const { token } = await client.mintEmbedSession({ user_group_id: 'acme' });
const verifier = createEmbedVerifier({ serviceUrl: process.env.UGS_URL });
const claims = await verifier.verify(token);
await verifier.close();
const bound = bindProperties('SELECT * FROM orders WHERE region = {{region}}', claims, 'postgres');
console.log(JSON.stringify({
  sub: claims.sub, values: bound.values, policy: tablePolicySql({ table: 'orders', column: 'tenant_id' }).includes('POLICY'),
  router: typeof createDataRouter, cube: typeof createCubeCheckAuth,
}));
`;

const DASHBOARD_TS = `
import { UserGroupClient, type UserGroup } from 'user-group-service-embed/client';
import { createEmbedVerifier, createDataRouter, type EmbedClaims } from 'user-group-service-embed/embed';
export const client: UserGroupClient = new UserGroupClient({ baseUrl: 'http://localhost:8080', apiKey: 'k' });
export const verifier = createEmbedVerifier({ serviceUrl: 'http://localhost:8080' });
export const router = createDataRouter({ serviceUrl: 'http://localhost:8080', apiKey: 'k' });
export type Seen = [UserGroup['token'], EmbedClaims];
`;

/**
 * packages/embed installed from its tarball in a project of its own, as a dashboard team installs it: what it
 * brings (jose, pg and their dependencies, two type packages), no warning, and it works against a live service,
 * in JavaScript and, with skipLibCheck off, in TypeScript.
 */
describe('user-group-service-embed, installed from its tarball', () => {
  const server = buildForSuite();
  const scratch = makeTempDir('ugs-embed-package');
  after(() => scratch.remove());

  it('installs jose and pg, no server, and mints, verifies and binds against a live service', { timeout: 300_000 }, async (t) => {
    const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', scratch.path], { cwd: PACKAGE });
    const [{ filename, size }] = JSON.parse(packed.stdout) as [{ filename: string; size: number }];
    t.diagnostic(`tarball: ${size} bytes`);
    const project = join(scratch.path, 'dashboard');
    await run('mkdir', [project]);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'dashboard', private: true, type: 'module' }));
    let output: { stdout: string; stderr: string };
    try {
      output = await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', join(scratch.path, filename)], {
        cwd: project,
        timeout: 240_000,
        killSignal: 'SIGKILL',
      });
    } catch (error) {
      const { stderr = '', killed } = error as { stderr?: string; killed?: boolean };
      if (killed || UNREACHABLE.test(stderr))
        return t.skip(`dependencies not in npm's cache and the registry unreachable: ${stderr.trim().split('\n').at(-1) ?? 'timed out'}`);
      throw error;
    }
    assert.doesNotMatch(output.stderr, /warn/i, 'npm warned while installing');
    const installed = readdirSync(join(project, 'node_modules')).flatMap((name) =>
      name.startsWith('@') ? readdirSync(join(project, 'node_modules', name)).map((inner) => `${name}/${inner}`) : [name],
    );
    const packages = installed.filter((name) => !name.startsWith('.'));
    t.diagnostic(`${packages.length} packages: ${packages.join(', ')}`);
    for (const needed of ['jose', 'pg', 'user-group-service-embed']) assert.ok(packages.includes(needed), needed);
    for (const server of ['fastify', 'better-sqlite3', 'pino', 'kysely']) assert.ok(!packages.includes(server), `${server} came along`);
    assert.ok(packages.length <= 25, `${packages.length} packages`);

    const { key } = await server.services.apiKeys.create({ environment: 'Customer', access: 'read-write' });
    writeFileSync(join(project, 'dashboard.js'), DASHBOARD_JS);
    const ran = await run(process.execPath, ['dashboard.js'], {
      cwd: project,
      env: { ...process.env, UGS_URL: server.url, UGS_API_KEY: key },
    });
    assert.deepEqual(JSON.parse(ran.stdout), { sub: 'acme', values: ['eu'], policy: true, router: 'function', cube: 'function' });

    writeFileSync(join(project, 'dashboard.ts'), DASHBOARD_TS);
    const tsc = await run(
      process.execPath,
      [
        TSC,
        '--noEmit',
        '--strict',
        '--module',
        'nodenext',
        '--moduleResolution',
        'nodenext',
        '--target',
        'es2022',
        '--types',
        'node',
        'dashboard.ts',
      ],
      { cwd: project },
    ).catch((error: { stdout?: string }) => assert.fail(`the types do not check from outside the checkout:\n${error.stdout}`));
    assert.equal(tsc.stdout, '');
    void REPO_ROOT;
  });
});
