import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { apiKeyFormat } from '../../src/api-keys/api-key.js';
import { randomBytes } from 'node:crypto';
import { hashSecret, sameHash, secretFormat, toBase62 } from '../../src/secrets/secret-format.js';
import { userGroupTokenFormat } from '../../src/user-groups/user-group-token.js';

describe('secret format', () => {
  it('gives tokens and keys distinct fixed prefixes and a fixed URL-safe shape', () => {
    assert.match(userGroupTokenFormat.generate(), /^ugt_[0-9A-Za-z]{49}$/);
    assert.match(apiKeyFormat.generate(), /^ugsk_[0-9A-Za-z]{49}$/);
  });

  it('carries 256 random bits: a thousand values are distinct and use the whole alphabet', () => {
    const values = Array.from({ length: 1000 }, () => userGroupTokenFormat.generate());
    assert.equal(new Set(values).size, values.length);
    const used = new Set(values.flatMap((v) => [...v.slice(4, 4 + 43)]));
    assert.equal(used.size, 62);
  });

  it('still accepts values issued by earlier versions (the checksum encoding is part of the format)', () => {
    assert.ok(apiKeyFormat.isWellFormed('ugsk_swjabvwGbCVUrMfpXdiyIB4fh0RNoe3Yw1e7wqBS9iR4LadH1'));
    assert.ok(userGroupTokenFormat.isWellFormed('ugt_ICU9hMZnN8hOx12BX7kIRtYcei0p28mzuWXCJ7eP6ky4O3YWp'));
    assert.equal(apiKeyFormat.isWellFormed('ugsk_swjabvwGbCVUrMfpXdiyIB4fh0RNoe3Yw1e7wqBS9iR4LadH2'), false);
  });

  it('accepts what it generates', () => {
    for (let i = 0; i < 200; i++) assert.ok(apiKeyFormat.isWellFormed(apiKeyFormat.generate()));
  });

  it('refuses any single mistyped character via the checksum', () => {
    const token = userGroupTokenFormat.generate();
    for (let i = 4; i < token.length; i++) {
      const replacement = token[i] === 'a' ? 'b' : 'a';
      const typo = token.slice(0, i) + replacement + token.slice(i + 1);
      assert.equal(userGroupTokenFormat.isWellFormed(typo), false, `typo at ${i} accepted`);
    }
  });

  it('refuses the wrong prefix, length or alphabet', () => {
    const key = apiKeyFormat.generate();
    assert.equal(userGroupTokenFormat.isWellFormed(key), false);
    assert.equal(apiKeyFormat.isWellFormed(key.slice(0, -1)), false);
    assert.equal(apiKeyFormat.isWellFormed(`${key}a`), false);
    assert.equal(apiKeyFormat.isWellFormed(key.replace(/.$/, '-')), false);
    assert.equal(apiKeyFormat.isWellFormed(''), false);
    assert.equal(secretFormat('x_').isWellFormed(key), false);
  });

  it('hashes deterministically and compares hashes exactly', () => {
    const a = hashSecret('value');
    assert.equal(a.length, 32);
    assert.ok(sameHash(a, hashSecret('value')));
    assert.equal(sameHash(a, hashSecret('other')), false);
    assert.equal(sameHash(a, a.subarray(0, 16)), false);
  });
});

describe('toBase62', () => {
  /** The definition: the bytes as one big-endian number, written in base62 and padded (the BigInt version it replaced). */
  function reference(bytes: Uint8Array, length: number): string {
    let value = BigInt(`0x${Buffer.from(bytes).toString('hex') || '0'}`);
    let out = '';
    while (value > 0n) {
      out = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'[Number(value % 62n)] + out;
      value /= 62n;
    }
    return out.padStart(length, '0');
  }

  it('writes the same digits as the BigInt definition, for random values and the edges', () => {
    const cases = [
      Buffer.alloc(32),
      Buffer.alloc(32, 0xff),
      Buffer.from([1]),
      Buffer.alloc(0),
      Buffer.from([0, 0, 61]),
      Buffer.from([0, 0, 62]),
    ];
    for (let i = 0; i < 2000; i++) cases.push(randomBytes(i % 40));
    for (const bytes of cases) assert.equal(toBase62(bytes, 43), reference(bytes, 43), bytes.toString('hex'));
  });
});
