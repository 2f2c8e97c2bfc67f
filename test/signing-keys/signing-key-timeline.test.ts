import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { signingKeyTimeline, type SigningKeyRecord, type SigningKeyState } from '../../src/signing-keys/signing-key.js';

const T0 = '2026-03-01T00:00:00.000Z';
const JWKS_MAX_AGE_MS = 300_000;
/** A retired key stays published this long after it stopped signing: the longest session (24 h) and 60 s of clock tolerance. */
const PUBLISHED_AFTER_MS = (86_400 + 60) * 1000;

const at = (iso: string, ms = 0) => new Date(Date.parse(iso) + ms);
const iso = (base: string, ms: number) => at(base, ms).toISOString();

function key(kid: string, generation: number, activatesAt: string): SigningKeyRecord {
  return {
    kid,
    environment: 'Customer',
    generation,
    algorithm: 'EdDSA',
    publicJwk: { kty: 'OKP', kid },
    privateKeyCiphertext: Buffer.alloc(0),
    createdAt: T0,
    activatesAt,
  };
}

function states(keys: SigningKeyRecord[], now: Date): Record<string, SigningKeyState> {
  return Object.fromEntries(signingKeyTimeline(keys, now).map((p) => [p.key.kid, p.state]));
}

describe('signingKeyTimeline', () => {
  const first = key('k1', 1, T0);
  const rotatedAt = iso(T0, 3_600_000);
  const takesOver = iso(rotatedAt, JWKS_MAX_AGE_MS);
  const second = key('k2', 2, takesOver);
  const gone = iso(takesOver, PUBLISHED_AFTER_MS);

  it('makes the first key active from its activation, signing with no end and no unpublishing scheduled', () => {
    assert.deepEqual(states([first], at(T0, -1)), { k1: 'pending' });
    const [phase] = signingKeyTimeline([first], at(T0));
    assert.deepEqual(
      { state: phase!.state, signsUntil: phase!.signsUntil, publishedUntil: phase!.publishedUntil },
      { state: 'active', signsUntil: null, publishedUntil: null },
    );
    assert.deepEqual(states([first], at(T0, 10 * 365 * 86_400_000)), { k1: 'active' }, 'alone, it signs forever');
  });

  it('after a rotation: the new key is pending until it activates while the old one signs', () => {
    assert.deepEqual(states([first, second], at(rotatedAt)), { k1: 'active', k2: 'pending' });
    assert.deepEqual(states([first, second], at(takesOver, -1)), { k1: 'active', k2: 'pending' });
    const [old, next] = signingKeyTimeline([second, first], at(rotatedAt));
    assert.equal(old!.key.kid, 'k1', 'ordered by generation whatever the input order');
    assert.equal(old!.signsUntil, takesOver);
    assert.equal(old!.publishedUntil, gone);
    assert.deepEqual([next!.signsUntil, next!.publishedUntil], [null, null]);
  });

  it('then the new key is active while the old one is retired, until its last token expired plus the clock tolerance', () => {
    assert.deepEqual(states([first, second], at(takesOver)), { k1: 'retired', k2: 'active' });
    assert.deepEqual(states([first, second], at(gone, -1)), { k1: 'retired', k2: 'active' });
    assert.deepEqual(states([first, second], at(gone)), { k1: 'expired', k2: 'active' });
  });

  it('exactly one key is active at every instant across two rotations', () => {
    const thirdAt = iso(takesOver, 7_200_000);
    const third = key('k3', 3, iso(thirdAt, JWKS_MAX_AGE_MS));
    const keys = [first, second, third];
    for (const ms of [
      0,
      3_600_000,
      3_600_000 + JWKS_MAX_AGE_MS - 1,
      3_600_000 + JWKS_MAX_AGE_MS,
      11_000_000,
      11_100_000,
      200_000_000,
      400_000_000,
    ]) {
      const phases = signingKeyTimeline(keys, at(T0, ms));
      assert.equal(phases.filter((p) => p.state === 'active').length, 1, `at T0+${ms} ms: ${JSON.stringify(phases.map((p) => p.state))}`);
    }
    assert.deepEqual(states(keys, at(third.activatesAt)), { k1: 'retired', k2: 'retired', k3: 'active' });
  });
});
