import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { CHECK_FAILURES, type ConnectionCheckResult } from '../../../src/data-sources/connection-check.js';
import type { PostgresConnection, SslMode } from '../../../src/data-sources/data-source.js';
import { DataSourceAddressPolicy } from '../../../src/data-sources/check/data-source-address-policy.js';
import { PostgresConnectionChecker } from '../../../src/data-sources/check/postgres-connection-checker.js';
import { adminQuery, freePort } from '../../helpers/embedded-postgres.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/postgres.js';
import { createTestRole, type TestRole } from '../../helpers/postgres-roles.js';

type Checked = PostgresConnection & { password: string | null };

/** A data source's connection from a test URL. */
function connectionOf(url: string, change: Partial<Checked> = {}): Checked {
  const parsed = new URL(url);
  return {
    host: parsed.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: Number(parsed.port || 5432),
    database: decodeURIComponent(parsed.pathname.slice(1)),
    user: decodeURIComponent(parsed.username),
    password: decodeURIComponent(parsed.password),
    ssl: { mode: 'disable' },
    ...change,
  };
}

/**
 * Every field is a category, a flag or a number: no string but a known failure and a bare version number, so no
 * server's text can be in a result.
 */
function assertCategoriesOnly(result: ConnectionCheckResult): void {
  assert.deepEqual(Object.keys(result).sort(), [
    'authenticated',
    'bypassRls',
    'durationMs',
    'failure',
    'reachable',
    'serverVersion',
    'superuser',
    'tls',
  ]);
  for (const key of ['reachable', 'authenticated'] as const) assert.equal(typeof result[key], 'boolean', key);
  for (const key of ['superuser', 'bypassRls', 'tls'] as const) assert.ok(result[key] === null || typeof result[key] === 'boolean', key);
  assert.ok(result.failure === null || CHECK_FAILURES.includes(result.failure), String(result.failure));
  assert.ok(result.serverVersion === null || /^\d+(\.\d+)*$/.test(result.serverVersion), String(result.serverVersion));
  assert.ok(Number.isInteger(result.durationMs) && result.durationMs >= 0);
}

/** What a failed check reports beyond its category: nothing it could not have learnt. */
const failed = (failure: string, reachable: boolean, authenticated = false) => ({
  reachable,
  authenticated,
  serverVersion: null,
  superuser: null,
  bypassRls: null,
  tls: null,
  failure,
});

const withoutDuration = ({ durationMs: _durationMs, ...rest }: ConnectionCheckResult) => rest;

