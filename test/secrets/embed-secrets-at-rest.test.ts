import assert from 'node:assert/strict';
import { createPrivateKey } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import pg from 'pg';
import { signingKeySealContext } from '../../src/signing-keys/signing-key.js';
import SqliteDatabase from 'better-sqlite3';
import { createTestDatabase } from '../helpers/postgres.js';
import { build, type TestApp } from '../helpers/build.js';

/** Every file under `dir`, and every value of every table, as bytes (binary also as hex). */
function filesUnder(dir: string): { where: string; bytes: Buffer }[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile())
    .map((path) => ({ where: path, bytes: readFileSync(path) }));
}

function asBytes(where: string, rows: Record<string, unknown>[]): { where: string; bytes: Buffer } {
  const values = rows.flatMap((row) =>
    Object.values(row).map((v) =>
      Buffer.isBuffer(v)
        ? Buffer.concat([v, Buffer.from(v.toString('hex'))])
        : Buffer.from(typeof v === 'object' ? JSON.stringify(v) : String(v)),
    ),
  );
  return { where, bytes: Buffer.concat(values) };
}

function sqliteTables(path: string): { where: string; bytes: Buffer }[] {
  const db = new SqliteDatabase(path, { readonly: true });
  try {
    const tables = db.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'").all();
    return tables.map(({ name }) => asBytes(`table ${name}`, db.prepare<[], Record<string, unknown>>(`SELECT * FROM "${name}"`).all()));
  } finally {
    db.close();
  }
}

async function postgresTables(url: string): Promise<{ where: string; bytes: Buffer }[]> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>("SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public'");
    const dumps = [];
    for (const { name } of rows) dumps.push(asBytes(`table ${name}`, (await client.query(`SELECT * FROM "${name}"`)).rows));
    return dumps;
  } finally {
    await client.end();
  }
}

/**
 * Mints, ends and rotates through the API and rotates the signing key; returns
 * the secrets that must never be at rest: each private signing key (PEM, and
 * its JWK `d`) and every embed token handed out.
 */
async function exercise(server: TestApp): Promise<string[]> {
  const api = await server.client();
  const tokens: string[] = [];
  for (let i = 0; i < 5; i++) {
    const group = (await api.getOrCreate({ user_group_id: `g${i}`, name: `G${i}`, properties: { i } })).json.user_group;
    const minted = (
      await api.call(
        'POST',
        { user_group_id: `g${i}`, dashboard: 'd', origins: ['https://app.example.com'] },
        { path: '/api/embed_sessions' },
      )
    ).json.embed_session;
    tokens.push(minted.token);
    if (i % 2 === 0) await api.call('DELETE', undefined, { path: `/api/embed_sessions/${minted.session_id}` });
    else await api.rotate(group.token);
  }
  await server.services.signingKeys.Customer.rotate();
  await server.services.signingKeys.Testing.rotate();
  const keys = [
    ...(await server.services.secretRotation.signingKeyReseal.listSigningKeys('Customer')),
    ...(await server.services.secretRotation.signingKeyReseal.listSigningKeys('Testing')),
  ];
  assert.equal(keys.length, 4);
  const privateKeys = keys.flatMap((key) => {
    const pem = server.services.cipher.open(key.privateKeyCiphertext, signingKeySealContext(key.kid));
    const d = createPrivateKey(pem).export({ format: 'jwk' }).d!;
    return [pem, pem.split('\n').slice(1, -2).join(''), d, Buffer.from(d, 'base64url').toString('latin1')];
  });
  return [...privateKeys, ...tokens];
}

function assertNoneAtRest(dumps: { where: string; bytes: Buffer }[], secrets: string[]): void {
  for (const { where, bytes } of dumps) {
    for (const secret of secrets) {
      const raw = Buffer.from(secret, 'latin1');
      for (const form of [raw, Buffer.from(secret), Buffer.from(raw.toString('hex')), Buffer.from(raw.toString('base64'))]) {
        assert.equal(bytes.includes(form), false, `${where} holds a private signing key or an embed token`);
      }
    }
  }
}

describe('embed secrets at rest', () => {
  it('SQLite: no file or table holds a private signing key or an embed token', async (t) => {
    const server = await build(t, { kind: 'sqlite', apiKey: false });
    try {
      const secrets = await exercise(server);
      const tables = sqliteTables(join(server.dataDir, 'user-groups.sqlite'));
      assert.ok(
        tables.some((t) => t.where === 'table signing_keys' && t.bytes.length > 0),
        'the signing keys were dumped',
      );
      assertNoneAtRest([...filesUnder(server.dataDir), ...tables], secrets);
    } finally {
      await server.close();
    }
  });

  it('PostgreSQL: no table holds a private signing key or an embed token', async (t) => {
    const database = await createTestDatabase({ migrated: true });
    const server = await build(t, { postgres: database, apiKey: false });
    try {
      const secrets = await exercise(server);
      const tables = await postgresTables(database.url);
      assert.ok(
        tables.some((t) => t.where === 'table signing_keys' && t.bytes.length > 0),
        'the signing keys were dumped',
      );
      assertNoneAtRest(tables, secrets);
    } finally {
      await server.close();
      await database.drop();
    }
  });
});
