import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PositionSeal, POSITION_SEAL_SETTING } from '../../src/kernel/position-seal.js';

/** putSettingIfAbsent as the stores do it: the first value wins. */
function memorySettings() {
  const values = new Map<string, string>();
  let writes = 0;
  return {
    values,
    get writes() {
      return writes;
    },
    async putSettingIfAbsent(name: string, value: string): Promise<string> {
      writes++;
      if (!values.has(name)) values.set(name, value);
      return values.get(name)!;
    },
  };
}

describe('PositionSeal', () => {
  it('opens what it sealed, and gives the same text for the same position', async () => {
    const seal = await new PositionSeal(memorySettings()).forEnvironment('Testing');
    for (const position of [0, 1, 2, 41, 42, 2 ** 32, Number.MAX_SAFE_INTEGER]) {
      const text = seal.seal('events', position);
      assert.match(text, /^[A-Za-z0-9_-]{22}$/);
      assert.equal(seal.open('events', text), position);
      assert.equal(seal.seal('events', position), text);
    }
  });

  it('shows neither order nor distance: neighbouring positions share no prefix or suffix', async () => {
    const seal = await new PositionSeal(memorySettings()).forEnvironment('Customer');
    const texts = Array.from({ length: 50 }, (_, i) => seal.seal('events', 1000 + i));
    // 8 characters, 48 bits each way (the last character holds only 2 bits): 50 random texts share one by chance about
    // once in 10^11 runs, where 4 characters (20 bits at the end) did about once in 800, and failed a CI run.
    assert.equal(new Set(texts.map((t) => t.slice(0, 8))).size, 50);
    assert.equal(new Set(texts.map((t) => t.slice(-9, -1))).size, 50);
    assert.notDeepEqual([...texts].sort(), texts, 'not in position order');
  });

  it('refuses text sealed for the other environment or another purpose, under another key, or made up', async () => {
    const settings = memorySettings();
    const testing = await new PositionSeal(settings).forEnvironment('Testing');
    const customer = await new PositionSeal(settings).forEnvironment('Customer');
    const text = testing.seal('events', 7);
    assert.equal(customer.open('events', text), undefined);
    assert.equal(testing.open('revocations', text), undefined);
    assert.equal((await new PositionSeal(memorySettings()).forEnvironment('Testing')).open('events', text), undefined);
    for (const made of ['7', '', 'AAAAAAAAAAAAAAAAAAAAAA', `${text}A`, text.slice(1), Buffer.from('r1:7').toString('base64url')]) {
      assert.equal(testing.open('events', made), undefined, made);
    }
    assert.throws(() => testing.openCursor('events', 'AAAAAAAAAAAAAAAAAAAAAA', 'after'), /"after" is not a cursor this service handed out/);
  });

  it('makes its key once, in the store, so every process seals alike', async () => {
    const settings = memorySettings();
    const [a, b] = await Promise.all([
      new PositionSeal(settings).forEnvironment('Testing'),
      new PositionSeal(settings).forEnvironment('Testing'),
    ]);
    assert.equal(a.seal('deliveries', 3), b.seal('deliveries', 3));
    assert.equal(Buffer.from(settings.values.get(POSITION_SEAL_SETTING)!, 'base64url').length, 32);
    const one = new PositionSeal(settings);
    await one.forEnvironment('Testing');
    await one.forEnvironment('Customer');
    assert.equal(settings.writes, 3, 'read from the store once per process');
  });
});
