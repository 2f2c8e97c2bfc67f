import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import { auditedChange } from '../../src/consequences/write-consequences.js';
import { APPEND_CONSEQUENCES, consequenceParameters } from '../../src/store/postgres/postgres-consequences.js';
import { createTestDatabase } from '../helpers/postgres.js';

describe('PostgreSQL consequences appended twice', () => {
  it('skip an event whose id is stored already, as a statement retried after its commit was lost would append it', async () => {
    const database = await createTestDatabase({ migrated: true });
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const at = new Date().toISOString();
      const subject = { environment: 'Customer' as const, teamId: 7, providedId: 'g1' };
      const retried = consequenceParameters([auditedChange('user_group.updated', at, subject, { keyId: null, fields: ['name'] })]);
      const other = consequenceParameters([auditedChange('user_group.updated', at, subject, { keyId: null, fields: ['mapping'] })]);
      await client.query(APPEND_CONSEQUENCES, retried);
      await client.query(APPEND_CONSEQUENCES, retried);
      await client.query(APPEND_CONSEQUENCES, other);
      const { rows } = await client.query<{ id: string; n: number }>('SELECT id, count(*)::int AS n FROM events GROUP BY id ORDER BY id');
      assert.deepEqual(
        rows.map((r) => r.n),
        [1, 1],
        'each event id stored once, the other event too',
      );
    } finally {
      await client.end();
      await database.drop();
    }
  });
});
