import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import {
  postgresPolicySql,
  tablePolicySql,
  withSessionClaims,
  type PolicyClaims,
  type PolicyColumnType,
  type TablePolicyOptions,
} from 'user-group-service/embed';
import { adminQuery } from '../helpers/embedded-postgres.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { createTestRole, type TestRole } from '../helpers/postgres-roles.js';

/**
 * The SQL postgresPolicySql and tablePolicySql write, installed where a role
 * that may create in `public` (every role, on PostgreSQL 14) has planted
 * operators that are always true and functions and types shadowing
 * pg_catalog's, by an admin whose search_path is the default or puts public
 * first: the policies still admit only the session's rows, and nothing the
 * policies or the ugs functions use lives in public. Read as a role policies
 * bind (not superuser, not BYPASSRLS) on tables with FORCE ROW LEVEL SECURITY.
 */

/** Per column type: two groups' ids, and a descendant of the first, as that type holds them. */
const IDS: Record<PolicyColumnType, [string, string, string]> = {
  text: ['acme', 'globex', 'acme-emea'],
  varchar: ['acme', 'globex', 'acme-emea'],
  uuid: [randomUUID(), randomUUID(), randomUUID()],
  integer: ['101', '202', '103'],
  bigint: ['9007199254740993', '202', '103'],
};
const SQL_TYPE: Record<PolicyColumnType, string> = { text: 'text', varchar: 'varchar', uuid: 'uuid', integer: 'int4', bigint: 'int8' };
const KINDS = ['id', 'property', 'subtree'] as const;
const tableOf = (type: PolicyColumnType, kind: (typeof KINDS)[number]) => `hostile_${type}_${kind}`;

/** Always true, for the `=` of every column type against the claim (text) and against its own type. */
function hostileOperators(): string {
  const pairs = new Set<string>();
  for (const type of Object.values(SQL_TYPE)) for (const right of ['text', type]) pairs.add(`${type},${right}`);
  return [...pairs]
    .map((pair) => {
      const [left, right] = pair.split(',') as [string, string];
      return `CREATE FUNCTION public.ugs_hostile_eq(pg_catalog.${left}, pg_catalog.${right}) RETURNS pg_catalog.bool LANGUAGE sql IMMUTABLE RETURN true;
CREATE OPERATOR public.= (LEFTARG = pg_catalog.${left}, RIGHTARG = pg_catalog.${right}, FUNCTION = public.ugs_hostile_eq);`;
    })
    .join('\n');
}

/** A public twin of every other operator, function and type the generated SQL uses (or used). */
const HOSTILE_TWINS = `
CREATE FUNCTION public.ugs_hostile_ne(pg_catalog.text, pg_catalog.text) RETURNS pg_catalog.bool LANGUAGE sql IMMUTABLE RETURN false;
CREATE OPERATOR public.<> (LEFTARG = pg_catalog.text, RIGHTARG = pg_catalog.text, FUNCTION = public.ugs_hostile_ne);
CREATE FUNCTION public.ugs_hostile_get_text(pg_catalog.jsonb, pg_catalog.text) RETURNS pg_catalog.text LANGUAGE sql IMMUTABLE RETURN 'globex';
CREATE OPERATOR public.->> (LEFTARG = pg_catalog.jsonb, RIGHTARG = pg_catalog.text, FUNCTION = public.ugs_hostile_get_text);
CREATE FUNCTION public.ugs_hostile_get(pg_catalog.jsonb, pg_catalog.text) RETURNS pg_catalog.jsonb LANGUAGE sql IMMUTABLE RETURN '"globex"'::pg_catalog.jsonb;
CREATE OPERATOR public.-> (LEFTARG = pg_catalog.jsonb, RIGHTARG = pg_catalog.text, FUNCTION = public.ugs_hostile_get);
CREATE FUNCTION public.ugs_hostile_path(pg_catalog.jsonb, pg_catalog.text[]) RETURNS pg_catalog.text LANGUAGE sql IMMUTABLE RETURN 'globex';
CREATE OPERATOR public.#>> (LEFTARG = pg_catalog.jsonb, RIGHTARG = pg_catalog.text[], FUNCTION = public.ugs_hostile_path);
CREATE FUNCTION public.ugs_hostile_cat(pg_catalog.text[], pg_catalog.text[]) RETURNS pg_catalog.text[] LANGUAGE sql IMMUTABLE RETURN ARRAY['globex'];
CREATE OPERATOR public.|| (LEFTARG = pg_catalog.text[], RIGHTARG = pg_catalog.text[], FUNCTION = public.ugs_hostile_cat);
CREATE FUNCTION public.current_setting(pg_catalog.text, pg_catalog.bool) RETURNS pg_catalog.text LANGUAGE sql STABLE
  RETURN '{"sub":"globex","props":{}}';
CREATE FUNCTION public.set_config(pg_catalog.text, pg_catalog.text, pg_catalog.bool) RETURNS pg_catalog.text LANGUAGE sql RETURN '';
CREATE FUNCTION public.jsonb_typeof(pg_catalog.jsonb) RETURNS pg_catalog.text LANGUAGE sql IMMUTABLE RETURN 'array';
CREATE FUNCTION public.jsonb_array_elements_text(pg_catalog.jsonb) RETURNS SETOF pg_catalog.text LANGUAGE sql IMMUTABLE
  AS $$ SELECT 'globex' $$;
CREATE DOMAIN public.text AS pg_catalog.text;
CREATE DOMAIN public.jsonb AS pg_catalog.jsonb;
CREATE DOMAIN public.uuid AS pg_catalog.uuid;
CREATE DOMAIN public.int4 AS pg_catalog.int4;
CREATE DOMAIN public.int8 AS pg_catalog.int8;
`;

