import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { CLI, startProcess, type Proc } from './benchmark.js';
import { adminQuery, createDatabaseOn } from '../test/helpers/embedded-postgres.js';
import { createTestRole } from '../test/helpers/postgres-roles.js';
import { postgresPolicySql } from 'user-group-service/embed';

/**
 * What the data router benchmark runs against: a database with a login role that row policies bind, and the
 * service (`ugs serve`, its own process, on `prefix`'s core) holding one data source for it and a dashboard key.
 */
export interface DataRouterFixture {
  /** The role's URL of the database: what the plain pool connects with. */
  databaseUrl: string;
  serviceUrl: string;
  dashboardKey: string;
  /** The data source's id, which the sessions' mapping names. */
  dataSourceId: string;
  stop(): Promise<void>;
}

/** Orders of one tenant, as a database of its own holds them. */
const ROWS = 100;

async function createKey(env: Record<string, string>, access: string): Promise<string> {
  const child = spawn(process.execPath, [CLI, 'keys', 'create', '--name', `bench-${access}`, '--access', access], {
    env: { ...process.env, ...env },
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const [code] = await once(child, 'exit');
  if (code !== 0) throw new Error(`keys create --access ${access} failed`);
  return out.trim().split('\n').at(-1)!;
}

export async function startDataRouterFixture(adminUrl: string, prefix: string[]): Promise<DataRouterFixture> {
  const database = await createDatabaseOn(adminUrl, 'ugs_bench_router');
  const role = await createTestRole(database.url);
  await adminQuery(
    database.url,
    `${postgresPolicySql()}
    CREATE TABLE orders (id int PRIMARY KEY, tenant_id text NOT NULL, amount int NOT NULL);
    INSERT INTO orders SELECT i, 'acme', i * 10 FROM generate_series(1, ${ROWS}) AS i;
    GRANT SELECT ON orders TO ${role.name};`,
  );
  const dataDir = mkdtempSync(join(tmpdir(), 'ugs-bench-router-'));
  let service: Proc | undefined;
  const stop = async () => {
    await service?.stop();
    rmSync(dataDir, { recursive: true, force: true });
    await role.drop();
    await database.drop();
  };
  try {
    const env = { UGS_DATA_DIR: dataDir, UGS_SECRET: randomBytes(32).toString('hex'), PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn' };
    const writeKey = await createKey(env, 'read-write');
    const dashboardKey = await createKey(env, 'dashboard');
    // At info, the service says where it listens.
    service = await startProcess([CLI, 'serve'], { ...env, LOG_LEVEL: 'info' }, /"url":"(http:\/\/[^"]+)"/, undefined, prefix);
    const url = new URL(role.url);
    const connection = {
      host: url.hostname,
      port: Number(url.port),
      database: url.pathname.slice(1),
      user: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
    };
    const response = await fetch(`${service.url}/api/data_sources`, {
      method: 'POST',
      headers: { authorization: `Bearer ${writeKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'bench-db', name: 'Bench', kind: 'postgresql', connection }),
    });
    if (response.status !== 201) throw new Error(`POST /api/data_sources answered ${response.status}: ${await response.text()}`);
    return { databaseUrl: role.url, serviceUrl: service.url, dashboardKey, dataSourceId: 'bench-db', stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
