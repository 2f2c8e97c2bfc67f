import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DataSourceService } from '../../src/data-sources/data-source-service.js';
import type { DataSourceView } from '../../src/data-sources/data-source.js';
import { createTokenCipher } from '../../src/secrets/token-cipher.js';
import type { Store } from '../../src/store/store.js';
import { DataTransfer } from '../../src/transfer/data-transfer.js';
import { EXPORT_VERSION } from '../../src/transfer/export-format.js';
import { UserGroupService } from '../../src/user-groups/user-group-service.js';
import { collect, from, parsed, transferStores } from '../helpers/transfer-lines.js';

const cipher = createTokenCipher('t'.repeat(32));
const PASSWORDS = { acme: 'acme-Pa55word-1c9e', globex: 'globex-Pa55word-77d0' };
const writer = (environment: 'Customer' | 'Testing') => ({ keyId: 'k', environment, access: 'read-write' }) as const;
const dashboard = (environment: 'Customer' | 'Testing') => ({ keyId: 'd', environment, access: 'dashboard' }) as const;
const CA = '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUeXample\n-----END CERTIFICATE-----\n';

const serviceOn = (store: Store) =>
  new DataSourceService({ store: store.dataSources, cipher, checker: { check: () => assert.fail('no check in a transfer') } });

/** Every data source of both environments, as callers see them. */
async function views(store: Store): Promise<DataSourceView[]> {
  const service = serviceOn(store);
  const customer = await service.list(writer('Customer'), { limit: 100 });
  const testing = await service.list(writer('Testing'), { limit: 100 });
  return [...customer.dataSources, ...testing.dataSources];
}

