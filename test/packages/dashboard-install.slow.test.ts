import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, describe, it, type TestContext } from 'node:test';
import { buildDashboardPackage } from '../../scripts/build-packages.js';
import { buildForSuite } from '../helpers/build.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { createTenantDatabase, type TenantDatabase } from '../embed/tenant-databases.js';

const run = promisify(execFile);
const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const PACKAGE = 'user-group-service-dashboard';

/** What npm says when it cannot reach the registry for a package missing from its cache. */
const UNREACHABLE = /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|ENOTCACHED/;

/** The packages an install may bring: this one, jose, and node-postgres with its own (pg-pool, pg-types, …). */
const EXPECTED = /^(user-group-service-dashboard|jose|pg|pg-[a-z0-9-]+|pgpass|postgres-[a-z]+|split2|xtend)$/;

/**
 * A dashboard's own code, run in the project that installed the tarball: the client makes a group and mints a
 * session, the verifier verifies the token, the binder binds its property, the policy helpers write a policy and
 * bind a connection of the project's own pg to the session, and the router runs a query on the group's data source.
 */
const DASHBOARD_JS = `
import pg from 'pg';
import { UserGroupClient } from '${PACKAGE}/client';
import { bindProperties, createDataRouter, createEmbedVerifier, tablePolicySql, withSessionClaims } from '${PACKAGE}/embed';

const { UGS_URL: serviceUrl, UGS_KEY: apiKey, UGS_DASHBOARD_KEY: dashboardKey, ORDERS_DB } = process.env;
const client = new UserGroupClient({ baseUrl: serviceUrl, apiKey });
const { user_group: userGroup } = await client.getOrCreate({ user_group_id: 'acme', name: 'Acme', mapping: { '40': 'orders' }, properties: { region: 'eu' } });
const session = await client.mintEmbedSession({ user_group_id: 'acme', include_descendants: true });
const verifier = createEmbedVerifier({ serviceUrl });
const claims = await verifier.verify(session.token);
const bound = bindProperties('SELECT * FROM orders WHERE region = {{ region }}', claims, 'postgres');
const policy = tablePolicySql({ table: 'orders', column: 'tenant_id' });
const count = 'SELECT tenant_id, count(*)::int AS n FROM orders GROUP BY tenant_id ORDER BY tenant_id';
const db = new pg.Client(JSON.parse(ORDERS_DB));
await db.connect();
const direct = await withSessionClaims(db, claims, async (c) => (await c.query(count)).rows);
await db.end();
const router = createDataRouter({ serviceUrl, apiKey: dashboardKey });
const routed = await router.run(claims, '40', async (c) => (await c.query(count)).rows);
await router.close();
await verifier.close();
console.log(JSON.stringify({ group: userGroup.provided_id, sub: claims.sub, props: claims.props, bound, policy, direct, routed }));
`;

/** The same calls, type-checked as a TypeScript dashboard would be, libraries included (skipLibCheck: false). */
const DASHBOARD_TS = `
import pg from 'pg';
import { UserGroupClient, UserGroupServiceError, type DataSource, type UserGroup } from '${PACKAGE}/client';
import {
  bindProperties, createDataRouter, createEmbedVerifier, tablePolicySql, withSessionClaims,
  type BoundQuery, type DataRouter, type EmbedClaims,
} from '${PACKAGE}/embed';

export async function page(client: UserGroupClient, token: string): Promise<number> {
  const verifier = createEmbedVerifier({ serviceUrl: 'http://localhost:8080' });
  const claims: EmbedClaims = await verifier.verify(token);
  const { text, values }: BoundQuery = bindProperties('SELECT 1 WHERE {{ region }} IS NOT NULL', claims, 'postgres');
  const router: DataRouter = createDataRouter({ serviceUrl: 'http://localhost:8080', apiKey: 'k' });
  const rows = await router.run(claims, '40', async (c) => (await c.query<{ n: number }>(text, values)).rows);
  const first: number | undefined = rows[0]?.n;
  await withSessionClaims(new pg.Client(), claims, (c) => c.query('SELECT 1'));
  const group: UserGroup = (await client.getOrCreate({ user_group_id: 'acme' })).user_group;
  const sources: DataSource[] = (await client.dataSources.list()).data_sources;
  const gone = (error: unknown) => error instanceof UserGroupServiceError && error.code === 'not_found';
  return (first ?? 0) + group.team_id + sources.length + tablePolicySql({ table: 'orders', column: 'tenant_id' }).length + Number(gone(null));
}
`;

