import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openCore } from '../src/app/core.js';
import { createTokenCipher } from '../src/secrets/token-cipher.js';
import { openStore } from '../src/store/open-store.js';

/**
 * `node dist/bench/hit-path-parts.js`: the hit path's pieces measured alone
 * (best of five runs of 20,000 calls; store lookups in bursts of 32, as
 * they are batched per turn of the event loop). docs/performance.md compares
 * these with their cost inside a request.
 */
const dir = mkdtempSync(join(tmpdir(), 'ugs-parts-'));
const services = await openCore({ dataDir: dir, secret: undefined, postgres: undefined, keyCacheTtlMs: 1000 });
// The store's own lookup, on a second connection to the same file: services hand out no store.
const { store } = await openStore({ dataDir: dir, postgres: undefined });
try {
  const { key } = await services.apiKeys.create({ environment: 'Customer', access: 'read-write', name: 'parts' });
  const principal = await services.apiKeys.authenticate(key);
  await services.userGroups.getOrCreate(principal, { userGroupId: 'seed-1', name: 'Seed 1' });
  const record = (await store.userGroups.findUserGroup('Customer', 'seed-1'))!;

  const time = async (label: string, call: () => unknown, perCall = 1) => {
    let best = Infinity;
    for (let run = 0; run < 5; run++) {
      let total = 0n;
      for (let i = 0; i < 20_000; i++) {
        const start = process.hrtime.bigint();
        await call();
        total += process.hrtime.bigint() - start;
      }
      best = Math.min(best, Number(total) / 20_000 / 1000 / perCall);
    }
    console.log(`${label.padEnd(56)} ${best.toFixed(2)} µs`);
  };
  await time('authenticate (key cache hit)', () => services.apiKeys.authenticate(key));
  // Lookups are batched per turn of the event loop (src/store/per-turn-batch.ts): 32 at once, as 32 connections send them.
  const burst = Array.from({ length: 32 }, () => 'seed-1');
  await time(
    'store.findUserGroup, 32 at once (per lookup)',
    async () => {
      await Promise.all(burst.map((id) => store.userGroups.findUserGroup('Customer', id)));
    },
    burst.length,
  );
  await time('decrypt the token (a ciphertext already opened)', () =>
    services.cipher.decrypt(record.tokenCiphertext, record.environment, record.providedId),
  );
  // Every call a ciphertext never opened before, as most are with 1M groups: AES-GCM for real, and the cache's insertion.
  const cipher = createTokenCipher('s'.repeat(32));
  const sealed = Array.from({ length: 5 * 20_000 }, () => cipher.encrypt('ugt_token', 'Customer', 'seed-1'));
  let next = 0;
  await time('decrypt a token not opened before', () => cipher.decrypt(sealed[next++]!, 'Customer', 'seed-1'));
  await time(
    'getOrCreate of an existing group, 32 at once (per call)',
    async () => {
      await Promise.all(burst.map((userGroupId) => services.userGroups.getOrCreate(principal, { userGroupId })));
    },
    burst.length,
  );
} finally {
  await store.close();
  await services.close();
  rmSync(dir, { recursive: true, force: true });
}
