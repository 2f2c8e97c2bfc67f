import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { bindProperties, type BindableClaims, type BoundQuery, type SqlDialect } from 'user-group-service/embed';
import SqliteDatabase from 'better-sqlite3';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';

/** The bound SQL run for real: what a dashboard does with bindProperties' answer. */
interface Database {
  ids(query: BoundQuery): Promise<number[]>;
  /** The query as a naive dashboard would build it: the value spliced into the text. */
  idsSpliced(sql: string): Promise<number[]>;
  close(): Promise<void>;
}

const ORDERS = [
  [1, 'eu', 'acme-eu', true],
  [2, 'eu', 'acme-us', false],
  [3, 'us', 'acme-us', false],
  [4, 'apac', 'globex', true],
] as const;
const ALL = ORDERS.map(([id]) => id);
const INJECTION = "x' OR '1'='1";

function openSqlite(): Database {
  const db = new SqliteDatabase(':memory:');
  db.exec('CREATE TABLE orders (id INTEGER PRIMARY KEY, region TEXT, owner TEXT, vip INTEGER, team_id INTEGER)');
  const insert = db.prepare('INSERT INTO orders VALUES (?, ?, ?, ?, 7)');
  for (const [id, region, owner, vip] of ORDERS) insert.run(id, region, owner, vip ? 1 : 0);
  const ids = (text: string, values: unknown[]) =>
    (
      db
        .prepare(text)
        .pluck()
        .all(...values) as number[]
    ).sort((a, b) => a - b);
  return {
    ids: async ({ text, values }) => ids(text, values),
    idsSpliced: async (sql) => ids(sql, []),
    close: async () => void db.close(),
  };
}

async function openPostgres(database: TestDatabase): Promise<Database> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  await client.query('CREATE TABLE orders (id integer PRIMARY KEY, region text, owner text, vip boolean, team_id integer)');
  for (const row of ORDERS) await client.query('INSERT INTO orders VALUES ($1, $2, $3, $4, 7)', [...row]);
  const ids = async (text: string, values: unknown[]) =>
    (await client.query<{ id: number }>(text, values)).rows.map((row) => row.id).sort((a, b) => a - b);
  return {
    ids: ({ text, values }) => ids(text, values),
    idsSpliced: (sql) => ids(sql, []),
    close: async () => {
      await client.end();
      await database.drop();
    },
  };
}

function claimsWith(props: BindableClaims['props'], extra: Partial<BindableClaims> = {}): BindableClaims {
  return { sub: 'acme', tid: 7, props, ...extra };
}

const DIALECTS: { dialect: SqlDialect; open: () => Promise<Database> }[] = [
  { dialect: 'sqlite', open: async () => openSqlite() },
  { dialect: 'postgres', open: async () => openPostgres(await createTestDatabase()) },
];

for (const { dialect, open } of DIALECTS) {
  describe(`bindProperties on a real ${dialect}`, () => {
    let db: Database;
    const ids = (sql: string, claims: BindableClaims) => db.ids(bindProperties(sql, claims, dialect));
    before(async () => {
      db = await open();
    });
    after(() => db?.close());

    it('filters by a property', async () => {
      assert.deepEqual(await ids('SELECT id FROM orders WHERE region = {{ region }}', claimsWith({ region: 'eu' })), [1, 2]);
      assert.deepEqual(
        await ids('SELECT id FROM orders WHERE region = {{region}} OR owner = {{ region }}', claimsWith({ region: 'globex' })),
        [4],
      );
      assert.deepEqual(
        await ids('SELECT id FROM orders WHERE vip = {{ vip }} AND team_id = {{ team_id }}', claimsWith({ vip: true })),
        [1, 4],
      );
    });

    it('returns no extra rows for an injection attempt in a property value', async () => {
      // The attempt is real: spliced into the text, it would return every row.
      assert.deepEqual(await db.idsSpliced(`SELECT id FROM orders WHERE region = '${INJECTION}'`), ALL);
      assert.deepEqual(await ids('SELECT id FROM orders WHERE region = {{ region }}', claimsWith({ region: INJECTION })), []);
      assert.deepEqual(await ids('SELECT id FROM orders WHERE owner IN {{ desc }}', claimsWith({}, { desc: [INJECTION, 'globex'] })), [4]);
    });

    it('binds lists after IN and NOT IN, an empty one included', async () => {
      const hierarchy = claimsWith({ regions: ['us', 'apac'], none: [] }, { desc: ['acme-eu', 'acme-us'], anc: ['globex'] });
      assert.deepEqual(await ids('SELECT id FROM orders WHERE owner IN {{ desc }}', hierarchy), [1, 2, 3]);
      assert.deepEqual(await ids('SELECT id FROM orders WHERE owner NOT IN {{ desc }}', hierarchy), [4]);
      assert.deepEqual(await ids('SELECT id FROM orders WHERE region in {{ regions }} AND owner IN {{ anc }}', hierarchy), [4]);
      assert.deepEqual(await ids('SELECT id FROM orders WHERE region IN {{ none }}', hierarchy), []);
      assert.deepEqual(await ids('SELECT id FROM orders WHERE region NOT IN {{ none }}', hierarchy), ALL);
      assert.deepEqual(
        await ids(
          'SELECT id FROM orders WHERE owner IN {{ desc }} AND region = {{ region }} OR owner IN {{ desc }}',
          claimsWith({ region: 'us' }, { desc: ['globex'] }),
        ),
        [4],
      );
    });
  });
}

describe('what the binder refuses is live SQL on a real sqlite', () => {
  it('#name is a parameter SQLite binds (so it would shift the bound values), and {{ t }}1 would read as ?1', () => {
    const db = new SqliteDatabase(':memory:');
    try {
      assert.deepEqual(db.prepare('SELECT #region AS r').all({ region: 'eu' }), [{ r: 'eu' }]);
      // ?1 is the first parameter again, not the second one the dashboard meant.
      assert.deepEqual(db.prepare('SELECT ? AS a, ?1 AS b').raw().all({ 1: 'first' }), [['first', 'first']]);
      assert.throws(
        () => bindProperties('SELECT #region', claimsWith({ region: 'eu' }), 'sqlite'),
        /"#region" \(at offset 7\) is a sqlite parameter marker/,
      );
      assert.throws(
        () => bindProperties('SELECT {{ a }}, {{ b }}1', claimsWith({ a: 1, b: 2 }), 'sqlite'),
        /\{\{ b \}\} \(at offset 16\) is immediately followed by "1"/,
      );
    } finally {
      db.close();
    }
  });
});
