import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { createTestDatabase } from '../helpers/postgres.js';
import { ConsoleClient } from '../helpers/console-client.js';
import { build, type TestApp } from '../helpers/build.js';
import { startReceiver } from '../helpers/webhook-receiver.js';
import { webhookWorkerFor } from '../../src/webhooks/delivery/webhook-worker.js';
import { secretForms } from '../helpers/secret-forms.js';

/** Every file under `dir`, as bytes. */
function dumpFiles(dir: string): { where: string; bytes: Buffer }[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile())
    .map((path) => ({ where: path, bytes: readFileSync(path) }));
}

/** Every row of every table, each value as text (binary as hex and as its raw bytes). */
function rowsAsBytes(table: string, rows: Record<string, unknown>[]): { where: string; bytes: Buffer } {
  const parts = rows.flatMap((row) =>
    Object.values(row).map((value) =>
      Buffer.isBuffer(value) ? Buffer.concat([value, Buffer.from(value.toString('hex'))]) : Buffer.from(String(value)),
    ),
  );
  return { where: `table ${table}`, bytes: Buffer.concat(parts) };
}

function dumpSqliteTables(path: string): { where: string; bytes: Buffer }[] {
  const db = new SqliteDatabase(path, { readonly: true });
  try {
    const tables = db.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'").all();
    return tables.map(({ name }) => rowsAsBytes(name, db.prepare<[], Record<string, unknown>>(`SELECT * FROM "${name}"`).all()));
  } finally {
    db.close();
  }
}

async function dumpPostgresTables(url: string): Promise<{ where: string; bytes: Buffer }[]> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    const { rows: tables } = await client.query<{ name: string }>("SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public'");
    const dumps = [];
    for (const { name } of tables) dumps.push(rowsAsBytes(name, (await client.query(`SELECT * FROM "${name}"`)).rows));
    return dumps;
  } finally {
    await client.end();
  }
}

/** The forms a leaked secret could take at rest. */
/** Issues keys and tokens (created, rotated, revoked) through the API; returns every secret handed out. */
async function exercise(server: TestApp): Promise<string[]> {
  const secrets: string[] = [];
  const api = await server.client();
  secrets.push(api.key!);
  const revoked = await server.client({ environment: 'Testing' });
  secrets.push(revoked.key!);
  await server.services.apiKeys.revoke(revoked.keyId);
  for (let i = 0; i < 20; i++) {
    const token = (await api.getOrCreate({ user_group_id: `g${i}`, name: `G${i}`, properties: { i } })).json.user_group.token;
    secrets.push(token);
    if (i % 2 === 0) secrets.push((await api.rotate(token)).json.user_group.token);
  }
  // The console: the key it is signed in with, and the session id its cookie holds, are secrets too.
  const browser = new ConsoleClient(server.url);
  assert.equal((await browser.signIn(api.key!)).status, 303);
  secrets.push(browser.cookie!.slice('ugs_console='.length));
  assert.equal((await browser.get('/console/groups/g1')).status, 200);
  // Data source passwords, as created and as changed (an audit record and an event name the field, never the value).
  const connection = { host: '10.9.8.7', database: 'acme', user: 'reader', password: 'ds-password-first-0f3c9a' };
  const created = await api.call(
    'POST',
    { id: 'warehouse', name: 'Warehouse', kind: 'postgresql', connection },
    { path: '/api/data_sources' },
  );
  assert.equal(created.status, 201, created.text);
  const changed = await api.call('PUT', { connection: { password: 'ds-password-second-77b1e2' } }, { path: '/api/data_sources/warehouse' });
  assert.equal(changed.status, 200, changed.text);
  secrets.push('ds-password-first-0f3c9a', 'ds-password-second-77b1e2');
  // Metabase's embedding secret key, as set and as replaced, and a token signed with it.
  // 64 lowercase hex characters, as Metabase makes them (the only keys it takes).
  for (const secretKey of [
    '5e0d1c9b8a7f6e5d4c3b2a1908f7e6d50f3c9a77b1e2a9d8c7b6a5f4e3d2c1b0',
    '0a1b2c3d4e5f60718293a4b5c6d7e8f9e5d4c3b2a1908f7e6d5c4b3a29180f7e',
  ]) {
    const set = await api.call(
      'PUT',
      { site_url: 'https://metabase.example.com', secret_key: secretKey },
      { path: '/api/integrations/metabase' },
    );
    assert.equal(set.status, 200, set.text);
    secrets.push(secretKey);
  }
  const minted = await api.call(
    'POST',
    { user_group_id: 'g1', resource: { dashboard: 1 }, params: { tenant: 'user_group_id' } },
    { path: '/api/integrations/metabase/embed_tokens' },
  );
  assert.equal(minted.status, 201, minted.text);
  secrets.push(minted.json.metabase_token.token);
  // Webhook signing secrets, current and previous, and a delivery with its attempt.
  const receiver = await startReceiver();
  try {
    const principal = { keyId: api.keyId, environment: 'Customer' as const, access: 'read-write' as const };
    const { webhook, secret } = await server.services.webhooks.create(principal, { url: receiver.url });
    secrets.push(secret, (await server.services.webhooks.rotateSecret(principal, webhook.id)).secret);
    await api.getOrCreate({ user_group_id: 'hooked', name: 'Hooked' });
    await webhookWorkerFor(server.services).runOnce();
    await receiver.waitFor(1);
  } finally {
    await receiver.close();
  }
  return secrets;
}

