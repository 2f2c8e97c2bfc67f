import { loadConfig } from '../src/platform/config.js';
import { createTokenCipher, type TokenCipher } from '../src/secrets/token-cipher.js';
import { hashSecret } from '../src/secrets/secret-format.js';
import { openStore } from '../src/store/open-store.js';
import type { ImportBatch } from '../src/transfer/transfer-store.js';
import { userGroupTokenFormat } from '../src/user-groups/user-group-token.js';
import type { UserGroupRecord } from '../src/user-groups/user-group.js';

const BATCH = 10_000;
/**
 * Transactions in flight at once on PostgreSQL. An import writes a row per
 * round trip, so one stream leaves both this process and the database waiting
 * on each other; SQLite has one writer, so it gets one stream.
 */
const POSTGRES_STREAMS = 4;

/** `count` real groups from `start` on: each its own token, with its hash and its ciphertext. */
function batchOf(start: number, count: number, prefix: string, cipher: TokenCipher, at: string): ImportBatch {
  const userGroups: UserGroupRecord[] = [];
  for (let i = start; i < start + count; i++) {
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
  return { groupTags: [], userGroups, apiKeys: [], dataSources: [], metabaseSettings: [], auditRecords: [] };
}

/**
 * The fast loader for the scale runs: writes `count` real groups straight into
 * the store the service's `env` selects (SQLite in UGS_DATA_DIR, or the
 * PostgreSQL of DATABASE_URL, opened as the service opens it), through the
 * store's own import, instead of a million HTTP calls. A transaction per batch
 * of 10,000: one of a million rows would grow SQLite's WAL to the size of the
 * store. Returns how many transactions ran at once.
 */
export async function loadGroups(
  env: Record<string, string>,
  count: number,
  prefix: string,
  /** Groups per transaction; the tests make it small, to run several transactions at once on few groups. */
  batch = BATCH,
): Promise<{ streams: number }> {
  const secret = env.UGS_SECRET;
  if (!secret) throw new Error('loadGroups needs the UGS_SECRET the service will run with');
  const config = loadConfig(env);
  const { store } = await openStore(config);
  const streams = config.postgres ? Math.min(POSTGRES_STREAMS, config.postgres.poolSize) : 1;
  const cipher = createTokenCipher(secret);
  const at = new Date().toISOString();
  let next = 0;
  async function stream(): Promise<void> {
    while (next < count) {
      const start = next;
      next = Math.min(count, start + batch);
      await store.transfer.importAll([batchOf(start, next - start, prefix, cipher, at)], {});
    }
  }
  try {
    await Promise.all(Array.from({ length: streams }, stream));
    // Each import moves the id sequence past the ids it can see; one that ran while another was still open saw
    // fewer. An empty import after all of them moves it past every loaded id, so the service's creates reuse none.
    await store.transfer.importAll([], {});
  } finally {
    await store.close();
  }
  return { streams };
}
