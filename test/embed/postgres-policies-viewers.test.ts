import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { createEmbedVerifier, postgresPolicySql, tablePolicySql, withSessionClaims, type EmbedVerifier } from 'user-group-service/embed';
import type { Properties } from '../../src/user-groups/user-group.js';
import { UserGroupClient } from '../../src/client/user-group-client.js';
import { adminQuery } from '../helpers/embedded-postgres.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { createTestRole, type TestRole } from '../helpers/postgres-roles.js';
import { buildForSuite } from '../helpers/build.js';

/**
 * A viewer's attributes may narrow what a session reads, never widen what a
 * policy admits: sessions minted by the service (with viewer attributes named
 * like the group's properties, or like the claims), verified as a dashboard
 * verifies them, read tables whose policies bind to the group's id, its
 * subtree and one of its properties, as a role policies bind, on real
 * PostgreSQL with FORCE ROW LEVEL SECURITY.
 */

/** What each group's session admits, viewer or not: [by_group, by_subtree, by_region]. */
const ADMITTED: Record<string, [number[], number[], number[]]> = {
  acme: [[1], [1, 2], [1]],
  // A child inherits acme's region: the policy binds the group's effective properties.
  'acme-emea': [[2], [2], [1]],
  globex: [[3], [3], [2]],
  // No region property: a property-bound policy admits none of its rows, whatever a viewer says.
  hooli: [[4], [4], []],
};

/** Attributes that would widen a session if a policy read them: another region, every region, a hidden one, claim names. */
const ATTRIBUTES: Properties[] = [
  { region: 'us' },
  { region: 'apac' },
  { region: ['eu', 'us', 'apac'] },
  { region: null },
  { sub: 'globex', desc: ['globex', 'acme'], gprops: { region: 'us' }, props: { region: 'us' } },
  {},
];

describe('a viewer’s attributes and the policies bound to the group', () => {
  // Before the server's own teardown, which buildForSuite registers: what uses the server stops first.
  after(async () => {
    await verifier?.close();
    await reader?.drop();
    await database?.drop();
  });
  const service = buildForSuite({ apiKey: false });
  let client: UserGroupClient;
  let verifier: EmbedVerifier;
  let database: TestDatabase;
  let reader: TestRole;
  const mint = async (group: string, attributes?: Properties) =>
    (
      await client.mintEmbedSession({
        user_group_id: group,
        include_descendants: true,
        ...(attributes === undefined ? {} : { viewer: { id: 'ana', attributes } }),
      })
    ).token;
  /** What the session of `token` reads of each table, as the dashboard would: verified claims, withSessionClaims, as the reader. */
  const admitted = async (token: string) => {
    const claims = await verifier.verify(token);
    const connection = new pg.Client(reader.url);
    await connection.connect();
    try {
      return await withSessionClaims(connection, claims, async (session) => {
        const ids = async (table: string) =>
          (await session.query<{ id: number }>(`SELECT id FROM ${table} ORDER BY id`)).rows.map((r) => r.id);
        return [await ids('by_group'), await ids('by_subtree'), await ids('by_region')];
      });
    } finally {
      await connection.end();
    }
  };

  before(async () => {
    const { key } = await service.services.apiKeys.create({ environment: 'Customer', access: 'read-write' });
    client = new UserGroupClient({ baseUrl: service.url, apiKey: key, retries: 0 });
    await client.getOrCreate({ user_group_id: 'acme', name: 'Acme', properties: { region: 'eu' } });
    await client.getOrCreate({ user_group_id: 'acme-emea', name: 'Acme EMEA', parent_user_group_id: 'acme', properties: { team: 'emea' } });
    await client.getOrCreate({ user_group_id: 'globex', name: 'Globex', properties: { region: 'us' } });
    await client.getOrCreate({ user_group_id: 'hooli', name: 'Hooli' });
    verifier = createEmbedVerifier({ serviceUrl: service.url, apiKey: key });

    database = await createTestDatabase();
    reader = await createTestRole(database.url);
    await adminQuery(
      database.url,
      `${postgresPolicySql()}
      CREATE TABLE by_group (id int PRIMARY KEY, tenant text NOT NULL);
      CREATE TABLE by_subtree (id int PRIMARY KEY, tenant text NOT NULL);
      INSERT INTO by_group VALUES (1, 'acme'), (2, 'acme-emea'), (3, 'globex'), (4, 'hooli');
      INSERT INTO by_subtree SELECT * FROM by_group;
      CREATE TABLE by_region (id int PRIMARY KEY, region text NOT NULL);
      INSERT INTO by_region VALUES (1, 'eu'), (2, 'us'), (3, 'apac');
      GRANT SELECT ON by_group, by_subtree, by_region TO ${reader.name};
      ${tablePolicySql({ table: 'by_group', column: 'tenant' })}
      ${tablePolicySql({ table: 'by_subtree', column: 'tenant', subtree: true })}
      ${tablePolicySql({ table: 'by_region', column: 'region', property: 'region' })}`,
    );
  });

  it('no attribute changes what a policy bound to the group’s id, subtree or property admits', async () => {
    for (const [group, expected] of Object.entries(ADMITTED)) {
      assert.deepEqual(await admitted(await mint(group)), expected, `${group}, no viewer`);
      for (const attributes of ATTRIBUTES) {
        assert.deepEqual(await admitted(await mint(group, attributes)), expected, `${group}, viewer with ${JSON.stringify(attributes)}`);
      }
    }
  });

  it('a renewal keeps it so: the renewed token binds to the group as the first did', async () => {
    const { token } = await client.renewEmbedSession(await mint('hooli', { region: 'us' }));
    assert.deepEqual(await admitted(token), ADMITTED['hooli']);
  });

  it('ugs.prop reads the group’s own property, ugs.viewer_prop the viewer’s attribute over it', async () => {
    const claims = await verifier.verify(await mint('acme', { region: 'us', sales_rep: 'ana' }));
    const connection = new pg.Client(reader.url);
    await connection.connect();
    try {
      const row = await withSessionClaims(connection, claims, async (session) => {
        const { rows } = await session.query(`SELECT ugs.prop('region') AS region, ugs.viewer_prop('region') AS viewer_region,
          ugs.prop('sales_rep') AS rep, ugs.viewer_prop('sales_rep') AS viewer_rep,
          ugs.prop_list('region') AS regions, ugs.viewer_prop_list('region') AS viewer_regions`);
        return rows[0];
      });
      assert.deepEqual(row, {
        region: 'eu',
        viewer_region: 'us',
        rep: null,
        viewer_rep: 'ana',
        regions: ['eu'],
        viewer_regions: ['us'],
      });
    } finally {
      await connection.end();
    }
  });
});