/** A mistake the declarations must catch: they are read, not taken as \`any\`. */
const WRONG_TS = `
import { UserGroupClient } from '${PACKAGE}/client';
export const teamId: string = (await new UserGroupClient({ baseUrl: 'http://localhost:8080', apiKey: 'k' }).get('acme')).team_id;
`;

const TSCONFIG = {
  compilerOptions: {
    strict: true,
    module: 'nodenext',
    moduleResolution: 'nodenext',
    target: 'es2022',
    skipLibCheck: false,
    noEmit: true,
    types: ['node'],
  },
};

/** `npm …` in `cwd`; the test skips when the registry cannot be reached. */
async function npm(t: TestContext, args: string[], cwd: string): Promise<{ stdout: string; stderr: string } | undefined> {
  try {
    return await run('npm', args, { cwd, timeout: 240_000, killSignal: 'SIGKILL', maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    const { stderr = '', killed } = error as { stderr?: string; killed?: boolean };
    if (killed || UNREACHABLE.test(stderr)) {
      t.skip(`the registry is unreachable: ${stderr.trim().split('\n').at(-1) ?? 'timed out'}`);
      return undefined;
    }
    throw error;
  }
}

/** npm's lines that warn: "npm warn …" (deprecations, install scripts npm did not run, peer conflicts…). */
function warnings(output: { stdout: string; stderr: string }): string[] {
  return `${output.stdout}\n${output.stderr}`.split('\n').filter((line) => /\bwarn\b|\bWARN\b|deprecated/i.test(line));
}

function bytesUnder(dir: string): number {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).reduce((sum, file) => {
    const stat = statSync(join(dir, file));
    return stat.isFile() ? sum + stat.size : sum;
  }, 0);
}

/**
 * packages/dashboard as a dashboard project gets it: packed by npm, installed from the tarball into a project
 * outside the checkout with the registry (no --ignore-scripts, no --omit), then used against a live service and a
 * PostgreSQL database with row policies, in JavaScript, and type-checked in TypeScript.
 */
describe('packages/dashboard, installed from its tarball in a dashboard project', () => {
  const service = buildForSuite();
  const scratch = makeTempDir('ugs-dashboard-install');
  let orders: TenantDatabase | undefined;
  after(async () => {
    await orders?.drop();
    scratch.remove();
  });

  it(
    'packs small, installs jose and pg alone without a warning, and its client, verifier, binder, policies and router work',
    { timeout: 300_000 },
    async (t) => {
      const built = join(scratch.path, 'package');
      buildDashboardPackage(built);
      const packed = await run('npm', ['pack', '--json', '--pack-destination', scratch.path], { cwd: built });
      const [tarball] = JSON.parse(packed.stdout) as [{ filename: string; size: number; unpackedSize: number; files: { path: string }[] }];
      assert.deepEqual(
        tarball.files.map((f) => f.path).filter((path) => !/^(dist\/.+\.(js|d\.ts)|package\.json|README\.md|LICENSE)$/.test(path)),
        [],
        'the tarball carries more than the compiled code, its manifest, README and LICENSE',
      );
      assert.ok(tarball.size < 100_000, `the tarball is ${tarball.size} bytes`);
      t.diagnostic(`tarball: ${tarball.filename}, ${tarball.size} bytes (${tarball.unpackedSize} unpacked, ${tarball.files.length} files)`);

      const project = join(scratch.path, 'dashboard');
      mkdirSync(project);
      writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'dashboard', private: true, type: 'module' }));
      const installed = await npm(t, ['install', '--no-audit', '--no-fund', join(scratch.path, tarball.filename)], project);
      if (!installed) return;
      assert.deepEqual(warnings(installed), [], 'npm warned while installing the package');
      const lock = JSON.parse(readFileSync(join(project, 'package-lock.json'), 'utf8')) as { packages: Record<string, unknown> };
      const packages = Object.keys(lock.packages)
        .filter((path) => path !== '')
        .map((path) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length));
      assert.deepEqual(
        packages.filter((name) => !EXPECTED.test(name)),
        [],
        'the install brought a package that is neither jose nor node-postgres',
      );
      const megabytes = bytesUnder(join(project, 'node_modules')) / 1e6;
      t.diagnostic(`installed: ${packages.length} packages (${packages.sort().join(', ')}), ${megabytes.toFixed(1)} MB in node_modules`);

      orders = await createTenantDatabase({ acme: 3, globex: 2 }, { shared: true });
      const { password, ...connection } = orders.connection();
      const created = await service.api.call(
        'POST',
        { id: 'orders', name: 'Orders', kind: 'postgresql', connection: { ...connection, password } },
        { path: '/api/data_sources' },
      );
      assert.equal(created.status, 201, created.text);
      const { key: dashboardKey } = await service.services.apiKeys.create({ environment: 'Customer', access: 'dashboard' });
      writeFileSync(join(project, 'dashboard.js'), DASHBOARD_JS);
      const dashboard = await run(process.execPath, ['dashboard.js'], {
        cwd: project,
        env: {
          ...process.env,
          UGS_URL: service.url,
          UGS_KEY: service.api.key!,
          UGS_DASHBOARD_KEY: dashboardKey,
          ORDERS_DB: JSON.stringify({
            host: connection.host,
            port: connection.port,
            database: connection.database,
            user: connection.user,
            password,
          }),
        },
      });
      const seen = JSON.parse(dashboard.stdout) as Record<string, unknown>;
      assert.equal(seen.group, 'acme');
      assert.equal(seen.sub, 'acme', 'the verifier read the token the client minted');
      assert.deepEqual(seen.props, { region: 'eu' });
      assert.deepEqual(seen.bound, { text: 'SELECT * FROM orders WHERE region = $1', values: ['eu'] });
      assert.match(String(seen.policy), /CREATE POLICY/);
      assert.deepEqual(seen.direct, [{ tenant_id: 'acme', n: 3 }], "withSessionClaims on the project's own pg: acme's rows alone");
      assert.deepEqual(seen.routed, [{ tenant_id: 'acme', n: 3 }], "the router: acme's data source, acme's rows alone");

      // pg ships no declarations: a project that checks libraries adds @types/pg, the package's optional peer.
      const typed = await npm(t, ['install', '--no-audit', '--no-fund', '--save-dev', '@types/pg@^8.23.1'], project);
      if (!typed) return;
      assert.deepEqual(warnings(typed), [], 'npm warned while installing @types/pg');
      writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({ ...TSCONFIG, files: ['dashboard.ts'] }));
      writeFileSync(join(project, 'dashboard.ts'), DASHBOARD_TS);
      const tsc = await run(process.execPath, [TSC, '-p', 'tsconfig.json'], { cwd: project }).catch((error: { stdout?: string }) =>
        assert.fail(`the declarations do not type-check with skipLibCheck: false:\n${error.stdout}`),
      );
      assert.equal(tsc.stdout, '');
      writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({ ...TSCONFIG, files: ['wrong.ts'] }));
      writeFileSync(join(project, 'wrong.ts'), WRONG_TS);
      const wrong = await run(process.execPath, [TSC, '-p', 'tsconfig.json'], { cwd: project }).then(
        () => assert.fail('a number taken for a string type-checked'),
        (error: { stdout?: string }) => error.stdout ?? '',
      );
      assert.match(wrong, /wrong\.ts\(\d+,\d+\): error TS2322: Type 'number' is not assignable to type 'string'/);
    },
  );
});
