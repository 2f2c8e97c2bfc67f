import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ApiKeyService } from '../../src/api-keys/api-key-service.js';
import { DataTransfer } from '../../src/transfer/data-transfer.js';
import { createTokenCipher } from '../../src/secrets/token-cipher.js';
import { UserGroupService } from '../../src/user-groups/user-group-service.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { insertWebhook } from '../helpers/webhook-writes.js';
import { collect, from } from '../helpers/transfer-lines.js';

const cipher = createTokenCipher('t'.repeat(32));
const writer = { keyId: 'k', environment: 'Customer', access: 'read-write' } as const;

describe('DataTransfer', () => {
  const dir = makeTempDir('ugs-transfer');
  let stores: SqliteStore[] = [];
  let lines: string[];
  const fresh = async () => {
    const { store } = await SqliteStore.open({ path: join(dir.path, `s${stores.length}.sqlite`) });
    stores.push(store);
    return store;
  };
  before(async () => {
    const source = await fresh();
    const groups = new UserGroupService({ store: source.userGroups, cipher });
    for (let i = 0; i < 1205; i++) await groups.getOrCreate(writer, { userGroupId: `g${i}`, name: `G${i}` });
    await new ApiKeyService({ store: source.apiKeys, cacheTtlMs: 0 }).create({ environment: 'Testing', access: 'read-only' });
    lines = await collect(new DataTransfer(source.transfer, cipher).exportLines());
  });
  after(async () => {
    for (const s of stores) await s.close();
    stores = [];
    dir.remove();
  });

  it('exports a header, every group across pages, every key and a counting trailer', () => {
    // 1205 creations and one key creation are audited: 1206 audit records.
    assert.equal(lines.length, 1 + 1205 + 1 + 1206 + 1);
    assert.equal(JSON.parse(lines[0]!).type, 'header');
    assert.deepEqual(JSON.parse(lines.at(-1)!), {
      type: 'end',
      group_tags: 0,
      user_groups: 1205,
      api_keys: 1,
      data_sources: 0,
      metabase_settings: 0,
      audit_records: 1206,
    });
  });

  it('imports into an empty store and refuses a second import', async () => {
    const target = await fresh();
    assert.deepEqual(await new DataTransfer(target.transfer, cipher).import(from(lines)), {
      userGroups: 1205,
      apiKeys: 1,
      dataSources: 0,
      metabaseSettings: 0,
      auditRecords: 1206,
      dataSourcePasswordsLeftOut: 0,
      groupTags: 0,
    });
    assert.equal((await target.transfer.listAuditRecordsAfter(0, 5000)).length, 1206);
    assert.equal(await target.transfer.listUserGroupsAfter(0, 2000).then((g) => g.length), 1205);
    await assert.rejects(new DataTransfer(target.transfer, cipher).import(from(lines)), /empty store/);
  });

  const refusals: [string, (l: string[]) => string[], RegExp][] = [
    [
      'a token that does not match its hash',
      (l) => l.map((x, i) => (i === 1 ? x.replace(/"token_hash":"(.)/, (_m, c: string) => `"token_hash":"${c === 'A' ? 'B' : 'A'}`) : x)),
      /Line 2.*(hash|decrypt)/,
    ],
    [
      'a ciphertext moved to another group',
      (l) => l.map((x, i) => (i === 1 ? x.replace('"provided_id":"g0"', '"provided_id":"moved"') : x)),
      /Line 2.*cannot be decrypted/,
    ],
    ['a missing trailer', (l) => l.slice(0, -1), /truncated/],
    ['a dropped record', (l) => [l[0]!, ...l.slice(2)], /incomplete/],
    ['records after the trailer', (l) => [...l, l[1]!], /after the end marker/],
    ['no header', (l) => l.slice(1), /header first/],
    ['a line that is not JSON', (l) => [l[0]!, '{oops', ...l.slice(1)], /Line 2.*not JSON/],
    ['a record of the wrong shape', (l) => [l[0]!, '{"type":"user_group","team_id":-1}', ...l.slice(1)], /Line 2/],
  ];
  for (const [what, tamper, message] of refusals) {
    it(`refuses ${what} and writes nothing`, async () => {
      const target = await fresh();
      await assert.rejects(new DataTransfer(target.transfer, cipher).import(from(tamper(lines))), message);
      assert.equal(await target.transfer.isEmpty(), true);
    });
  }

  it("carries each audit record's client address, and imports exports made before audit records had one", async () => {
    const source = await fresh();
    const groups = new UserGroupService({ store: source.userGroups, cipher });
    await groups.getOrCreate(writer, { userGroupId: 'from-afar', name: 'Afar' }, { ip: '203.0.113.8' });
    await groups.getOrCreate(writer, { userGroupId: 'no-origin', name: 'None' });
    const exported = await collect(new DataTransfer(source.transfer, cipher).exportLines());
    const audits = (text: string[]) =>
      text.map((l) => JSON.parse(l) as { type: string; client_address?: string | null }).filter((r) => r.type === 'audit');
    assert.deepEqual(
      audits(exported).map((a) => a.client_address),
      ['203.0.113.8', null],
    );
    const older = exported.map((l) => JSON.stringify({ ...JSON.parse(l), client_address: undefined }));
    assert.ok(audits(older).every((a) => !('client_address' in a)));
    for (const [text, expected] of [
      [exported, ['203.0.113.8', null]],
      [older, [null, null]],
    ] as const) {
      const target = await fresh();
      await new DataTransfer(target.transfer, cipher).import(from([...text]));
      assert.deepEqual(
        (await target.transfer.listAuditRecordsAfter(0, 10)).map((r) => r.clientAddress),
        expected,
      );
    }
  });

  it('carries the webhook a webhook.* audit record names', async () => {
    const source = await fresh();
    const record = {
      id: 'wh_0123456789abcdef01234567',
      environment: 'Customer' as const,
      url: 'https://hooks.example/in',
      events: null,
      description: null,
      secretCiphertext: Buffer.alloc(40, 1),
      previousSecretCiphertext: null,
      previousSecretExpiresAt: null,
      createdAt: '2026-01-01T00:00:00.000Z',
      disabledAt: null,
      failingSince: null,
    };
    await insertWebhook(source, record, { keyId: 'k', fields: ['url'] });
    const exported = await collect(new DataTransfer(source.transfer, cipher).exportLines());
    const target = await fresh();
    await new DataTransfer(target.transfer, cipher).import(from(exported));
    const [audit] = await target.transfer.listAuditRecordsAfter(0, 10);
    assert.deepEqual([audit!.action, audit!.webhookId], ['webhook.created', record.id]);
  });

  it('refuses an export made under another server secret', async () => {
    const target = await fresh();
    await assert.rejects(
      new DataTransfer(target.transfer, createTokenCipher('u'.repeat(32))).import(from(lines)),
      /different server secret/,
    );
  });
});
