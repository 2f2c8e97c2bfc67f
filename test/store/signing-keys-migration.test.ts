import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Kysely, Migrator, PostgresDialect, sql, SqliteDialect, type Migration } from 'kysely';
import pg from 'pg';
import { createSigningKeyring, loadSigningKeyring } from '../../src/signing-keys/signing-keys.js';
import { createTokenCipher } from '../../src/secrets/token-cipher.js';
import { migrationHistory, migrationsFor } from '../../src/store/migrations/index.js';

/** What an upgrade from 008 applies: 009 and every migration after it. */
const SINCE_009 = Object.keys(migrationHistory).filter((name) => name >= '009');
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import SqliteDatabase from 'better-sqlite3';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { Store } from '../../src/store/store.js';
import { createTestDatabase } from '../helpers/postgres.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const BEFORE_SPLIT = '008-console-sessions';
const cipher = createTokenCipher('m'.repeat(32));

/** A key row as a store of before migration 009 held it: no environment, its generation unique across the table. */
function legacyKey(generation: number) {
  const kid = `legacy-${generation}-${randomBytes(4).toString('hex')}`;
  return {
    kid,
    generation,
    publicJwk: JSON.stringify({ kty: 'OKP', crv: 'Ed25519', x: randomBytes(32).toString('base64url'), kid, alg: 'EdDSA', use: 'sig' }),
    ciphertext: randomBytes(90),
    // The first key signed until an hour ago, the second since: both still published.
    at: new Date(Date.now() - (3 - generation) * 3_600_000).toISOString(),
  };
}

async function migrateTo(db: Kysely<unknown>, migrations: Record<string, Migration>, target: string): Promise<void> {
  const { error } = await new Migrator({ db, provider: { getMigrations: async () => migrations } }).migrateTo(target);
  if (error) throw error instanceof Error ? error : new Error(String(error));
}

/**
 * Migration 009 splits the signing keys both environments shared: on either
 * store, the keys there become Customer's, unchanged (so Customer's JWKS and
 * every token already handed out stay as they were), and the next start
 * gives Testing a first key of its own.
 */
for (const kind of ['SQLite', 'PostgreSQL'] as const) {
  describe(`migration 009 on ${kind}: the shared signing keys become Customer's`, () => {
    const cleanups: (() => Promise<void>)[] = [];
    after(async () => {
      for (const cleanup of cleanups.reverse()) await cleanup();
    });

    /** A store migrated up to 008 holding `keys`, then opened (which applies 009). */
    async function upgradedStore(keys: ReturnType<typeof legacyKey>[]): Promise<Store> {
      if (kind === 'SQLite') {
        const dir = makeTempDir('ugs-migration-009');
        cleanups.push(async () => dir.remove());
        const path = join(dir.path, 'store.sqlite');
        const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: new SqliteDatabase(path) }) });
        await migrateTo(db, migrationsFor('sqlite'), BEFORE_SPLIT);
        for (const k of keys) {
          await sql`INSERT INTO signing_keys (kid, generation, algorithm, public_jwk, private_key_ciphertext, created_at, activates_at)
                    VALUES (${k.kid}, ${k.generation}, 'EdDSA', ${k.publicJwk}, ${k.ciphertext}, ${k.at}, ${k.at})`.execute(db);
        }
        await db.destroy();
        const { store, appliedMigrations } = await SqliteStore.open({ path });
        cleanups.push(() => store.close());
        assert.deepEqual(appliedMigrations, SINCE_009);
        return store;
      }
      const database = await createTestDatabase();
      cleanups.push(() => database.drop());
      const pool = new pg.Pool({ connectionString: database.url, max: 2 });
      const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) });
      await migrateTo(db, migrationsFor('postgres'), BEFORE_SPLIT);
      for (const k of keys) {
        await sql`INSERT INTO signing_keys (kid, generation, algorithm, public_jwk, private_key_ciphertext, created_at, activates_at)
                  VALUES (${k.kid}, ${k.generation}, 'EdDSA', ${k.publicJwk}::jsonb, ${k.ciphertext}, ${k.at}, ${k.at})`.execute(db);
      }
      await db.destroy();
      const { store, appliedMigrations } = await PostgresStore.open({
        connectionString: database.url,
        poolSize: 2,
        statementTimeoutMs: 5000,
        connectTimeoutMs: 5000,
      });
      cleanups.push(() => store.close());
      assert.deepEqual(appliedMigrations, SINCE_009);
      return store;
    }

    it("keeps every key, field for field, as Customer's; Testing has none until the next load creates its first", async () => {
      const legacy = [legacyKey(1), legacyKey(2)];
      const store = await upgradedStore(legacy);
      const customer = await store.signingKeys.listSigningKeys('Customer');
      assert.deepEqual(
        customer.map((k) => [
          k.kid,
          k.environment,
          k.generation,
          k.publicJwk,
          k.privateKeyCiphertext.equals(legacy[k.generation - 1]!.ciphertext),
          k.activatesAt,
        ]),
        legacy.map((k) => [k.kid, 'Customer', k.generation, JSON.parse(k.publicJwk), true, k.at]),
      );
      assert.deepEqual(await store.signingKeys.listSigningKeys('Testing'), []);

      const ring = createSigningKeyring({
        store: store.signingKeys,
        settings: store.settings,
        cipher,
        algorithm: 'EdDSA',
        jwksMaxAgeSeconds: 300,
      });
      await loadSigningKeyring(ring);
      assert.deepEqual(await store.signingKeys.listSigningKeys('Customer'), customer, "Customer's keys are untouched");
      const testing = await store.signingKeys.listSigningKeys('Testing');
      assert.deepEqual(
        testing.map((k) => [k.environment, k.generation]),
        [['Testing', 1]],
        'Testing gets a first key of its own',
      );
      assert.ok(!customer.some((k) => k.kid === testing[0]!.kid));
      assert.equal(ring.Testing.active().kid, testing[0]!.kid, 'active at once: no verifier has cached a Testing JWKS yet');
      assert.deepEqual(
        ring.Customer.jwks()
          .keys.map((k) => k.kid)
          .sort(),
        customer.map((k) => k.kid).sort(),
      );
      assert.deepEqual(
        ring.Testing.jwks().keys.map((k) => k.kid),
        [testing[0]!.kid],
      );
    });

    it('makes generations unique per environment: a taken Customer generation is refused, the same one in Testing is not', async () => {
      const store = await upgradedStore([legacyKey(1)]);
      const record = (environment: 'Customer' | 'Testing', generation: number) => {
        const k = legacyKey(generation);
        return {
          kid: k.kid,
          environment,
          generation,
          algorithm: 'EdDSA' as const,
          publicJwk: JSON.parse(k.publicJwk),
          privateKeyCiphertext: k.ciphertext,
          createdAt: k.at,
          activatesAt: k.at,
        };
      };
      assert.equal(await store.signingKeys.insertSigningKey(record('Customer', 1)), false);
      assert.equal(await store.signingKeys.insertSigningKey(record('Testing', 1)), true);
      assert.equal(await store.signingKeys.insertSigningKey(record('Testing', 1)), false);
      assert.equal(await store.signingKeys.insertSigningKey(record('Customer', 2)), true);
    });
  });
}
