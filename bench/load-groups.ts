import { join } from 'node:path';
import { createTokenCipher } from '../src/secrets/token-cipher.js';
import { hashSecret } from '../src/secrets/secret-format.js';
import { userGroupTokenFormat } from '../src/user-groups/user-group-token.js';
import type { UserGroupRecord } from '../src/user-groups/user-group.js';
import { SQLITE_FILE } from '../src/store/open-store.js';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.js';

const BATCH = 10_000;

/**
 * The fast loader for the scale runs: writes `count` real groups (each with
 * its own token, hash and ciphertext under `secret`) straight into a SQLite
 * store in transactions of 10,000, instead of a million HTTP calls.
 */
export async function loadGroups(dataDir: string, secret: string, count: number, prefix: string): Promise<void> {
  const { store } = await SqliteStore.open({ path: join(dataDir, SQLITE_FILE) });
  const cipher = createTokenCipher(secret);
  const at = new Date().toISOString();
  async function* batches() {
    for (let start = 0; start < count; start += BATCH) {
      const userGroups: UserGroupRecord[] = [];
      for (let i = start; i < Math.min(count, start + BATCH); i++) {
        const providedId = `${prefix}-${i}`;
        const token = userGroupTokenFormat.generate();
        userGroups.push({
          teamId: i + 1,
          environment: 'Customer',
          providedId,
          name: `Group ${i}`,
          mapping: { '40': '213' },
          properties: { region: 'eu', seats: i % 500 },
          tokenHash: hashSecret(token),
          tokenCiphertext: cipher.encrypt(token, 'Customer', providedId),
          createdAt: at,
          updatedAt: at,
        });
      }
      yield { groupTags: [], userGroups, apiKeys: [], dataSources: [], metabaseSettings: [], auditRecords: [] };
    }
  }
  try {
    // A transaction per batch, as before: one of a million rows would grow the WAL to the size of the store.
    for await (const batch of batches()) await store.transfer.importAll([batch], {});
  } finally {
    await store.close();
  }
}
