import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MetabaseService } from '../../src/metabase/metabase-service.js';
import { metabaseSecretSealContext } from '../../src/metabase/metabase-settings.js';
import { createTokenCipher } from '../../src/secrets/token-cipher.js';
import type { Store } from '../../src/store/store.js';
import { DataTransfer } from '../../src/transfer/data-transfer.js';
import { EXPORT_VERSION } from '../../src/transfer/export-format.js';
import { collect, from, parsed, transferStores } from '../helpers/transfer-lines.js';

const cipher = createTokenCipher('t'.repeat(32));
/** Metabase's keys are 64 lowercase hex characters: one per environment, recognizable in any form. */
const KEYS = {
  Customer: 'c0ffee00' + '1234567890abcdef'.repeat(3) + '0badf00d',
  Testing: 'deadbeef' + 'fedcba0987654321'.repeat(3) + '5eed5eed',
} as const;
const writer = (environment: 'Customer' | 'Testing') => ({ keyId: 'k', environment, access: 'read-write' }) as const;

/** Settings only: a mint is not what moves between stores, so the mint's dependencies are never called. */
const serviceOn = (store: Store) =>
  new MetabaseService({
    store: store.metabase,
    cipher,
    sessions: { sessionClaims: () => assert.fail('no mint in a transfer') },
    activity: { record: () => assert.fail('no mint in a transfer') },
  });

/** Neither key in any form a careless export could write it: as is, base64 or hex. */
function assertNoKey(text: string): void {
  for (const key of Object.values(KEYS))
    for (const form of [key, Buffer.from(key).toString('base64'), Buffer.from(key).toString('hex')])
      assert.ok(!text.includes(form), `the export holds ${key} (${form})`);
}

describe("Export and import carry each environment's Metabase settings, the secret key only sealed", () => {
  const { sqlite, postgres, close } = transferStores('ugs-metabase-transfer');
  let source: Store;
  let lines: string[];
  before(async () => {
    source = await sqlite('source');
    const service = serviceOn(source);
    await service.configure(writer('Customer'), { siteUrl: 'https://mb.acme.example', secretKey: KEYS.Customer, maxExpiresIn: 900 });
    await service.configure(writer('Testing'), { siteUrl: 'http://localhost:3000', secretKey: KEYS.Testing });
    lines = await collect(new DataTransfer(source.transfer, cipher).exportLines());
  });
  after(() => close());

  it('exports one line per configured environment, the key sealed as stored and never in plaintext, counted in the trailer', async () => {
    const records = parsed(lines);
    assert.equal(records[0]!.version, EXPORT_VERSION);
    assert.deepEqual(
      records.map((r) => r.type),
      ['header', 'metabase_settings', 'metabase_settings', 'audit', 'audit', 'end'],
    );
    assert.equal(records.at(-1)!.metabase_settings, 2);
    const stored = await source.metabase.findMetabaseSettings('Customer');
    const customer = records.find((r) => r.type === 'metabase_settings' && r.environment === 'Customer')!;
    assert.deepEqual(customer, {
      type: 'metabase_settings',
      environment: 'Customer',
      site_url: 'https://mb.acme.example',
      secret_key_ciphertext: stored!.secretCiphertext.toString('base64'),
      max_expires_in: 900,
      created_at: stored!.createdAt,
      updated_at: stored!.updatedAt,
    });
    assertNoKey(lines.join('\n'));
  });

  it('imports into SQLite and PostgreSQL: the same settings, and keys that open there to what Metabase verifies with', async () => {
    const service = serviceOn(source);
    const expected = [await service.get(writer('Customer')), await service.get(writer('Testing'))];
    for (const target of [await sqlite('target'), await postgres()]) {
      const summary = await new DataTransfer(target.transfer, cipher).import(from(lines));
      assert.equal(summary.metabaseSettings, 2);
      const imported = serviceOn(target);
      assert.deepEqual([await imported.get(writer('Customer')), await imported.get(writer('Testing'))], expected);
      for (const environment of ['Customer', 'Testing'] as const) {
        const record = (await target.metabase.findMetabaseSettings(environment))!;
        assert.equal(cipher.open(record.secretCiphertext, metabaseSecretSealContext(environment)), KEYS[environment]);
      }
      assert.equal(await target.transfer.isEmpty(), false);
    }
  });

  const refusals: [string, (lines: string[]) => string[], RegExp][] = [
    [
      "one environment's sealed key moved onto the other",
      (all) => {
        const customer = JSON.parse(all[1]!) as { secret_key_ciphertext: string };
        return all.map((l, i) =>
          i === 2 ? JSON.stringify({ ...JSON.parse(l), secret_key_ciphertext: customer.secret_key_ciphertext }) : l,
        );
      },
      /Line 3 of the export: the Testing Metabase secret key cannot be opened with this server secret/,
    ],
    [
      'an environment repeated',
      (all) => [...all.slice(0, 2), all[1]!, ...all.slice(2)],
      /Line 3 of the export: the Customer Metabase settings has the same environment as line 2/,
    ],
    [
      'the settings dropped',
      (all) => [all[0]!, ...all.slice(2)],
      /incomplete: its end marker counts 0 group tags, 0 groups, 0 keys, 0 data sources, 2 Metabase settings/,
    ],
    [
      'a key in plaintext instead of sealed',
      (all) =>
        all.map((l, i) =>
          i === 1 ? JSON.stringify({ ...JSON.parse(l), secret_key_ciphertext: undefined, secret_key: KEYS.Customer }) : l,
        ),
      /Line 2 of the export: .*secret_key_ciphertext/,
    ],
  ];
  for (const [what, tamper, message] of refusals) {
    it(`refuses ${what} and writes nothing`, async () => {
      const target = await sqlite(`refused-${refusals.findIndex(([w]) => w === what)}`);
      await assert.rejects(new DataTransfer(target.transfer, cipher).import(from(tamper(lines))), message);
      assert.equal(await target.transfer.isEmpty(), true);
    });
  }

  it('imports a version 2 export (no Metabase settings, none counted) as ever', async () => {
    const older = await sqlite('older-source');
    const v2 = (await collect(new DataTransfer(older.transfer, cipher).exportLines())).map((line) => {
      const record = JSON.parse(line) as Record<string, unknown>;
      if (record.type === 'header') record.version = 2;
      if (record.type === 'end') delete record.metabase_settings;
      return JSON.stringify(record);
    });
    const target = await sqlite('older-target');
    const summary = await new DataTransfer(target.transfer, cipher).import(from(v2));
    assert.equal(summary.metabaseSettings, 0);
    assert.equal(await target.metabase.findMetabaseSettings('Customer'), null);
  });
});
