import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTokenCipher, UnknownSecretError } from '../../src/secrets/token-cipher.js';

const SECRET = 'x'.repeat(32);

describe('token cipher', () => {
  it('round-trips a token and never stores it in the clear', () => {
    const cipher = createTokenCipher(SECRET);
    const sealed = cipher.encrypt('ugt_secret-token', 'Customer', 'acme');
    assert.equal(sealed.includes(Buffer.from('ugt_secret-token')), false);
    assert.equal(cipher.decrypt(sealed, 'Customer', 'acme'), 'ugt_secret-token');
  });

  it('uses a fresh IV each time', () => {
    const cipher = createTokenCipher(SECRET);
    assert.notDeepEqual(cipher.encrypt('t', 'Customer', 'a'), cipher.encrypt('t', 'Customer', 'a'));
  });

  it('binds the ciphertext to its group', () => {
    const cipher = createTokenCipher(SECRET);
    const sealed = cipher.encrypt('t', 'Customer', 'acme');
    assert.throws(() => cipher.decrypt(sealed, 'Testing', 'acme'));
    assert.throws(() => cipher.decrypt(sealed, 'Customer', 'other'));
  });

  it('still binds the ciphertext to its group, and detects tampering, once it has been opened (and cached)', () => {
    const cipher = createTokenCipher(SECRET);
    const sealed = cipher.encrypt('t', 'Customer', 'acme');
    assert.equal(cipher.decrypt(sealed, 'Customer', 'acme'), 't');
    assert.throws(() => cipher.decrypt(sealed, 'Testing', 'acme'));
    assert.throws(() => cipher.decrypt(sealed, 'Customer', 'other'));
    assert.equal(cipher.decrypt(sealed, 'Customer', 'acme'), 't');
    sealed[sealed.length - 1]! ^= 1;
    assert.throws(() => cipher.decrypt(sealed, 'Customer', 'acme'));
  });

  it('detects tampering', () => {
    const cipher = createTokenCipher(SECRET);
    const sealed = cipher.encrypt('token', 'Customer', 'acme');
    sealed[sealed.length - 1]! ^= 1;
    assert.throws(() => cipher.decrypt(sealed, 'Customer', 'acme'));
  });

  it('cannot be opened with another secret, and fingerprints secrets apart', () => {
    const sealed = createTokenCipher(SECRET).encrypt('token', 'Customer', 'acme');
    const other = createTokenCipher('y'.repeat(32));
    assert.throws(() => other.decrypt(sealed, 'Customer', 'acme'));
    assert.notEqual(other.secretCheck, createTokenCipher(SECRET).secretCheck);
    assert.equal(createTokenCipher(SECRET).secretCheck, createTokenCipher(SECRET).secretCheck);
    assert.equal(createTokenCipher(SECRET).secretCheck.includes(SECRET), false);
  });

  it('opens tokens sealed under a previous secret, seals under the current one, and tells them apart', () => {
    const old = createTokenCipher(SECRET);
    const sealedOld = old.encrypt('token', 'Customer', 'acme');
    const rotating = createTokenCipher('n'.repeat(32), [SECRET]);
    assert.equal(rotating.decrypt(sealedOld, 'Customer', 'acme'), 'token');
    assert.equal(rotating.isCurrent(sealedOld), false);
    const sealedNew = rotating.encrypt('token', 'Customer', 'acme');
    assert.equal(rotating.isCurrent(sealedNew), true);
    assert.deepEqual(rotating.knownChecks, [createTokenCipher('n'.repeat(32)).secretCheck, old.secretCheck]);
    assert.throws(() => old.decrypt(sealedNew, 'Customer', 'acme'), UnknownSecretError);
  });

  it('refuses a server secret shorter than 32 characters', () => {
    assert.throws(() => createTokenCipher('short'), /at least 32 characters/);
  });
});
