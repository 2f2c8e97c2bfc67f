import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, type Migration } from 'kysely';
import pg from 'pg';
import { migratePostgres } from '../../src/store/postgres/migrate-postgres.js';
import { migrationsFor } from '../../src/store/migrations/index.js';
import { BIGINT, ddl, statements, STRICT, type Dialect } from '../../src/store/migrations/migration.js';
import { migrateSqlite } from '../../src/store/sqlite/migrate-sqlite.js';
import { createTestDatabase } from '../helpers/postgres.js';
import { makeTempDir } from '../helpers/temp-dir.js';

/**
 * The schema each database holds after each migration, against a record kept
 * beside this file (test/store/schema.<dialect>.txt): the full schema after
 * the last, and a SHA-256 of the schema after every one before it. A shipped
 * migration never changes what it does, so every line but the new ones stays
 * as it is; a new migration adds its hash and changes the schema drawn. After
 * adding one, `UGS_RECORD_SCHEMA=1 node --test dist/test/store/migration-history.test.js`
 * writes the record again: read its diff, it is the new migration's effect.
 *
 * SQLite: sqlite_master as it is (the CREATE statements as SQLite keeps them,
 * byte for byte). PostgreSQL: the catalogs' own rendering of every relation,
 * column, index, constraint, sequence, trigger and function of the schema.
 */
const RECORD = process.env.UGS_RECORD_SCHEMA === '1';
const recordFile = (dialect: Dialect) => new URL(`../../../test/store/schema.${dialect}.txt`, import.meta.url);

async function sqliteSchema(path: string): Promise<string> {
  const db = new SqliteDatabase(path, { readonly: true });
  try {
    const rows = db.prepare('SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name').all() as {
      type: string;
      name: string;
      tbl_name: string;
      sql: string | null;
    }[];
    return rows.map((r) => `-- ${r.type} ${r.name} on ${r.tbl_name}\n${r.sql ?? '(no SQL)'}\n`).join('\n');
  } finally {
    db.close();
  }
}