describe('Export and import carry data sources, their passwords only sealed', () => {
  const { sqlite, postgres, close } = transferStores('ugs-data-source-transfer');
  let source: Store;
  let sealed: string[];
  let withoutPasswords: string[];
  before(async () => {
    source = await sqlite('source');
    const service = serviceOn(source);
    await service.create(writer('Customer'), {
      id: '213',
      name: 'Acme',
      kind: 'postgresql',
      connection: { host: 'db.acme', database: 'acme', user: 'dash', password: PASSWORDS.acme, ssl: { mode: 'verify-ca', ca: CA } },
    });
    await service.update(writer('Customer'), '213', { name: 'Acme EU', connection: { port: 6432 } });
    await service.create(writer('Customer'), {
      id: 'trusted',
      name: 'No password',
      kind: 'postgresql',
      connection: { host: '10.0.0.9', database: 'shared', user: 'dash' },
    });
    await service.create(writer('Testing'), {
      id: '213',
      name: 'Globex (testing)',
      kind: 'postgresql',
      connection: { host: 'db.globex', database: 'globex', user: 'dash', password: PASSWORDS.globex },
    });
    sealed = await collect(new DataTransfer(source.transfer, cipher).exportLines());
    withoutPasswords = await collect(new DataTransfer(source.transfer, cipher).exportLines({ dataSourcePasswords: false }));
  });
  after(() => close());

  it('exports each data source after the keys, its password sealed as stored and never in plaintext, counted in the trailer', async () => {
    const records = parsed(sealed);
    assert.deepEqual(records[0]!.version, EXPORT_VERSION);
    assert.deepEqual(
      records.map((r) => r.type),
      ['header', 'data_source', 'data_source', 'data_source', 'audit', 'audit', 'audit', 'audit', 'end'],
    );
    assert.deepEqual(records.at(-1), {
      type: 'end',
      group_tags: 0,
      user_groups: 0,
      api_keys: 0,
      data_sources: 3,
      metabase_settings: 0,
      audit_records: 4,
    });
    const stored = await source.dataSources.findDataSource('Customer', '213');
    const acme = records.find((r) => r.type === 'data_source' && r.environment === 'Customer' && r.id === '213')!;
    assert.equal(acme.password_ciphertext, stored!.passwordCiphertext!.toString('base64'), 'the sealed bytes, as stored');
    assert.deepEqual([acme.version, acme.name, acme.password_left_out], [2, 'Acme EU', undefined]);
    assert.equal(records.find((r) => r.id === 'trusted')!.password_ciphertext, null);
    assertNoPlaintext(sealed.join('\n'));
  });

  it('imports into SQLite and PostgreSQL: the same data sources, versions and times, and passwords a dashboard key reads', async () => {
    const expected = await views(source);
    for (const target of [await sqlite('target'), await postgres()]) {
      const summary = await new DataTransfer(target.transfer, cipher).import(from(sealed));
      assert.deepEqual(summary, {
        userGroups: 0,
        apiKeys: 0,
        dataSources: 3,
        metabaseSettings: 0,
        auditRecords: 4,
        dataSourcePasswordsLeftOut: 0,
        groupTags: 0,
      });
      assert.deepEqual(await views(target), expected);
      const service = serviceOn(target);
      assert.equal((await service.credentials(dashboard('Customer'), '213')).connection.password, PASSWORDS.acme);
      assert.equal((await service.credentials(dashboard('Testing'), '213')).connection.password, PASSWORDS.globex);
      assert.equal((await service.credentials(dashboard('Customer'), 'trusted')).connection.password, null);
      assert.deepEqual(await collect(new DataTransfer(target.transfer, cipher).exportLines()).then(withoutTime), withoutTime(sealed));
    }
  });

  it('--without-data-source-passwords leaves them out, even sealed: imported without one, each counted', async () => {
    const records = parsed(withoutPasswords).filter((r) => r.type === 'data_source');
    assert.deepEqual(
      records.map((r) => [r.environment, r.id, r.password_ciphertext, r.password_left_out]),
      [
        ['Customer', '213', null, true],
        ['Customer', 'trusted', null, undefined],
        ['Testing', '213', null, true],
      ],
    );
    for (const record of parsed(sealed).filter((r) => r.type === 'data_source' && r.password_ciphertext !== null))
      assert.ok(!withoutPasswords.join('\n').includes(record.password_ciphertext as string), 'no sealed password either');
    assertNoPlaintext(withoutPasswords.join('\n'));

    const target = await sqlite('without-passwords');
    const summary = await new DataTransfer(target.transfer, cipher).import(from(withoutPasswords));
    assert.deepEqual([summary.dataSources, summary.dataSourcePasswordsLeftOut], [3, 2]);
    assert.deepEqual(
      (await views(target)).map((v) => [v.id, v.passwordSet, v.version]),
      [
        ['213', false, 2],
        ['trusted', false, 1],
        ['213', false, 1],
      ],
    );
  });

  const refusals: [string, (lines: string[]) => string[], RegExp][] = [
    [
      'a sealed password moved onto another data source',
      (lines) =>
        lines.map((l) => (l.includes('"type":"data_source"') && l.includes('"Testing"') ? l.replace('"id":"213"', '"id":"moved"') : l)),
      /Line 4 of the export: the password of data source "moved" cannot be opened with this server secret/,
    ],
    [
      'a data source repeated',
      (lines) => [...lines.slice(0, 2), lines[1]!, ...lines.slice(2)],
      /Line 3 of the export: data source "213" has the same id in Customer as line 2/,
    ],
    [
      'a data source dropped',
      (lines) => [lines[0]!, ...lines.slice(2)],
      /incomplete: its end marker counts 0 group tags, 0 groups, 0 keys, 3 data sources/,
    ],
    [
      'an unknown ssl mode',
      (lines) => lines.map((l) => l.replace('"mode":"verify-ca"', '"mode":"prefer"')),
      /Line 2 of the export: \/connection\/ssl\/mode/,
    ],
  ];
  for (const [what, tamper, message] of refusals) {
    it(`refuses ${what} and writes nothing`, async () => {
      const target = await sqlite(`refused-${refusals.findIndex(([w]) => w === what)}`);
      await assert.rejects(new DataTransfer(target.transfer, cipher).import(from(tamper(sealed))), message);
      assert.equal(await target.transfer.isEmpty(), true);
    });
  }

  it('refuses the export under another server secret, whose passwords would not open', async () => {
    const target = await sqlite('other-secret');
    await assert.rejects(
      new DataTransfer(target.transfer, createTokenCipher('u'.repeat(32))).import(from(sealed)),
      /different server secret/,
    );
  });

  it('imports a version 1 export (no data sources, none counted) as ever', async () => {
    const older = await sqlite('older-source');
    await new UserGroupService({ store: older.userGroups, cipher }).getOrCreate(writer('Customer'), { userGroupId: 'acme', name: 'Acme' });
    // What version 1 wrote: this store's export, with that version and without the count of data sources.
    const lines = (await collect(new DataTransfer(older.transfer, cipher).exportLines())).map((line) => {
      const record = JSON.parse(line) as Record<string, unknown>;
      if (record.type === 'header') record.version = 1;
      if (record.type === 'end') {
        delete record.data_sources;
        delete record.metabase_settings;
      }
      return JSON.stringify(record);
    });
    assert.match(lines[0]!, /"version":1/);
    const target = await sqlite('older-target');
    assert.deepEqual(await new DataTransfer(target.transfer, cipher).import(from(lines)), {
      userGroups: 1,
      apiKeys: 0,
      dataSources: 0,
      metabaseSettings: 0,
      auditRecords: 1,
      dataSourcePasswordsLeftOut: 0,
      groupTags: 0,
    });
    assert.equal((await target.userGroups.findUserGroup('Customer', 'acme'))?.name, 'Acme');
  });
});

/** Neither password in any form a careless export could write it: as is, base64 or hex. */
function assertNoPlaintext(text: string): void {
  for (const password of Object.values(PASSWORDS))
    for (const form of [password, Buffer.from(password).toString('base64'), Buffer.from(password).toString('hex')])
      assert.ok(!text.includes(form), `the export holds ${password} (${form})`);
}

/** Export lines without the header's timestamp, to compare two exports. */
function withoutTime(lines: string[]): string[] {
  return lines.map((line) => line.replace(/"exported_at":"[^"]+"/, ''));
}
