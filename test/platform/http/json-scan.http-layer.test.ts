import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { inexactNumber, scanJson } from '../../../src/platform/http/json-scan.js';

describe('scanJson', () => {
  it('finds nothing in what JSON.stringify writes, whatever the value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        assert.equal(scanJson(JSON.stringify(value), 1000), undefined);
        assert.equal(scanJson(JSON.stringify(value, null, 2), 1000), undefined);
      }),
      { numRuns: 500 },
    );
  });

  it('ends without throwing on any text, JSON or not', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'{}[]",:\\-0123456789.eE+ atrufnl'.split('')) }), (text) => void scanJson(text, 64)),
      { numRuns: 2000 },
    );
  });

  it('names the path to a duplicate key or an inexact number', () => {
    assert.deepEqual(scanJson('{"a":[0,{"b":1,"b":2}]}', 64), { kind: 'duplicate-key', key: 'b', path: ['a', '1'] });
    assert.deepEqual(scanJson('{"a":{"x":"}{,\\"y\\""},"b":[1e999]}', 64), {
      kind: 'inexact-number',
      literal: '1e999',
      becomes: 'null',
      path: ['b', '0'],
    });
    assert.deepEqual(scanJson('[[[]]]', 2), { kind: 'too-deep' });
    assert.equal(scanJson('[[]]', 2), undefined);
  });

  it('tells a number a double keeps from one it changes', () => {
    for (const kept of [
      '0',
      '-0',
      '0.0',
      '1',
      '-1.5',
      '1e2',
      '1E+2',
      '100.000',
      '0.1',
      '2e-5',
      '9007199254740991',
      '-9007199254740991',
      '1.7976931348623157e308',
      '5e-324',
      '123456789.12345678',
    ]) {
      assert.equal(inexactNumber(kept), undefined, kept);
    }
    const changed: [string, string][] = [
      ['1e400', 'null'],
      ['1e-400', '0'],
      ['9007199254740993', '9007199254740992'],
      ['0.30000000000000000001', '0.3'],
      ['1.00000000000000000001', '1'],
    ];
    for (const [literal, becomes] of changed) assert.equal(inexactNumber(literal), becomes, literal);
  });
});