/** Every function, operator or type that the ugs functions and the policies depend on outside pg_catalog and ugs. */
const FOREIGN_DEPENDENCIES = `
SELECT DISTINCT pg_catalog.pg_describe_object(d.classid, d.objid, 0) AS dependent,
    pg_catalog.pg_describe_object(d.refclassid, d.refobjid, 0) AS uses
  FROM pg_catalog.pg_depend d
  WHERE (d.classid = 'pg_catalog.pg_policy'::pg_catalog.regclass
      OR (d.classid = 'pg_catalog.pg_proc'::pg_catalog.regclass
        AND d.objid IN (SELECT oid FROM pg_catalog.pg_proc WHERE pronamespace = 'ugs'::pg_catalog.regnamespace)))
    AND (pg_catalog.pg_identify_object(d.refclassid, d.refobjid, 0)).schema NOT IN ('pg_catalog', 'ugs')
    AND d.refclassid IN ('pg_catalog.pg_proc'::pg_catalog.regclass, 'pg_catalog.pg_operator'::pg_catalog.regclass,
      'pg_catalog.pg_type'::pg_catalog.regclass)
  ORDER BY 1, 2`;

describe('generated policy SQL, among hostile operators, functions and types in public', () => {
  let database: TestDatabase;
  let mallory: TestRole;
  let reader: TestRole;
  const admin = (sql: string) => adminQuery(database.url, sql);
  const policies = (): TablePolicyOptions[] =>
    (Object.keys(IDS) as PolicyColumnType[]).flatMap((columnType) =>
      KINDS.map((kind) => ({
        table: tableOf(columnType, kind),
        column: 'owner',
        columnType,
        ...(kind === 'property' ? { property: 'owner' } : kind === 'subtree' ? { subtree: true } : {}),
      })),
    );
  /** The ids of `table`'s rows a session of `claims` reads, as the reader; no claims: as a plain connection. */
  const read = async (table: string, claims?: PolicyClaims): Promise<number[]> => {
    const client = new pg.Client(reader.url);
    await client.connect();
    try {
      const ids = async (c: pg.Client) => (await c.query<{ id: number }>(`SELECT id FROM ${table} ORDER BY id`)).rows.map((r) => r.id);
      return claims === undefined ? await ids(client) : await withSessionClaims(client, claims, ids);
    } finally {
      await client.end();
    }
  };

  before(async () => {
    database = await createTestDatabase();
    mallory = await createTestRole(database.url);
    reader = await createTestRole(database.url);
    const tables = (Object.keys(IDS) as PolicyColumnType[]).flatMap((type) =>
      KINDS.map((kind) => {
        const [a, b, child] = IDS[type];
        return `CREATE TABLE ${tableOf(type, kind)} (id int PRIMARY KEY, owner pg_catalog.${SQL_TYPE[type]} NOT NULL);
INSERT INTO ${tableOf(type, kind)} VALUES (1, '${a}'), (2, '${b}'), (3, '${child}');
GRANT SELECT ON ${tableOf(type, kind)} TO ${reader.name};`;
      }),
    );
    await admin(tables.join('\n'));
    // What PostgreSQL 14 grants every role (PUBLIC) in a new database.
    await admin(`GRANT CREATE ON SCHEMA public TO ${mallory.name}`);
    await adminQuery(mallory.url, hostileOperators() + HOSTILE_TWINS);
  });
  after(async () => {
    await reader?.drop();
    await mallory?.drop();
    await database?.drop();
  });

  for (const searchPath of ['"$user", public', 'public, pg_catalog']) {
    it(`installed with search_path ${searchPath}: each column type's policies admit the session's rows only`, async () => {
      await admin(`SET search_path = ${searchPath};\n${postgresPolicySql()}${policies().map(tablePolicySql).join('')}`);
      for (const type of Object.keys(IDS) as PolicyColumnType[]) {
        const [a, b, child] = IDS[type];
        const first: PolicyClaims = { sub: a, props: { owner: a }, desc: [child] };
        const second: PolicyClaims = { sub: b, props: { owner: b } };
        const seen = async (claims?: PolicyClaims) => Promise.all(KINDS.map((kind) => read(tableOf(type, kind), claims)));
        assert.deepEqual(await seen(first), [[1], [1], [1, 3]], `${type}: the first group (id, property, subtree)`);
        assert.deepEqual(await seen(second), [[2], [2], [2]], `${type}: the second group`);
        assert.deepEqual(await seen(), [[], [], []], `${type}: no claims`);
      }
      // And what the rows cannot show: no twin in public stands in for anything, a domain named text included.
      assert.deepEqual((await admin(FOREIGN_DEPENDENCIES)).rows, [], 'nothing the policies or the ugs functions use is in public');
    });
  }
});
