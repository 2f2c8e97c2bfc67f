import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ServiceError } from '../../src/kernel/errors.js';
import { REVOCATION_WRITE_MARGIN_MS, StoreClock, type StoreClockSource } from '../../src/kernel/store-clock.js';

/** A store whose clock reads `storeMs` and whose answer takes `roundTripMs` of this process's clock. */
function storeAt(clock: { ms: number }, storeOffsetMs: number, roundTripMs = 0): StoreClockSource {
  return {
    async clock() {
      clock.ms += roundTripMs / 2;
      const at = new Date(clock.ms + storeOffsetMs);
      clock.ms += roundTripMs / 2;
      return at;
    },
  };
}

describe('StoreClock', () => {
  it("measures the offset to the store at the round trip's midpoint, to within half of it", async () => {
    const local = { ms: 1_000_000 };
    const clock = new StoreClock(storeAt(local, -2000, 40), { maxOffsetMs: 2500, now: () => local.ms });
    assert.deepEqual(await clock.measure(), { offsetMs: -2000, uncertaintyMs: 20, takenAt: 1_000_040 });
  });

  it('lets a process within the bound mint, synchronously once measured, and refuses one beyond it, saying by how much', async () => {
    const local = { ms: 1_000_000 };
    const within = new StoreClock(storeAt(local, -2400, 100), { maxOffsetMs: 2500, now: () => local.ms });
    await within.assertWithinBound();
    assert.equal(within.assertWithinBound(), undefined, 'a fresh reading is judged without a store call');
    const beyond = new StoreClock(storeAt(local, -2450, 200), { maxOffsetMs: 2500, now: () => local.ms });
    await assert.rejects(
      async () => beyond.assertWithinBound(),
      (error: unknown) =>
        error instanceof ServiceError &&
        error.code === 'unavailable' &&
        /2\.\d s ahead of the database's \(±100 ms\).*UGS_CLOCK_OFFSET_MAX_MS \(2500 ms\)/.test(error.message),
    );
    const behind = new StoreClock(storeAt(local, 3000), { maxOffsetMs: 2500, now: () => local.ms });
    await assert.rejects(async () => behind.assertWithinBound(), /3\.0 s behind/);
  });

  it('measures again once its reading is older than allowed', async () => {
    const local = { ms: 1_000_000 };
    let reads = 0;
    const clock = new StoreClock(
      {
        async clock() {
          reads++;
          return new Date(local.ms);
        },
      },
      { maxOffsetMs: 2500, maxReadingAgeMs: 10_000, now: () => local.ms },
    );
    await clock.assertWithinBound();
    local.ms += 10_000;
    assert.equal(clock.assertWithinBound(), undefined);
    local.ms += 1;
    await clock.assertWithinBound();
    assert.equal(reads, 2);
  });

  it("puts a revocation's cut-off on the store's clock plus the bound and the write's margin; on one machine's clock, the margin alone", async () => {
    const local = { ms: 1_000_000 };
    const ahead = new StoreClock(storeAt(local, -1000, 10), { maxOffsetMs: 2500, now: () => local.ms });
    assert.equal(await ahead.cutOffAllowanceMs(), -1000 + 5 + 2500 + REVOCATION_WRITE_MARGIN_MS);
    const behind = new StoreClock(storeAt(local, 1000, 10), { maxOffsetMs: 2500, now: () => local.ms });
    assert.equal(await behind.cutOffAllowanceMs(), 1000 + 5 + 2500 + REVOCATION_WRITE_MARGIN_MS);
    const sqlite = new StoreClock({ clock: async () => null }, { maxOffsetMs: 2500, now: () => local.ms });
    assert.equal(await sqlite.cutOffAllowanceMs(), REVOCATION_WRITE_MARGIN_MS);
    assert.equal(await sqlite.assertWithinBound(), undefined);
  });
});
