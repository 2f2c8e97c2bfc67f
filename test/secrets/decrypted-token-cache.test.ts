import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DecryptedTokenCache } from '../../src/secrets/decrypted-token-cache.js';

describe('decrypted token cache', () => {
  it('opens a ciphertext once, and again only for another group or once evicted', () => {
    const cache = new DecryptedTokenCache(2);
    let opened = 0;
    const open = (token: string) => () => (opened++, token);
    const a = Buffer.from([2, 1, 2, 3]);
    assert.equal(cache.get(a, 'Customer', 'a', open('ta')), 'ta');
    assert.equal(cache.get(a, 'Customer', 'a', open('ta')), 'ta');
    assert.equal(opened, 1);
    // Another group with the same bytes is opened (and refused by AES-GCM in the real cipher), never answered from the cache.
    assert.throws(
      () =>
        cache.get(a, 'Testing', 'a', () => {
          throw new Error('wrong group');
        }),
      /wrong group/,
    );
    assert.equal(cache.get(a, 'Customer', 'a', open('ta')), 'ta');
    assert.equal(opened, 1);
    cache.get(Buffer.from([2, 9]), 'Customer', 'b', open('tb'));
    cache.get(Buffer.from([2, 8]), 'Customer', 'c', open('tc'));
    assert.equal(cache.get(a, 'Customer', 'a', open('ta')), 'ta');
    assert.equal(opened, 4, 'the oldest entry made room');
  });
});
