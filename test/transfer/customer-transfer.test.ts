import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { GroupTagService } from '../../src/group-tags/group-tag-service.js';
import { createTokenCipher } from '../../src/secrets/token-cipher.js';
import type { Store } from '../../src/store/store.js';
import { DataTransfer } from '../../src/transfer/data-transfer.js';
import { EXPORT_VERSION } from '../../src/transfer/export-format.js';
import { UserGroupService } from '../../src/user-groups/user-group-service.js';
import { collect, from, parsed, transferStores } from '../helpers/transfer-lines.js';

const cipher = createTokenCipher('c'.repeat(32));
const writer = (environment: 'Customer' | 'Testing') => ({ keyId: 'k', environment, access: 'read-write' }) as const;
const CUSTOMER_KEYS = ['emails', 'is_demo_group', 'hierarchy_level', 'group_tags'];

/** A clock a second further on each reading: tags list by creation time, then name, so two made in one millisecond would swap. */
function ticking(): () => Date {
  let at = Date.parse('2026-03-01T00:00:00.000Z');
  return () => new Date((at += 1000));
}

/** The lines with each record `change` returns instead of it (dropped where it returns undefined). */
function edited(lines: string[], change: (record: Record<string, unknown>) => Record<string, unknown> | undefined): string[] {
  return lines.flatMap((line) => {
    const record = change(JSON.parse(line) as Record<string, unknown>);
    return record === undefined ? [] : [JSON.stringify(record)];
  });
}

/** The file without one tag's line, its trailer counting one tag less: only the check of each group's tags can refuse it. */
function withoutTag(lines: string[], environment: string, name: string): string[] {
  return edited(lines, (record) => {
    if (record.type === 'group_tag' && record.environment === environment && record.name === name) return undefined;
    return record.type === 'end' ? { ...record, group_tags: (record.group_tags as number) - 1 } : record;
  });
}

