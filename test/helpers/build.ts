import { after, before } from 'node:test';
import type { Access } from '../../src/api-keys/api-key.js';
import type { Environment } from '../../src/kernel/environment.js';
import type { ApiClient } from './http-client.js';
import { startTestServer, type TestServer, type TestServerOptions } from './test-server.js';

/**
 * The app on a real store and a real socket, torn down with the test that
 * built it, as fastify/demo's `build(t)` does: a test file states only what
 * it checks. `build(t)` serves one test; `buildForSuite()` one describe.
 */

/** A client with an API key of its own (`keyId` for revoking it or finding it in the audit log). */
export type TestClient = ApiClient & { keyId: string };

export interface ClientSpec {
  environment?: Environment;
  access?: Access;
}

/** A folder and how to dispose of it, as makeTempDir() and mountTmpfs() return them. */
export interface OwnedDir {
  path: string;
  remove(): void;
}

export interface BuildOptions<K extends string = never> extends Omit<TestServerOptions, 'dataDir'> {
  /** The store's folder: a path the caller keeps, or a folder the test made (a tmpfs...) that goes once the server is closed. */
  dataDir?: string | OwnedDir;
  /** More keys issued at start, by name: `{ testing: { environment: 'Testing' } }` gives `clients.testing`. */
  clients?: Record<K, ClientSpec>;
}

export interface TestApp<K extends string = never> extends TestServer {
  /** A Customer read-write key, issued at start. */
  api: TestClient;
  /** The keys asked for in `options.clients`. */
  clients: Record<K, TestClient>;
}

/** What `build` needs of a test: node:test's TestContext has it (`t.after` runs once the test is done, pass or fail). */
export interface Teardown {
  after(fn: () => Promise<void>): void;
}

/** Starts a server for one test and closes it (and removes its temp store) when the test ends. */
export async function build<K extends string = never>(t: Teardown, options: BuildOptions<K> = {}): Promise<TestApp<K>> {
  const { dataDir, ...rest } = options;
  const starting = startTestServer({ ...rest, dataDir: typeof dataDir === 'object' ? dataDir.path : dataDir });
  // Registered before anything can fail, so what was made goes with the test whatever happens next.
  t.after(async () => {
    await (await starting.catch(() => undefined))?.close();
    if (typeof dataDir === 'object') dataDir.remove();
  });
  const server = await starting;
  const api = await server.client();
  const clients = {} as Record<K, TestClient>;
  for (const [name, spec] of Object.entries(options.clients ?? {}) as [K, ClientSpec][]) clients[name] = await server.client(spec);
  return { ...server, api, clients };
}

/**
 * One server for every test of the enclosing describe: call it in the describe
 * body. It registers the suite's before hook that starts the server and its
 * after hook that closes it (node:test's suite context has no `after` of its
 * own). The returned object is filled in by that before hook, so read it in
 * tests and later hooks, not in the describe body; a `before` registered after
 * this call runs once the server is up.
 */
export function buildForSuite<K extends string = never>(options: BuildOptions<K> = {}): TestApp<K> {
  const shared = {} as TestApp<K>;
  const teardown: (() => Promise<void>)[] = [];
  before(async () => {
    Object.assign(shared, await build({ after: (fn) => teardown.push(fn) }, options));
  });
  after(async () => {
    for (const fn of teardown) await fn();
  });
  return shared;
}