describe('PostgreSQL connection checker, on a real server', () => {
  const checker = new PostgresConnectionChecker({ addressPolicy: new DataSourceAddressPolicy({ ownPorts: () => [] }) });
  let database: TestDatabase;
  let plain: TestRole;
  let bypassing: TestRole;
  let serverTls: boolean;

  before(async () => {
    database = await createTestDatabase();
    plain = await createTestRole(database.url);
    bypassing = await createTestRole(database.url, { bypassRls: true });
    serverTls = (await adminQuery(database.url, 'SHOW ssl')).rows[0].ssl === 'on';
  });
  after(async () => {
    await plain?.drop();
    await bypassing?.drop();
    await database?.drop();
  });

  const check = async (connection: Checked) => {
    const result = await checker.check(connection);
    assertCategoriesOnly(result);
    return result;
  };

  it('finds a superuser: reachable, authenticated, the version, superuser', async () => {
    const result = await check(connectionOf(database.url));
    const { server_version: version } = (await adminQuery(database.url, 'SHOW server_version')).rows[0];
    assert.equal(result.failure, null);
    assert.equal(result.reachable, true);
    assert.equal(result.authenticated, true);
    assert.equal(result.superuser, true);
    assert.equal(result.tls, false);
    assert.ok(result.serverVersion && String(version).startsWith(result.serverVersion), `${result.serverVersion} of ${version}`);
  });

  it('finds a plain login role neither superuser nor BYPASSRLS: row policies bind it', async () => {
    const result = await check(connectionOf(plain.url));
    assert.deepEqual(
      { ...withoutDuration(result), serverVersion: null },
      {
        reachable: true,
        authenticated: true,
        serverVersion: null,
        superuser: false,
        bypassRls: false,
        tls: false,
        failure: null,
      },
    );
  });

  it('finds a BYPASSRLS role', async () => {
    const result = await check(connectionOf(bypassing.url));
    assert.equal(result.failure, null);
    assert.equal(result.superuser, false);
    assert.equal(result.bypassRls, true);
  });

  it('reports a wrong password as authentication_failed, the server reached', async () => {
    assert.deepEqual(
      withoutDuration(await check(connectionOf(plain.url, { password: 'not-the-password' }))),
      failed('authentication_failed', true),
    );
  });

  it('reports a missing password the server asks for as authentication_failed, without looking in PGPASSWORD', async () => {
    const before = process.env.PGPASSWORD;
    process.env.PGPASSWORD = new URL(plain.url).password;
    try {
      assert.deepEqual(withoutDuration(await check(connectionOf(plain.url, { password: null }))), failed('authentication_failed', true));
    } finally {
      if (before === undefined) delete process.env.PGPASSWORD;
      else process.env.PGPASSWORD = before;
    }
  });

  it('reports an unknown database as database_not_found', async () => {
    // PostgreSQL looks the database up after authenticating: the credentials were accepted.
    const result = await check(connectionOf(plain.url, { database: 'no_such_database_here' }));
    assert.deepEqual(withoutDuration(result), failed('database_not_found', true, true));
  });

  it('reports a closed port as connection_refused, not reachable', async () => {
    const port = await freePort();
    assert.deepEqual(withoutDuration(await check(connectionOf(plain.url, { port }))), failed('connection_refused', false));
  });

  it('reports each TLS mode against a server without TLS as tls_failed', async (t) => {
    if (serverTls) return t.skip('the test server has TLS on');
    for (const mode of ['require', 'verify-ca', 'verify-full'] as SslMode[]) {
      const result = await check(connectionOf(plain.url, { ssl: { mode } }));
      assert.deepEqual(withoutDuration(result), failed('tls_failed', true), mode);
    }
  });

  it('connects to the addresses the policy checked, falling back from one that refuses, and looks the name up once', async () => {
    const lookups: string[] = [];
    const host = connectionOf(plain.url).host;
    const named = new PostgresConnectionChecker({
      addressPolicy: new DataSourceAddressPolicy({
        ownPorts: () => [],
        // ::1 first: the test server listens on 127.0.0.1 only (unless DATABASE_URL names another).
        resolve: async (name) => {
          lookups.push(name);
          return name === 'db.test'
            ? [
                { address: '::1', family: 6 },
                { address: host, family: host.includes(':') ? 6 : 4 },
              ]
            : [];
        },
      }),
    });
    const result = await named.check(connectionOf(plain.url, { host: 'db.test' }));
    assertCategoriesOnly(result);
    assert.equal(result.failure, null);
    assert.deepEqual(lookups, ['db.test']);
  });

  it('refuses, before connecting, a host the address policy refuses, and a name that does not resolve', async () => {
    for (const host of ['169.254.169.254', 'fe80::1', '0.0.0.0', '224.0.0.1'])
      assert.deepEqual(withoutDuration(await check(connectionOf(plain.url, { host }))), failed('address_refused', false), host);
    const unresolved = new PostgresConnectionChecker({
      addressPolicy: new DataSourceAddressPolicy({
        ownPorts: () => [],
        resolve: async () => Promise.reject(Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' })),
      }),
    });
    assert.deepEqual(
      withoutDuration(await unresolved.check(connectionOf(plain.url, { host: 'nowhere.test' }))),
      failed('host_not_found', false),
    );
  });
});

describe('PostgreSQL connection checker, against servers that do not answer', () => {
  let server: Server;
  let port: number;
  const accepted: Socket[] = [];

  before(async () => {
    // Accepts and never says a word: a firewall that lets SYN through to a stuck process, or the wrong service.
    server = createServer((socket) => void accepted.push(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  after(async () => {
    for (const socket of accepted) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  const silent = (mode: SslMode): Checked => ({ host: '127.0.0.1', port, database: 'd', user: 'u', password: 'p', ssl: { mode } });
  const checker = new PostgresConnectionChecker({
    addressPolicy: new DataSourceAddressPolicy({ ownPorts: () => [] }),
    connectTimeoutMs: 200,
  });

  it('reports a server that accepts and never answers as timeout, reachable, after the configured timeout', async () => {
    for (const mode of ['disable', 'require'] as SslMode[]) {
      const result = await checker.check(silent(mode));
      assertCategoriesOnly(result);
      assert.deepEqual(withoutDuration(result), failed('timeout', true), mode);
      assert.ok(result.durationMs >= 190 && result.durationMs < 5000, `${result.durationMs} ms`);
    }
  });

  it('reports a name whose lookup never answers as timeout', async () => {
    const stuck = new PostgresConnectionChecker({
      addressPolicy: new DataSourceAddressPolicy({ ownPorts: () => [], resolve: () => new Promise(() => {}) }),
      connectTimeoutMs: 100,
    });
    const result = await stuck.check({ ...silent('disable'), host: 'stuck.test' });
    assert.deepEqual(withoutDuration(result), failed('timeout', false));
  });
});