/** Export and import carry the Customer API's data: the group tags, and a group's emails, demo flag, level and tags. */
describe("Export and import carry the Customer API's group tags and fields", () => {
  const { sqlite, postgres, close } = transferStores('ugs-customer-transfer');
  let source: Store;
  let lines: string[];
  /** What a store holds of the Customer API: each environment's tags, and the named groups as records. */
  const contents = async (store: Store) => ({
    tags: {
      Customer: await store.groupTags.listGroupTags('Customer'),
      Testing: await store.groupTags.listGroupTags('Testing'),
    },
    groups: await Promise.all(
      [
        ['Customer', 'acme'],
        ['Customer', 'acme-team'],
        ['Customer', 'plain'],
        ['Testing', 'sandbox'],
      ].map(([environment, id]) => store.userGroups.findUserGroup(environment as 'Customer', id!)),
    ),
  });
  before(async () => {
    source = await sqlite('source');
    const tags = new GroupTagService({ store: source.groupTags, now: ticking() });
    const groups = new UserGroupService({ store: source.userGroups, cipher });
    for (const name of ['sales', 'engineers', 'to-rename']) await tags.create(writer('Customer'), name);
    await tags.create(writer('Testing'), 'sales');
    await groups.getOrCreate(writer('Customer'), {
      userGroupId: 'acme',
      name: 'Acme',
      customer: { emails: ['ops@acme.example'], isDemoGroup: true, hierarchyLevel: 'Customer', groupTags: ['sales', 'to-rename'] },
    });
    await groups.getOrCreate(writer('Customer'), {
      userGroupId: 'acme-team',
      name: 'Acme team',
      parentUserGroupId: 'acme',
      customer: { hierarchyLevel: 'User', groupTags: [] },
    });
    await groups.getOrCreate(writer('Customer'), { userGroupId: 'plain', name: 'Plain' });
    await groups.getOrCreate(writer('Testing'), { userGroupId: 'sandbox', name: 'Sandbox', customer: { groupTags: ['sales'] } });
    await tags.rename(writer('Customer'), 'to-rename', 'renamed');
    lines = await collect(new DataTransfer(source.transfer, cipher).exportLines());
  });
  after(() => close());

  it('writes version 4: the tags first, counted in the trailer, and each group with the fields it has', () => {
    const records = parsed(lines);
    assert.equal(records[0]!.version, EXPORT_VERSION);
    assert.equal(EXPORT_VERSION, 4);
    assert.deepEqual(
      records.filter((r) => r.type === 'group_tag').map((r) => [r.environment, r.name]),
      [
        ['Customer', 'sales'],
        ['Customer', 'engineers'],
        ['Customer', 'renamed'],
        ['Testing', 'sales'],
      ],
    );
    assert.ok(
      records.findIndex((r) => r.type === 'user_group') > records.findLastIndex((r) => r.type === 'group_tag'),
      'the tags before the groups',
    );
    assert.equal(records.at(-1)!.group_tags, 4);
    const acme = records.find((r) => r.type === 'user_group' && r.provided_id === 'acme')!;
    assert.deepEqual(
      CUSTOMER_KEYS.map((key) => acme[key]),
      [['ops@acme.example'], true, 'Customer', ['sales', 'renamed']],
    );
    const plain = records.find((r) => r.type === 'user_group' && r.provided_id === 'plain')!;
    for (const key of CUSTOMER_KEYS) assert.equal(Object.hasOwn(plain, key), false, `a group without ${key} has no such field`);
  });

  it('moves them SQLite → PostgreSQL → SQLite unchanged, creation times kept', async () => {
    const expected = await contents(source);
    const onPostgres = await postgres();
    await new DataTransfer(onPostgres.transfer, cipher).import(from(lines));
    assert.deepEqual(await contents(onPostgres), expected);
    const back = await sqlite('back');
    await new DataTransfer(back.transfer, cipher).import(from(await collect(new DataTransfer(onPostgres.transfer, cipher).exportLines())));
    assert.deepEqual(await contents(back), expected);
    assert.equal(await onPostgres.transfer.isEmpty(), false);

    // The imported lists are what the tag writes read and rewrite (on PostgreSQL through jsonb): they reach every carrier.
    for (const target of [onPostgres, back]) {
      const tags = new GroupTagService({ store: target.groupTags });
      await tags.rename(writer('Customer'), 'renamed', 'key-account');
      await tags.delete(writer('Testing'), 'sales');
      assert.deepEqual((await target.userGroups.findUserGroup('Customer', 'acme'))?.groupTags, ['sales', 'key-account']);
      assert.deepEqual((await target.userGroups.findUserGroup('Testing', 'sandbox'))?.groupTags, []);
    }
  });

  it('refuses a group carrying a tag the file does not hold before it, and writes nothing', async () => {
    const withoutTag = lines
      .filter((line) => !(JSON.parse(line).type === 'group_tag' && JSON.parse(line).name === 'renamed'))
      .map((line) => {
        const record = JSON.parse(line) as Record<string, unknown>;
        if (record.type === 'end') record.group_tags = 3;
        return JSON.stringify(record);
      });
    const target = await sqlite('refused-tag');
    await assert.rejects(
      new DataTransfer(target.transfer, cipher).import(from(withoutTag)),
      /carries tag "renamed", which is no earlier group tag/,
    );
    assert.equal(await target.transfer.isEmpty(), true);
    const miscounted = lines.map((line) => {
      const record = JSON.parse(line) as Record<string, unknown>;
      if (record.type === 'end') record.group_tags = 5;
      return JSON.stringify(record);
    });
    await assert.rejects(
      new DataTransfer(target.transfer, cipher).import(from(miscounted)),
      /incomplete: its end marker counts 5 group tags/,
    );
    assert.equal(await target.transfer.isEmpty(), true);
  });

  const refusals: [string, (all: string[]) => string[], RegExp][] = [
    [
      'a group carrying a tag the file holds only for the other environment',
      (all) => withoutTag(all, 'Testing', 'sales'),
      /user group "sandbox" carries tag "sales", which is no earlier group tag of the Testing environment/,
    ],
    [
      'a tag after the groups that carry it',
      (all) => {
        const sales = all.find((l) => l.includes('"type":"group_tag"') && l.includes('"name":"sales"'))!;
        return [...all.filter((l) => l !== sales).slice(0, -1), sales, all.at(-1)!];
      },
      /user group "acme" carries tag "sales", which is no earlier group tag of the Customer environment/,
    ],
    [
      'a tag repeated',
      (all) => [all[0]!, all[1]!, ...all.slice(1)],
      /Line 3 of the export: group tag "sales" has the same name in Customer as line 2\.$/,
    ],
    [
      'a tag name the Group Tag API refuses (\\u0000: SQLite would store it, PostgreSQL fail on it unnamed)',
      (all) => edited(all, (r) => (r.type === 'group_tag' && r.name === 'engineers' ? { ...r, name: 'engi\u0000neers' } : r)),
      /Line 3 of the export: group tag "engi\\u0000neers": "name" holds a control character/,
    ],
    [
      'a group carrying one tag twice',
      (all) => edited(all, (r) => (r.provided_id === 'acme' ? { ...r, group_tags: ['sales', 'sales'] } : r)),
      /Line \d+ of the export: \/group_tags .*unique/,
    ],
  ];
  for (const [what, tamper, message] of refusals) {
    it(`refuses ${what}, and writes nothing`, async () => {
      const target = await sqlite(`refused-${refusals.findIndex(([w]) => w === what)}`);
      await assert.rejects(new DataTransfer(target.transfer, cipher).import(from(tamper(lines))), message);
      assert.equal(await target.transfer.isEmpty(), true);
    });
  }

  it("imports a hierarchy level as it is: the levels are the serving process's setting, which an import does not read", async () => {
    const target = await sqlite('other-levels');
    const regional = edited(lines, (r) => (r.provided_id === 'acme' ? { ...r, hierarchy_level: 'Region' } : r));
    await new DataTransfer(target.transfer, cipher).import(from(regional));
    assert.equal((await target.userGroups.findUserGroup('Customer', 'acme'))?.hierarchyLevel, 'Region');
  });

  it('imports into no store that holds a tag, even one no audit record names', async () => {
    const target = await sqlite('only-a-tag');
    const tag = { environment: 'Customer' as const, name: 'sales', createdAt: new Date().toISOString() };
    assert.equal(await target.groupTags.insertGroupTag(tag, { audit: [], events: [], revocations: [] }), true);
    assert.equal(await target.transfer.isEmpty(), false);
    await assert.rejects(new DataTransfer(target.transfer, cipher).import(from(lines)), /empty store/);
  });

  it('imports into no store that already holds a tag', async () => {
    const target = await sqlite('has-a-tag');
    await new GroupTagService({ store: target.groupTags }).create(writer('Customer'), 'sales');
    assert.equal(await target.transfer.isEmpty(), false);
    await assert.rejects(new DataTransfer(target.transfer, cipher).import(from(lines)), /empty store/);
  });

  it('imports a version 3 export (no tags, no Customer API fields) as ever', async () => {
    const older = await sqlite('v3-source');
    await new UserGroupService({ store: older.userGroups, cipher }).getOrCreate(writer('Customer'), { userGroupId: 'old', name: 'Old' });
    const v3 = (await collect(new DataTransfer(older.transfer, cipher).exportLines())).map((line) => {
      const record = JSON.parse(line) as Record<string, unknown>;
      if (record.type === 'header') record.version = 3;
      if (record.type === 'end') delete record.group_tags;
      return JSON.stringify(record);
    });
    const target = await sqlite('v3-target');
    const summary = await new DataTransfer(target.transfer, cipher).import(from(v3));
    assert.equal(summary.groupTags, 0);
    const old = await target.userGroups.findUserGroup('Customer', 'old');
    assert.equal(old?.name, 'Old');
    for (const field of ['emails', 'isDemoGroup', 'hierarchyLevel', 'groupTags'] as const)
      assert.equal(Object.hasOwn(old!, field), false, field);
  });
});
