import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openServices } from '../src/services.js';

/**
 * `node dist/bench/hit-path-parts.js`: the hit path's pieces measured alone
 * (best of five runs of 20,000 calls; store lookups in bursts of 32, as
 * they are batched per turn of the event loop), and the decryption again after
 * touching 8 MB of memory before each call, as a request's other work does.
 * docs/performance.md compares these with their cost inside a request.
 */
const dir = mkdtempSync(join(tmpdir(), 'ugs-parts-'));
const services = await openServices({ dataDir: dir, secret: undefined, postgres: undefined, keyCacheTtlMs: 1000 });
try {
  const { key } = await services.apiKeys.create({ environment: 'Customer', access: 'read-write', name: 'parts' });
  const principal = await services.apiKeys.authenticate(key);
  await services.userGroups.getOrCreate(principal, { userGroupId: 'seed-1', name: 'Seed 1' });
  const record = (await services.store.findUserGroup('Customer', 'seed-1'))!;
  const scratch = new Float64Array(1 << 20);
  const evictCaches = (i: number) => {
    for (let j = 0; j < scratch.length; j += 8) scratch[(j + i) % scratch.length]! += 1;
  };

  const time = async (label: string, call: () => unknown, before?: (i: number) => void, perCall = 1) => {
    let best = Infinity;
    for (let run = 0; run < 5; run++) {
      let total = 0n;
      for (let i = 0; i < 20_000; i++) {
        before?.(i);
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
  await time('store.findUserGroup, 32 at once (per lookup)', async () => {
    await Promise.all(burst.map((id) => services.store.findUserGroup('Customer', id)));
  }, undefined, burst.length);
  await time('decrypt the token', () => services.cipher.decrypt(record.tokenCiphertext, record.environment, record.providedId));
  await time('decrypt the token, after touching 8 MB', () => services.cipher.decrypt(record.tokenCiphertext, record.environment, record.providedId), evictCaches);
  await time('getOrCreate of an existing group, 32 at once (per call)', async () => {
    await Promise.all(burst.map((userGroupId) => services.userGroups.getOrCreate(principal, { userGroupId })));
  }, undefined, burst.length);
} finally {
  await services.close();
  rmSync(dir, { recursive: true, force: true });
}
