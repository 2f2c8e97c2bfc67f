import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { loadGroups } from '../../bench/load-groups.js';
import { loadConfig } from '../../src/platform/config.js';
import { hashSecret } from '../../src/secrets/secret-format.js';
import { createTokenCipher } from '../../src/secrets/token-cipher.js';
import { openStore, SQLITE_FILE } from '../../src/store/open-store.js';
import type { UserGroupRecord } from '../../src/user-groups/user-group.js';
import { adminQuery } from '../helpers/embedded-postgres.js';
import { createTestDatabase } from '../helpers/postgres.js';
import { makeTempDir } from '../helpers/temp-dir.js';

/** Where the store's next team_id comes from: the id sequence on PostgreSQL, AUTOINCREMENT's record on SQLite. */
async function lastTeamId(env: { UGS_DATA_DIR: string; DATABASE_URL?: string }): Promise<number> {
  if (env.DATABASE_URL) {
    // The transactions that ran at once each moved the sequence past what they saw; the last move saw them all.
    const { rows } = await adminQuery(
      env.DATABASE_URL,
      `SELECT pg_sequence_last_value(pg_get_serial_sequence('user_groups', 'team_id')::regclass) AS last`,
    );
    return Number(rows[0].last);
  }
  const db = new Database(join(env.UGS_DATA_DIR, SQLITE_FILE), { readonly: true });
  try {
    return (db.prepare(`SELECT seq FROM sqlite_sequence WHERE name = 'user_groups'`).get() as { seq: number }).seq;
  } finally {
    db.close();
  }
}

// Nine transactions of 250 groups, the last of one: on PostgreSQL four run at once. (The scale runs use 10,000.)
const BATCH = 250;
const COUNT = 8 * BATCH + 1;

describe("the scale runs' loader (bench/load-groups.ts)", () => {
  for (const kind of ['sqlite', 'postgres'] as const) {
    it(`loads real groups into the ${kind} store the service's settings select, and leaves new ids past them`, async () => {
      const dir = makeTempDir('ugs-load-groups');
      const database = kind === 'postgres' ? await createTestDatabase() : undefined;
      const env = { UGS_DATA_DIR: dir.path, UGS_SECRET: randomBytes(32).toString('hex'), ...(database && { DATABASE_URL: database.url }) };
      try {
        const { streams } = await loadGroups(env, COUNT, 'load', BATCH);
        assert.equal(streams, kind === 'postgres' ? 4 : 1);

        const { store } = await openStore(loadConfig(env));
        try {
          const groups: UserGroupRecord[] = [];
          for (let page = await store.transfer.listUserGroupsAfter(0, 5000); page.length > 0;) {
            groups.push(...page);
            page = await store.transfer.listUserGroupsAfter(page.at(-1)!.teamId, 5000);
          }
          assert.deepEqual(
            groups.map((g) => g.teamId),
            Array.from({ length: COUNT }, (_, i) => i + 1),
          );
          // Each its own token, its hash stored and its ciphertext opening to it under the service's secret.
          const cipher = createTokenCipher(env.UGS_SECRET);
          const hashes = new Set<string>();
          for (const group of groups) {
            assert.equal(group.providedId, `load-${group.teamId - 1}`);
            const token = cipher.decrypt(group.tokenCiphertext, 'Customer', group.providedId);
            assert.deepEqual(group.tokenHash, hashSecret(token));
            hashes.add(group.tokenHash.toString('hex'));
          }
          assert.equal(hashes.size, COUNT);
        } finally {
          await store.close();
        }
        assert.equal(await lastTeamId(env), COUNT);
      } finally {
        await database?.drop();
        dir.remove();
      }
    });
  }
});