function assertNoSecret(dumps: { where: string; bytes: Buffer }[], secrets: string[], when: string): void {
  assert.ok(dumps.length > 0);
  for (const { where, bytes } of dumps) {
    for (const secret of secrets) {
      for (const form of secretForms(secret)) assert.equal(bytes.includes(form), false, `${when}: ${where} holds a secret`);
    }
  }
}

describe('secrets at rest', () => {
  it('SQLite: no file in the data dir and no table holds a plaintext token or API key, live or after shutdown', async (t) => {
    const server = await build(t, { kind: 'sqlite', webhooks: { allowPrivateTargets: true }, apiKey: false });
    const secrets = await exercise(server);
    const file = join(server.dataDir, 'user-groups.sqlite');
    assertNoSecret([...dumpFiles(server.dataDir), ...dumpSqliteTables(file)], secrets, 'while running');
    for (const table of ['audit_log', 'data_sources', 'metabase_settings', 'webhooks', 'webhook_deliveries', 'webhook_delivery_attempts']) {
      assert.ok(
        dumpSqliteTables(file).some((d) => d.where === `table ${table}` && d.bytes.length > 0),
        `${table} was dumped`,
      );
    }
    const dataDir = server.dataDir;
    await server.app.close();
    await server.services.close();
    assertNoSecret([...dumpFiles(dataDir), ...dumpSqliteTables(file)], secrets, 'after shutdown');
    assert.equal(statSync(join(dataDir, 'server-secret')).mode & 0o777, 0o600);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    await server.close();
  });

  it('PostgreSQL: no table holds a plaintext token or API key', async (t) => {
    const database = await createTestDatabase({ migrated: true });
    const server = await build(t, { postgres: database, webhooks: { allowPrivateTargets: true }, apiKey: false });
    try {
      const secrets = await exercise(server);
      const dumps = await dumpPostgresTables(database.url);
      assert.deepEqual(dumps.map((d) => d.where).sort(), [
        'table api_keys',
        'table audit_log',
        'table console_sessions',
        'table data_sources',
        'table embed_revocations',
        'table embed_sessions',
        'table events',
        'table group_tags',
        'table kysely_migration',
        'table kysely_migration_lock',
        'table metabase_settings',
        'table session_activity',
        'table session_activity_batches',
        'table settings',
        'table signing_keys',
        'table user_groups',
        'table viewer_activity',
        'table viewer_hours',
        'table webhook_deliveries',
        'table webhook_delivery_attempts',
        'table webhooks',
      ]);
      assertNoSecret([...dumps, ...dumpFiles(server.dataDir)], secrets, 'PostgreSQL');
    } finally {
      await server.close();
      await database.drop();
    }
  });
});
