import assert from 'node:assert/strict';
import { randomFillSync } from 'node:crypto';
import { describe, it } from 'node:test';
import { RandomPool, secureRandomBytes } from '../../src/secrets/random-pool.js';

describe('RandomPool', () => {
  it('hands out every byte once, refilling only when the pool runs out, and zeroes what it hands out', () => {
    const pool = Buffer.alloc(64);
    let refills = 0;
    const random = new RandomPool(pool, (buffer) => {
      refills++;
      randomFillSync(buffer);
    });
    const first = random.take(8);
    assert.equal(refills, 1);
    assert.deepEqual(pool.subarray(0, 8), Buffer.alloc(8), 'the issued bytes no longer sit in the pool');
    assert.notDeepEqual(pool.subarray(8), Buffer.alloc(56), 'the rest is still unissued randomness');
    const drawn = [first, ...Array.from({ length: 7 }, () => random.take(8))];
    assert.equal(refills, 1, 'eight draws of 8 bytes fit one 64-byte pool');
    assert.deepEqual(pool, Buffer.alloc(64));
    random.take(8);
    assert.equal(refills, 2);
    assert.equal(new Set(drawn.map((b) => b.toString('hex'))).size, drawn.length);
  });

  it('returns copies: changing one never changes the pool or a later draw', () => {
    const pool = Buffer.alloc(64);
    const random = new RandomPool(pool, (buffer) => buffer.fill(7));
    const bytes = random.take(8);
    bytes.fill(1);
    assert.deepEqual(random.take(8), Buffer.alloc(8, 7));
  });

  it('draws large sizes straight from the CSPRNG', () => {
    const pool = Buffer.alloc(64);
    let refills = 0;
    const random = new RandomPool(pool, () => refills++);
    assert.equal(random.take(1000).length, 1000);
    assert.equal(refills, 0);
  });

  it('gives distinct, evenly spread values from the real CSPRNG across many refills', () => {
    const seen = new Set<string>();
    const counts = new Array<number>(256).fill(0);
    for (let i = 0; i < 20_000; i++) {
      const bytes = secureRandomBytes(32);
      assert.equal(bytes.length, 32);
      seen.add(bytes.toString('hex'));
      for (const byte of bytes) counts[byte]!++;
    }
    assert.equal(seen.size, 20_000);
    // 640,000 bytes: 2,500 expected per value; a uniform source stays far inside ±15%.
    assert.ok(
      counts.every((n) => n > 2125 && n < 2875),
      `byte counts ${Math.min(...counts)}..${Math.max(...counts)}`,
    );
  });
});
