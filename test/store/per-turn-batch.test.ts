import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { perTurnBatch } from '../../src/store/per-turn-batch.js';

/** A lookup that records each batch it is asked for and answers key * 10. */
function recording() {
  const batches: number[][] = [];
  const lookUp = perTurnBatch<number, number>(async (keys) => {
    batches.push([...keys]);
    return keys.map((k) => k * 10);
  });
  return { batches, lookUp };
}

describe('perTurnBatch', () => {
  it('answers calls made in one turn of the event loop with one batch, each call its own value', async () => {
    const { batches, lookUp } = recording();
    assert.deepEqual(await Promise.all([lookUp(1), lookUp(2), lookUp(2), lookUp(3)]), [10, 20, 20, 30]);
    assert.deepEqual(batches, [[1, 2, 2, 3]], 'duplicates are passed on, nothing is cached');
  });

  it('starts a new batch in a later turn, so nothing is answered from an earlier read', async () => {
    const { batches, lookUp } = recording();
    await lookUp(1);
    await nextTurn();
    await lookUp(1);
    assert.deepEqual(batches, [[1], [1]]);
  });

  it('gathers calls until the check phase of the turn, past microtasks and nextTick callbacks', async () => {
    const { batches, lookUp } = recording();
    const first = lookUp(1);
    // What runs between two sockets' callbacks in one poll phase: queued microtasks and ticks.
    for (let i = 0; i < 5; i++) {
      await Promise.resolve();
      await new Promise((resolve) => process.nextTick(resolve));
    }
    const second = lookUp(2);
    assert.deepEqual(await Promise.all([first, second]), [10, 20]);
    assert.deepEqual(batches, [[1, 2]]);
  });

  it('splits a very large burst into bounded batches', async () => {
    const { batches, lookUp } = recording();
    const keys = Array.from({ length: 1200 }, (_, i) => i);
    assert.deepEqual(
      await Promise.all(keys.map(lookUp)),
      keys.map((k) => k * 10),
    );
    assert.deepEqual(
      batches.map((b) => b.length),
      [500, 500, 200],
    );
  });

  it('rejects every call of a batch whose lookup fails, and recovers for the next', async () => {
    let fail = true;
    const lookUp = perTurnBatch<number, number>(async (keys) => {
      if (fail) throw new Error('store down');
      return [...keys];
    });
    const outcomes = await Promise.allSettled([lookUp(1), lookUp(2)]);
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['rejected', 'rejected'],
    );
    assert.match(String((outcomes[0] as PromiseRejectedResult).reason), /store down/);
    fail = false;
    assert.equal(await lookUp(3), 3);
  });
});