async function postgresSchema(pool: pg.Pool): Promise<string> {
  const sections: [string, string][] = [
    [
      'relations',
      `SELECT c.relname || ' ' || c.relkind::text || ' ' || c.relpersistence::text
         FROM pg_class c WHERE c.relnamespace = current_schema()::regnamespace ORDER BY c.relname`,
    ],
    [
      'columns',
      `SELECT c.relname || '.' || a.attname || ' #' || a.attnum || ' ' || format_type(a.atttypid, a.atttypmod)
              || CASE WHEN a.attnotnull THEN ' NOT NULL' ELSE '' END
              || CASE WHEN a.attidentity <> '' THEN ' IDENTITY ' || a.attidentity::text ELSE '' END
              || CASE WHEN a.attgenerated <> '' THEN ' GENERATED ' || a.attgenerated::text ELSE '' END
              || coalesce(' DEFAULT ' || pg_get_expr(d.adbin, d.adrelid), '')
              || coalesce(' COLLATE ' || nullif(co.collname, 'default'), '')
         FROM pg_attribute a
         JOIN pg_class c ON c.oid = a.attrelid
         LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
         LEFT JOIN pg_collation co ON co.oid = a.attcollation
        WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
          AND a.attnum > 0 AND NOT a.attisdropped
        ORDER BY c.relname, a.attnum`,
    ],
    ['indexes', `SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() ORDER BY tablename, indexname`],
    [
      'constraints',
      `SELECT conrelid::regclass::text || ' ' || conname || ' ' || contype::text || ': ' || pg_get_constraintdef(oid)
         FROM pg_constraint WHERE connamespace = current_schema()::regnamespace AND contype <> 'n' ORDER BY conrelid::regclass::text, conname`,
    ],
    [
      'sequences',
      `SELECT sequencename || ' ' || data_type || ' start ' || start_value || ' min ' || min_value || ' max ' || max_value
              || ' increment ' || increment_by || ' cycle ' || cycle || ' cache ' || cache_size
         FROM pg_sequences WHERE schemaname = current_schema() ORDER BY sequencename`,
    ],
    [
      'triggers',
      `SELECT pg_get_triggerdef(t.oid) FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
        WHERE c.relnamespace = current_schema()::regnamespace AND NOT t.tgisinternal ORDER BY c.relname, t.tgname`,
    ],
    [
      'functions',
      `SELECT pg_get_functiondef(p.oid) FROM pg_proc p WHERE p.pronamespace = current_schema()::regnamespace ORDER BY p.proname, p.oid`,
    ],
  ];
  const parts: string[] = [];
  for (const [title, query] of sections) {
    const { rows } = await pool.query<unknown[]>({ text: query, rowMode: 'array' });
    parts.push(`-- ${title}\n${rows.map((r) => String(r[0])).join('\n')}\n`);
  }
  return parts.join('\n');
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The record: one `-- after <name>: <sha256>` line per migration, then the schema after the last. */
function record(steps: [string, string][]): string {
  const lines = steps.map(([name, schema]) => `-- after ${name}: ${sha256(schema)}`);
  return `${lines.join('\n')}\n\n${steps.at(-1)![1]}`;
}

function checkAgainstRecord(dialect: Dialect, steps: [string, string][]): void {
  const written = record(steps);
  if (RECORD) {
    writeFileSync(recordFile(dialect), written);
    return;
  }
  const kept = readFileSync(recordFile(dialect), 'utf8');
  const keptHashes = [...kept.matchAll(/^-- after (\S+): ([0-9a-f]{64})$/gm)].map((m) => [m[1], m[2]]);
  assert.deepEqual(
    steps.map(([name, schema]) => [name, sha256(schema)]),
    keptHashes,
    `the schema after each migration on ${dialect} is the one recorded in test/store/schema.${dialect}.txt`,
  );
  assert.equal(written, kept, `the schema on ${dialect} is the one recorded in test/store/schema.${dialect}.txt`);
}

async function migrateTo(db: Kysely<unknown>, migrations: Record<string, Migration>, target: string): Promise<void> {
  const { error } = await new Migrator({ db, provider: { getMigrations: async () => migrations } }).migrateTo(target);
  if (error) throw error instanceof Error ? error : new Error(String(error));
}

describe('a migration', () => {
  it('runs a plain statement on both databases, a ddl statement spelled for each, and per-database steps on theirs only', () => {
    const migration = [
      ddl`CREATE TABLE t (n ${BIGINT} NOT NULL) ${STRICT}`,
      { sqlite: [], postgres: 'ALTER TABLE t ADD CONSTRAINT t_n UNIQUE (n)' },
      'CREATE INDEX t_n ON t (n)',
      { sqlite: ['SELECT 1', 'SELECT 2'], postgres: [] },
    ];
    assert.deepEqual(statements(migration, 'sqlite'), [
      'CREATE TABLE t (n INTEGER NOT NULL) STRICT',
      'CREATE INDEX t_n ON t (n)',
      'SELECT 1',
      'SELECT 2',
    ]);
    assert.deepEqual(statements(migration, 'postgres'), [
      'CREATE TABLE t (n BIGINT NOT NULL) ',
      'ALTER TABLE t ADD CONSTRAINT t_n UNIQUE (n)',
      'CREATE INDEX t_n ON t (n)',
    ]);
  });
});

describe('the migration history on SQLite', () => {
  const names = Object.keys(migrationsFor('sqlite'));

  function tempPath(t: TestContext): string {
    const dir = makeTempDir('ugs-migration-history');
    t.after(() => dir.remove());
    return join(dir.path, 'store.sqlite');
  }

  it('builds, migration by migration, the schema recorded', async (t) => {
    const path = tempPath(t);
    const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: new SqliteDatabase(path) }) });
    const steps: [string, string][] = [];
    try {
      for (const name of names) {
        await migrateTo(db, migrationsFor('sqlite'), name);
        steps.push([name, await sqliteSchema(path)]);
      }
    } finally {
      await db.destroy();
    }
    checkAgainstRecord('sqlite', steps);
  });

  it('migrates a new file to the schema recorded, and one migrated partway (to 006) the rest of the way to the same', async (t) => {
    const fresh = tempPath(t);
    assert.deepEqual(await migrateSqlite(fresh, 5000), names);
    const partway = tempPath(t);
    const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: new SqliteDatabase(partway) }) });
    await migrateTo(db, migrationsFor('sqlite'), '006-events');
    await db.destroy();
    assert.deepEqual(await migrateSqlite(partway, 5000), names.slice(names.indexOf('006-events') + 1));
    assert.equal(await sqliteSchema(partway), await sqliteSchema(fresh));
    if (!RECORD) assert.ok(readFileSync(recordFile('sqlite'), 'utf8').endsWith(`\n\n${await sqliteSchema(fresh)}`));
  });
});

describe('the migration history on PostgreSQL', () => {
  const names = Object.keys(migrationsFor('postgres'));

  /** Dropped when the test ends (not when the file does: the test server may be stopped by then). */
  async function emptyDatabase(t: TestContext): Promise<pg.Pool> {
    const database = await createTestDatabase();
    const pool = new pg.Pool({ connectionString: database.url, max: 2 });
    t.after(async () => {
      await pool.end();
      await database.drop();
    });
    return pool;
  }

  it('builds, migration by migration, the schema recorded', async (t) => {
    const pool = await emptyDatabase(t);
    const lent = { connect: () => pool.connect(), end: async () => {} } as unknown as pg.Pool;
    const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: lent }) });
    const steps: [string, string][] = [];
    try {
      for (const name of names) {
        await migrateTo(db, migrationsFor('postgres'), name);
        steps.push([name, await postgresSchema(pool)]);
      }
    } finally {
      await db.destroy();
    }
    checkAgainstRecord('postgres', steps);
  });

  it('migrates a new database to the schema recorded, and one migrated partway (to 006) the rest of the way to the same', async (t) => {
    const fresh = await emptyDatabase(t);
    assert.deepEqual(await migratePostgres(fresh), names);
    const partway = await emptyDatabase(t);
    const lent = { connect: () => partway.connect(), end: async () => {} } as unknown as pg.Pool;
    const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: lent }) });
    await migrateTo(db, migrationsFor('postgres'), '006-events');
    await db.destroy();
    assert.deepEqual(await migratePostgres(partway), names.slice(names.indexOf('006-events') + 1));
    assert.equal(await postgresSchema(partway), await postgresSchema(fresh));
    if (!RECORD) assert.ok(readFileSync(recordFile('postgres'), 'utf8').endsWith(`\n\n${await postgresSchema(fresh)}`));
  });
});
