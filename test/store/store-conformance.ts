import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { ApiKeyRecord } from '../../src/api-keys/api-key.js';
import type { Environment } from '../../src/kernel/environment.js';
import type { NewUserGroup, Store } from '../../src/store/store.js';
import { consoleSessionStoreConformance } from './console-session-store-conformance.js';
import { embedStoreConformance } from './embed-store-conformance.js';
import { eventStoreConformance } from './event-store-conformance.js';
import { hierarchyStoreConformance } from './hierarchy-store-conformance.js';
import { usageStoreConformance } from './usage-store-conformance.js';
import { webhookStoreConformance } from './webhook-store-conformance.js';
import { dataSourceStoreConformance } from './data-source-store-conformance.js';
import { metabaseStoreConformance } from './metabase-store-conformance.js';
import { customerStoreConformance } from './customer-store-conformance.js';
import { newGroup as groupFixture } from '../helpers/new-group.js';
import { insertKey, revokeKey } from '../helpers/api-key-writes.js';
import { deleteGroup, insertGroup, replaceToken, updateGroup } from '../helpers/group-writes.js';

/** How a conformance run gets a fresh, migrated, empty store of one kind. */
export interface StoreFixture {
  name: string;
  open(): Promise<Store>;
  /** Another store on the database `open` made last: a second process or replica. */
  reopen(): Promise<Store>;
  /** Removes whatever `open` created. */
  cleanup(): Promise<void>;
}

const LATER = '2027-06-01T12:00:00.000Z';
let seq = 0;
function newGroup(environment: Environment, providedId: string, overrides: Partial<NewUserGroup> = {}): NewUserGroup {
  const at = new Date(Date.UTC(2026, 0, 1, 0, 0, seq++)).toISOString();
  return groupFixture(providedId, {
    environment,
    mapping: { '40': '213', '41': 7 },
    properties: { region: 'eu', nested: { list: [1, 'two', null] } },
    at,
    ...overrides,
  });
}

function newKey(overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  return {
    id: `key_${randomBytes(8).toString('hex')}`,
    name: 'ci',
    environment: 'Customer',
    access: 'read-write',
    keyHash: randomBytes(32),
    createdAt: new Date().toISOString(),
    lastUsedAt: null,
    revokedAt: null,
    ...overrides,
  };
}

/**
 * Every behaviour the domain relies on, run against each store
 * implementation: one suite, so the databases cannot drift apart.
 */
export function storeConformance(fixture: StoreFixture): void {
  describe(`Store conformance: ${fixture.name}`, () => {
    let store: Store;
    before(async () => {
      store = await fixture.open();
    });
    after(async () => {
      await store.close();
      await fixture.cleanup();
    });

    it('answers ping', async () => {
      await store.ping();
    });

    it('keeps settings, first writer wins', async () => {
      assert.equal(await store.settings.getSetting('s1'), null);
      assert.equal(await store.settings.putSettingIfAbsent('s1', 'first'), 'first');
      assert.equal(await store.settings.putSettingIfAbsent('s1', 'second'), 'first');
      assert.equal(await store.settings.getSetting('s1'), 'first');
    });

    it('writes, lists by prefix and deletes settings', async () => {
      await store.settings.putSetting('holder:a', '1');
      await store.settings.putSetting('holder:b', '2');
      await store.settings.putSetting('holder:a', '3');
      await store.settings.putSetting('holders_other', 'x');
      await store.settings.putSetting('h%lder:c', 'not a prefix match');
      assert.deepEqual(await store.settings.listSettings('holder:'), [
        { name: 'holder:a', value: '3' },
        { name: 'holder:b', value: '2' },
      ]);
      await store.settings.deleteSetting('holder:a');
      await store.settings.deleteSetting('holder:never');
      assert.deepEqual(await store.settings.listSettings('holder:'), [{ name: 'holder:b', value: '2' }]);
      assert.equal(await store.settings.getSetting('holders_other'), 'x');
    });

    it('inserts a group and reads it back field for field', async () => {
      const group = newGroup('Customer', 'roundtrip');
      const { group: stored, created } = await insertGroup(store, group);
      assert.equal(created, true);
      assert.ok(Number.isInteger(stored.teamId) && stored.teamId > 0);
      const { teamId, ...rest } = stored;
      assert.deepEqual(rest, group);
      assert.deepEqual(await store.userGroups.findUserGroup('Customer', 'roundtrip'), stored);
      assert.deepEqual(await store.userGroups.findUserGroupByTokenHash('Customer', group.tokenHash), stored);
      assert.ok(teamId);
    });

    it('keeps null mapping and properties as null', async () => {
      const { group } = await insertGroup(store, newGroup('Customer', 'nulls', { mapping: null, properties: null }));
      assert.equal(group.mapping, null);
      assert.equal(group.properties, null);
    });

    it('does not insert a second group with the same id in one environment', async () => {
      const first = await insertGroup(store, newGroup('Customer', 'dup'));
      const second = await insertGroup(store, newGroup('Customer', 'dup', { name: 'Another' }));
      assert.equal(second.created, false);
      assert.deepEqual(second.group, first.group);
    });

    it('allows the same id once per environment, as separate groups', async () => {
      const customer = await insertGroup(store, newGroup('Customer', 'shared'));
      const testing = await insertGroup(store, newGroup('Testing', 'shared'));
      assert.equal(testing.created, true);
      assert.notEqual(customer.group.teamId, testing.group.teamId);
      assert.equal((await store.userGroups.findUserGroup('Testing', 'shared'))?.teamId, testing.group.teamId);
    });

    it('scopes token lookups to the environment', async () => {
      const { group } = await insertGroup(store, newGroup('Testing', 'scoped'));
      assert.equal(await store.userGroups.findUserGroupByTokenHash('Customer', group.tokenHash), null);
    });

    it('answers lookups made together each with its own group, across environments, with misses as null', async () => {
      const customer = await Promise.all(Array.from({ length: 40 }, (_, i) => insertGroup(store, newGroup('Customer', `together-${i}`))));
      const testing = await insertGroup(store, newGroup('Testing', 'together-0'));
      const byId = await Promise.all([
        ...customer.map((_, i) => store.userGroups.findUserGroup('Customer', `together-${i}`)),
        store.userGroups.findUserGroup('Testing', 'together-0'),
        store.userGroups.findUserGroup('Testing', 'together-1'),
        store.userGroups.findUserGroup('Customer', 'together-0'),
        store.userGroups.findUserGroup('Customer', 'together-missing'),
      ]);
      assert.deepEqual(byId, [...customer.map((c) => c.group), testing.group, null, customer[0]!.group, null]);
      const byToken = await Promise.all([
        ...customer.map((c) => store.userGroups.findUserGroupByTokenHash('Customer', c.group.tokenHash)),
        store.userGroups.findUserGroupByTokenHash('Testing', testing.group.tokenHash),
        store.userGroups.findUserGroupByTokenHash('Testing', customer[1]!.group.tokenHash),
        store.userGroups.findUserGroupByTokenHash('Customer', randomBytes(32)),
      ]);
      assert.deepEqual(byToken, [...customer.map((c) => c.group), testing.group, null, null]);
    });

    it('lets a lookup made with a write see it once the write is answered', async () => {
      const [before, inserted] = await Promise.all([
        store.userGroups.findUserGroup('Customer', 'with-write'),
        insertGroup(store, newGroup('Customer', 'with-write')),
      ]);
      assert.ok(before === null || before.teamId === inserted.group.teamId);
      assert.deepEqual(await store.userGroups.findUserGroup('Customer', 'with-write'), inserted.group);
    });

    it("answers a lookup with what another process or replica wrote since, and with this store's own writes at once", async () => {
      const { group } = await insertGroup(store, newGroup('Customer', 'seen-elsewhere'));
      const find = () => store.userGroups.findUserGroup('Customer', 'seen-elsewhere');
      assert.deepEqual(await find(), group);
      const other = await fixture.reopen();
      try {
        await updateGroup(other, 'Customer', 'seen-elsewhere', { name: 'Renamed elsewhere', updatedAt: LATER });
        assert.equal((await find())?.name, 'Renamed elsewhere', "another connection's update");
        const next = { tokenHash: randomBytes(32), tokenCiphertext: randomBytes(60) };
        const replacement = { teamId: group.teamId, environment: group.environment, providedId: group.providedId, updatedAt: LATER };
        await replaceToken(other, { ...replacement, expectedTokenHash: group.tokenHash, ...next });
        assert.deepEqual((await find())?.tokenHash, next.tokenHash, "another connection's rotation");
        await updateGroup(store, 'Customer', 'seen-elsewhere', { properties: { region: 'us' }, updatedAt: LATER });
        assert.deepEqual((await find())?.properties, { region: 'us' }, 'its own update');
        const found = (await find())!;
        try {
          (found.properties as Record<string, unknown>).region = 'changed by a caller';
        } catch {
          // A store may hand out frozen records: then the caller cannot change them at all.
        }
        assert.deepEqual((await find())?.properties, { region: 'us' }, "what one caller does to its answer is not another's answer");
        await deleteGroup(other, 'Customer', 'seen-elsewhere', LATER);
        assert.equal(await find(), null, "another connection's deletion");
      } finally {
        await other.close();
      }
    });

    it('creates exactly once under concurrent inserts of one id', async () => {
      const results = await Promise.all(Array.from({ length: 50 }, () => insertGroup(store, newGroup('Customer', 'race'))));
      assert.equal(results.filter((r) => r.created).length, 1);
      assert.equal(new Set(results.map((r) => r.group.teamId)).size, 1);
      assert.equal(new Set(results.map((r) => r.group.tokenHash.toString('hex'))).size, 1);
    });

    it('never reuses a team_id', async () => {
      const ids = [];
      for (let i = 0; i < 5; i++) ids.push((await insertGroup(store, newGroup('Customer', `seq-${i}`))).group.teamId);
      assert.equal(new Set(ids).size, ids.length);
      assert.deepEqual(
        [...ids].sort((a, b) => a - b),
        ids,
      );
    });

    it('updates only the given fields and can clear properties', async () => {
      const { group } = await insertGroup(store, newGroup('Customer', 'upd'));
      const renamed = await updateGroup(store, 'Customer', 'upd', { name: 'Renamed', updatedAt: '2026-02-01T00:00:00.000Z' });
      assert.equal(renamed?.name, 'Renamed');
      assert.deepEqual(renamed?.mapping, group.mapping);
      assert.deepEqual(renamed?.properties, group.properties);
      assert.equal(renamed?.updatedAt, '2026-02-01T00:00:00.000Z');
      assert.equal(renamed?.createdAt, group.createdAt);
      assert.deepEqual(renamed?.tokenHash, group.tokenHash);

      const remapped = await updateGroup(store, 'Customer', 'upd', {
        mapping: { x: 'y' },
        properties: null,
        updatedAt: group.updatedAt,
      });
      assert.deepEqual(remapped?.mapping, { x: 'y' });
      assert.equal(remapped?.properties, null);
      assert.equal(remapped?.name, 'Renamed');
    });

    it('updates nothing and returns null for an unknown group or the wrong environment', async () => {
      await insertGroup(store, newGroup('Customer', 'only-customer'));
      assert.equal(await updateGroup(store, 'Testing', 'only-customer', { name: 'x', updatedAt: LATER }), null);
      assert.equal(await updateGroup(store, 'Customer', 'missing', { name: 'x', updatedAt: LATER }), null);
      assert.equal((await store.userGroups.findUserGroup('Customer', 'only-customer'))?.name, 'Group only-customer');
    });

    it('replaces a token only while the expected one is current', async () => {
      const { group } = await insertGroup(store, newGroup('Customer', 'rot'));
      const next = { tokenHash: randomBytes(32), tokenCiphertext: randomBytes(60) };
      const rotated = await replaceToken(store, {
        teamId: group.teamId,
        environment: group.environment,
        providedId: group.providedId,
        expectedTokenHash: group.tokenHash,
        ...next,
        updatedAt: LATER,
      });
      assert.deepEqual(rotated?.tokenHash, next.tokenHash);
      assert.deepEqual(rotated?.tokenCiphertext, next.tokenCiphertext);
      assert.equal(rotated?.updatedAt, LATER);
      assert.equal(rotated?.name, group.name);
      assert.equal(
        await store.userGroups.findUserGroupByTokenHash('Customer', group.tokenHash),
        null,
        'old token no longer finds the group',
      );
      const stale = await replaceToken(store, {
        teamId: group.teamId,
        environment: group.environment,
        providedId: group.providedId,
        expectedTokenHash: group.tokenHash,
        tokenHash: randomBytes(32),
        tokenCiphertext: randomBytes(60),
        updatedAt: LATER,
      });
      assert.equal(stale, null, 'a superseded token cannot rotate again');
    });

    it('lets exactly one of many concurrent rotations with one token win', async () => {
      const { group } = await insertGroup(store, newGroup('Customer', 'rot-race'));
      const attempts = await Promise.all(
        Array.from({ length: 20 }, () =>
          replaceToken(store, {
            teamId: group.teamId,
            environment: group.environment,
            providedId: group.providedId,
            expectedTokenHash: group.tokenHash,
            tokenHash: randomBytes(32),
            tokenCiphertext: randomBytes(60),
            updatedAt: LATER,
          }),
        ),
      );
      const winners = attempts.filter((a) => a !== null);
      assert.equal(winners.length, 1);
      assert.deepEqual((await store.userGroups.findUserGroup('Customer', 'rot-race'))?.tokenHash, winners[0]?.tokenHash);
    });

    it('creates, finds, lists, revokes and records use of API keys', async () => {
      const key = newKey({ name: null, environment: 'Testing', access: 'read-only' });
      await insertKey(store, key);
      assert.deepEqual(await store.apiKeys.findApiKeyByHash(key.keyHash), key);
      assert.equal(await store.apiKeys.findApiKeyByHash(randomBytes(32)), null);
      assert.ok((await store.apiKeys.listApiKeys()).some((k) => k.id === key.id));

      await store.apiKeys.recordApiKeyUse(key.id, '2026-03-01T00:00:00.000Z');
      assert.equal((await store.apiKeys.findApiKeyByHash(key.keyHash))?.lastUsedAt, '2026-03-01T00:00:00.000Z');

      assert.equal(await revokeKey(store, key.id, '2026-03-02T00:00:00.000Z'), true);
      assert.equal(await revokeKey(store, key.id, '2026-03-03T00:00:00.000Z'), false, 'a second revocation changes nothing');
      assert.equal(
        (await store.apiKeys.findApiKeyByHash(key.keyHash))?.revokedAt,
        '2026-03-02T00:00:00.000Z',
        'first revocation time is kept',
      );
      assert.equal(await revokeKey(store, 'key_missing', LATER), false);
    });

    it('lists keys oldest first', async () => {
      const a = newKey({ createdAt: '2020-01-01T00:00:00.000Z' });
      const b = newKey({ createdAt: '2020-01-02T00:00:00.000Z' });
      await insertKey(store, b);
      await insertKey(store, a);
      const ids = (await store.apiKeys.listApiKeys()).map((k) => k.id);
      assert.ok(ids.indexOf(a.id) < ids.indexOf(b.id));
    });

    it('refuses a second key with the same hash', async () => {
      const key = newKey();
      await insertKey(store, key);
      await assert.rejects(insertKey(store, { ...key, id: 'key_other' }));
    });

    it('pages through groups in team_id order', async () => {
      const all: number[] = [];
      for (let after = 0; ;) {
        const page = await store.transfer.listUserGroupsAfter(after, 7);
        all.push(...page.map((g) => g.teamId));
        if (page.length < 7) break;
        after = page.at(-1)!.teamId;
      }
      assert.ok(all.length > 7);
      assert.deepEqual(
        all,
        [...all].sort((a, b) => a - b),
      );
      assert.equal(new Set(all).size, all.length);
    });

    it('answers the same pages of groups and keys to every port that reads them (export, secret rotation, keys)', async () => {
      const groups = await store.transfer.listUserGroupsAfter(0, 1000);
      assert.ok(groups.length > 0);
      assert.deepEqual(await store.tokenReseal.listUserGroupsAfter(0, 1000), groups);
      const keys = await store.apiKeys.listApiKeys();
      assert.ok(keys.length > 0);
      assert.deepEqual(await store.transfer.listApiKeys(), keys);
    });

    it('lists an environment newest first, in pages, filtered by a case-sensitive prefix of id or name', async () => {
      for (const id of ['pre-a', 'pre-b', 'PRE-c', 'other'])
        await insertGroup(store, newGroup('Testing', id, { name: id === 'other' ? 'pre-named' : `N ${id}` }));
      const all = await store.userGroups.listUserGroups('Testing', { beforeTeamId: Number.MAX_SAFE_INTEGER, limit: 1000 });
      assert.ok(all.every((g) => g.environment === 'Testing'));
      const ids = all.map((g) => g.teamId);
      assert.deepEqual(
        ids,
        [...ids].sort((a, b) => b - a),
      );
      const page = await store.userGroups.listUserGroups('Testing', { beforeTeamId: ids[1]!, limit: 2 });
      assert.deepEqual(
        page.map((g) => g.teamId),
        ids.slice(2, 4),
      );
      const filtered = await store.userGroups.listUserGroups('Testing', {
        beforeTeamId: Number.MAX_SAFE_INTEGER,
        limit: 100,
        prefix: 'pre',
      });
      assert.deepEqual(filtered.map((g) => g.providedId).sort(), ['other', 'pre-a', 'pre-b']);
      assert.deepEqual(
        await store.userGroups.listUserGroups('Testing', { beforeTeamId: Number.MAX_SAFE_INTEGER, limit: 100, prefix: '%' }),
        [],
      );
    });

    it('counts groups per environment', async () => {
      const before = await store.userGroups.countUserGroups();
      await insertGroup(store, newGroup('Testing', 'counted'));
      const after = await store.userGroups.countUserGroups();
      assert.equal(after.Testing, before.Testing + 1);
      assert.equal(after.Customer, before.Customer);
    });

    it('deletes a group of one environment only, and never reuses its team_id', async () => {
      const { group } = await insertGroup(store, newGroup('Customer', 'del'));
      await insertGroup(store, newGroup('Testing', 'del'));
      assert.equal(await deleteGroup(store, 'Testing', 'missing', LATER), null);
      const deleted = await deleteGroup(store, 'Customer', 'del', LATER);
      assert.equal(deleted?.teamId, group.teamId);
      assert.equal(await store.userGroups.findUserGroup('Customer', 'del'), null);
      assert.equal(await store.userGroups.findUserGroupByTokenHash('Customer', group.tokenHash), null);
      assert.ok(await store.userGroups.findUserGroup('Testing', 'del'), 'the other environment keeps its group');
      const { group: again } = await insertGroup(store, newGroup('Customer', 'del'));
      assert.ok(again.teamId > group.teamId);
    });

    it('keeps unicode, long strings and JSON edge values intact', async () => {
      const providedId = 'ünïcødé-😀-'.padEnd(200, 'x');
      const properties = { emoji: '😀', quote: '"\\', big: 9007199254740991, neg: -1.5, deep: { a: [[[{ b: null }]]] }, nul: 'a\u0000b' };
      const { group } = await insertGroup(store, newGroup('Customer', providedId, { properties }));
      assert.deepEqual((await store.userGroups.findUserGroup('Customer', providedId))?.properties, properties);
      assert.equal(group.providedId, providedId);
    });
  });

  describe(`Store audit log: ${fixture.name}`, () => {
    let audited: Store;
    before(async () => {
      audited = await fixture.open();
    });
    after(() => audited.close());
    const by = (keyId: string, fields: string[], clientAddress?: string) => ({ keyId, fields, clientAddress });

    it('appends exactly one record per change, with who, what and which fields, never a value', async () => {
      const g = newGroup('Customer', 'aud-1');
      const { group } = await insertGroup(audited, g, by('key_a', ['name', 'mapping'], '203.0.113.5'));
      await updateGroup(audited, 'Customer', 'aud-1', { name: 'N', updatedAt: LATER }, by('key_b', ['name'], '2001:db8::7'));
      await replaceToken(
        audited,
        {
          teamId: group.teamId,
          environment: group.environment,
          providedId: group.providedId,
          expectedTokenHash: g.tokenHash,
          tokenHash: randomBytes(32),
          tokenCiphertext: randomBytes(60),
          updatedAt: LATER,
        },
        by('key_c', ['token'], '198.51.100.1'),
      );
      const key = newKey({ environment: 'Testing' });
      await insertKey(audited, key, by(key.id, ['environment', 'access']));
      await revokeKey(audited, key.id, LATER, by(key.id, ['revoked_at']));

      const records = await audited.audit.listAuditRecords({ limit: 100 });
      assert.deepEqual(
        records.map(({ id, ...rest }) => (assert.ok(id > 0), rest)),
        [
          {
            at: g.createdAt,
            action: 'user_group.created',
            environment: 'Customer',
            teamId: group.teamId,
            providedId: 'aud-1',
            keyId: 'key_a',
            fields: ['name', 'mapping'],
            clientAddress: '203.0.113.5',
          },
          {
            at: LATER,
            action: 'user_group.updated',
            environment: 'Customer',
            teamId: group.teamId,
            providedId: 'aud-1',
            keyId: 'key_b',
            fields: ['name'],
            clientAddress: '2001:db8::7',
          },
          {
            at: LATER,
            action: 'user_group.token_rotated',
            environment: 'Customer',
            teamId: group.teamId,
            providedId: 'aud-1',
            keyId: 'key_c',
            fields: ['token'],
            clientAddress: '198.51.100.1',
          },
          {
            at: key.createdAt,
            action: 'api_key.created',
            environment: 'Testing',
            teamId: null,
            providedId: null,
            keyId: key.id,
            fields: ['environment', 'access'],
            clientAddress: null,
          },
          {
            at: LATER,
            action: 'api_key.revoked',
            environment: 'Testing',
            teamId: null,
            providedId: null,
            keyId: key.id,
            fields: ['revoked_at'],
            clientAddress: null,
          },
        ],
      );
      const ids = records.map((r) => r.id);
      assert.deepEqual(
        ids,
        [...ids].sort((a, b) => a - b),
      );
    });

    it('gives creates made together each its own row and audit record, team_ids in call order, the first of one id winning', async () => {
      const inputs = Array.from({ length: 20 }, (_, i) => newGroup(i % 2 ? 'Testing' : 'Customer', `together-aud-${i}`));
      const twin = newGroup('Customer', 'together-aud-0');
      const results = await Promise.all([
        ...inputs.map((g, i) => insertGroup(audited, g, by(`key_${i}`, ['name'], `10.0.0.${i}`))),
        insertGroup(audited, twin, by('key_twin', ['name'])),
      ]);
      assert.deepEqual(
        results.map((r) => r.created),
        [...inputs.map(() => true), false],
      );
      results.slice(0, -1).forEach((r, i) => assert.deepEqual(r.group.tokenHash, inputs[i]!.tokenHash));
      assert.deepEqual(results.at(-1)!.group, results[0]!.group, 'the later call of one id gets the stored row');
      const teamIds = results.slice(0, -1).map((r) => r.group.teamId);
      assert.deepEqual(
        teamIds,
        [...teamIds].sort((a, b) => a - b),
      );
      const records = (await audited.audit.listAuditRecords({ limit: 1000 })).filter((r) => r.providedId?.startsWith('together-aud-'));
      assert.deepEqual(
        records.map((r) => [r.action, r.teamId, r.keyId, r.clientAddress]),
        teamIds.map((teamId, i) => ['user_group.created', teamId, `key_${i}`, `10.0.0.${i}`]),
      );
    });

    it("applies updates and rotations made together in call order: one group's updates one after another, one token rotated once", async () => {
      const inputs = Array.from({ length: 6 }, (_, i) => newGroup('Customer', `together-chg-${i}`));
      const groups = (await Promise.all(inputs.map((g) => insertGroup(audited, g)))).map((r) => r.group);
      const rotation = (i: number, expectedTokenHash = inputs[i]!.tokenHash) =>
        replaceToken(
          audited,
          {
            teamId: groups[i]!.teamId,
            environment: groups[i]!.environment,
            providedId: groups[i]!.providedId,
            expectedTokenHash,
            tokenHash: randomBytes(32),
            tokenCiphertext: randomBytes(60),
            updatedAt: LATER,
          },
          by(`key_r${i}`, ['token'], `192.0.2.${i}`),
        );
      const [updates, rotations] = await Promise.all([
        Promise.all([
          ...groups.map((_, i) =>
            updateGroup(audited, 'Customer', `together-chg-${i}`, { name: `First ${i}`, updatedAt: LATER }, by(`key_u${i}`, ['name'])),
          ),
          updateGroup(
            audited,
            'Customer',
            'together-chg-0',
            { properties: { second: true }, updatedAt: LATER },
            by('key_u0b', ['properties'], '2001:db8::b'),
          ),
          updateGroup(audited, 'Customer', 'together-chg-0', { name: 'Third', updatedAt: LATER }, by('key_u0c', ['name'])),
          updateGroup(audited, 'Customer', 'together-chg-missing', { name: 'x', updatedAt: LATER }, by('key_none', ['name'])),
        ]),
        Promise.all([rotation(3), rotation(3), rotation(4), rotation(4), rotation(5), rotation(2, randomBytes(32))]),
      ]);
      assert.deepEqual(
        updates.slice(1, 6).map((g) => g?.name),
        ['First 1', 'First 2', 'First 3', 'First 4', 'First 5'],
      );
      assert.deepEqual(
        [updates[0]?.name, updates[0]?.properties],
        ['First 0', inputs[0]!.properties],
        'the first update of group 0 saw only itself',
      );
      assert.deepEqual([updates[6]?.name, updates[6]?.properties], ['First 0', { second: true }], 'the second saw the first');
      assert.deepEqual([updates[7]?.name, updates[7]?.properties], ['Third', { second: true }], 'the third saw both');
      assert.equal(updates[8], null, 'an unknown group');
      const stored = await audited.userGroups.findUserGroup('Customer', 'together-chg-0');
      assert.deepEqual([stored?.name, stored?.properties], ['Third', { second: true }]);

      assert.equal(rotations.filter((r) => r !== null).length, 3, 'one winner for each of groups 3, 4 and 5; none for a stale token');
      assert.equal([rotations[0], rotations[1]].filter((r) => r !== null).length, 1);
      assert.equal([rotations[2], rotations[3]].filter((r) => r !== null).length, 1);
      assert.notEqual(rotations[4], null);
      assert.equal(rotations[5], null);
      for (const [i, winner] of [
        [3, rotations[0] ?? rotations[1]],
        [4, rotations[2] ?? rotations[3]],
      ] as const) {
        assert.deepEqual((await audited.userGroups.findUserGroup('Customer', `together-chg-${i}`))?.tokenHash, winner?.tokenHash);
      }

      const records = (await audited.audit.listAuditRecords({ limit: 1000 })).filter(
        (r) => r.providedId?.startsWith('together-chg-') && r.action !== 'user_group.created',
      );
      const updatesOfZero = records.filter((r) => r.action === 'user_group.updated' && r.teamId === groups[0]!.teamId);
      assert.deepEqual(
        updatesOfZero.map((r) => r.keyId),
        ['key_u0', 'key_u0b', 'key_u0c'],
        'in the order they applied',
      );
      assert.deepEqual(
        updatesOfZero.map((r) => r.clientAddress),
        [null, '2001:db8::b', null],
        'each with its own client address',
      );
      for (const r of records.filter((r) => r.action === 'user_group.token_rotated')) {
        assert.equal(r.clientAddress, `192.0.2.${groups.findIndex((g) => g.teamId === r.teamId)}`);
      }
      assert.equal(records.filter((r) => r.action === 'user_group.updated').length, 8);
      assert.deepEqual(
        records
          .filter((r) => r.action === 'user_group.token_rotated')
          .map((r) => r.teamId)
          .sort((a, b) => a! - b!),
        [groups[3]!.teamId, groups[4]!.teamId, groups[5]!.teamId],
      );
    });

    it('appends nothing for writes that change nothing', async () => {
      const before = (await audited.audit.listAuditRecords({ limit: 1000 })).length;
      const g = newGroup('Customer', 'aud-noop');
      const { group } = await insertGroup(audited, g);
      const afterCreate = (await audited.audit.listAuditRecords({ limit: 1000 })).length;
      assert.equal(afterCreate, before + 1);
      await insertGroup(audited, newGroup('Customer', 'aud-noop')); // lost race: exists
      await updateGroup(audited, 'Customer', 'aud-missing', { name: 'x', updatedAt: LATER }); // unknown group
      await replaceToken(audited, {
        teamId: group.teamId,
        environment: group.environment,
        providedId: group.providedId,
        expectedTokenHash: randomBytes(32),
        tokenHash: randomBytes(32),
        tokenCiphertext: randomBytes(60),
        updatedAt: LATER,
      }); // stale token
      const key = newKey();
      await insertKey(audited, key);
      await revokeKey(audited, key.id, LATER);
      const afterKey = (await audited.audit.listAuditRecords({ limit: 1000 })).length;
      assert.equal(await revokeKey(audited, key.id, LATER), false, 'a second revocation changes nothing');
      assert.equal(await revokeKey(audited, 'key_missing', LATER), false);
      assert.equal(
        (await audited.audit.listAuditRecords({ limit: 1000 })).length,
        afterKey,
        'second revocation and unknown key append nothing',
      );
      assert.equal(afterKey, afterCreate + 2);
    });

    it('filters by team_id, by user_group_id and by time, and pages for export', async () => {
      const { group } = await insertGroup(audited, {
        ...newGroup('Testing', 'aud-filter'),
        createdAt: '2030-01-01T00:00:00.000Z',
      });
      await updateGroup(audited, 'Testing', 'aud-filter', { name: 'x', updatedAt: '2030-01-02T00:00:00.000Z' });
      assert.deepEqual(
        (await audited.audit.listAuditRecords({ group: { teamId: group.teamId }, limit: 10 })).map((r) => r.action),
        ['user_group.created', 'user_group.updated'],
      );
      assert.equal((await audited.audit.listAuditRecords({ group: { providedId: 'aud-filter' }, limit: 10 })).length, 2);
      assert.deepEqual(
        (await audited.audit.listAuditRecords({ since: '2030-01-02T00:00:00.000Z', limit: 10 })).map((r) => r.action),
        ['user_group.updated'],
      );
      assert.equal((await audited.audit.listAuditRecords({ limit: 1 })).length, 1);
      const all = await audited.audit.listAuditRecords({ limit: 1000 });
      const paged = [
        ...(await audited.transfer.listAuditRecordsAfter(0, 3)),
        ...(await audited.transfer.listAuditRecordsAfter(all[2]!.id, 1000)),
      ];
      assert.deepEqual(paged, all);
    });

    it('pages newest first: each page the records older than the last id of the one before', async () => {
      for (const name of ['page-a', 'page-b', 'page-c', 'page-d', 'page-e']) await insertGroup(audited, newGroup('Customer', name));
      const newest = await audited.audit.listAuditRecords({ group: { providedId: 'page-e' }, limit: 1 });
      const all = await audited.audit.listAuditRecords({ newestFirst: true, limit: 1000 });
      assert.equal(all[0]?.id, newest[0]?.id, 'newest first');
      const pages: number[][] = [];
      for (let beforeId: number | undefined; ;) {
        const page = await audited.audit.listAuditRecords({ newestFirst: true, limit: 2, ...(beforeId !== undefined && { beforeId }) });
        if (page.length === 0) break;
        pages.push(page.map((r) => r.id));
        beforeId = page.at(-1)!.id;
      }
      assert.deepEqual(
        pages.flat(),
        all.map((r) => r.id),
      );
      assert.ok(pages.every((page) => page.length <= 2));
      const filtered = await audited.audit.listAuditRecords({
        newestFirst: true,
        limit: 10,
        beforeId: all[1]!.id,
        group: { providedId: 'page-e' },
      });
      assert.deepEqual(filtered, [], 'the cursor combines with the filters');
    });
  });

  describe(`Store import: ${fixture.name}`, () => {
    let empty: Store;
    before(async () => {
      empty = await fixture.open();
    });
    after(() => empty.close());

    it('imports records as they are, keeps team_ids, and numbers new groups above them', async () => {
      assert.equal(await empty.transfer.isEmpty(), true);
      const customer = { emails: ['ops@imp.example'], isDemoGroup: true, hierarchyLevel: 'Customer', groupTags: ['vip', 'eu'] };
      const groups = [newGroup('Customer', 'imp-a'), { ...newGroup('Testing', 'imp-b'), ...customer }].map((g, i) => ({
        ...g,
        teamId: [5, 42][i]!,
      }));
      // Oldest first, as they list: 'vip' before 'eu' by creation time, not by name.
      const groupTags = ['vip', 'eu'].map((name, i) => ({
        environment: 'Testing' as const,
        name,
        createdAt: `2026-01-0${i + 1}T03:04:05.678Z`,
      }));
      const key = newKey({ lastUsedAt: '2026-01-02T03:04:05.678Z', revokedAt: '2026-01-03T00:00:00.000Z' });
      const dataSources = [null, randomBytes(40)].map((passwordCiphertext, i) => ({
        environment: 'Testing' as const,
        id: `imp-source-${i}`,
        name: 'Imported',
        kind: 'postgresql' as const,
        connection: { host: 'db.internal', port: 6432, database: 'd', user: 'u', ssl: { mode: 'verify-ca' as const, ca: 'PEM' } },
        passwordCiphertext,
        version: 7,
        createdAt: '2026-01-02T03:04:05.678Z',
        updatedAt: '2026-01-03T00:00:00.000Z',
      }));
      const metabaseSettings = [
        {
          environment: 'Testing' as const,
          siteUrl: 'https://metabase.example.com',
          secretCiphertext: randomBytes(60),
          maxExpiresIn: 900,
          createdAt: '2026-01-02T03:04:05.678Z',
          updatedAt: '2026-01-03T00:00:00.000Z',
        },
      ];
      await empty.transfer.importAll([{ groupTags, userGroups: groups, apiKeys: [key], dataSources, metabaseSettings, auditRecords: [] }], {
        imported_setting: 'one',
      });
      assert.equal(await empty.settings.getSetting('imported_setting'), 'one');
      assert.equal(await empty.transfer.isEmpty(), false);
      assert.deepEqual(await empty.userGroups.findUserGroup('Customer', 'imp-a'), groups[0], 'no Customer API field where none was set');
      assert.deepEqual(await empty.userGroups.findUserGroup('Testing', 'imp-b'), groups[1], 'every Customer API field kept');
      assert.deepEqual(await empty.transfer.listGroupTags('Testing'), groupTags, 'tags and their creation times kept');
      assert.deepEqual(await empty.apiKeys.findApiKeyByHash(key.keyHash), key);
      assert.deepEqual(await empty.transfer.listDataSources('Testing', null, 10), dataSources, 'version and times kept');
      assert.deepEqual(await empty.transfer.findMetabaseSettings('Testing'), metabaseSettings[0], 'sealed key and times kept');
      assert.equal(await empty.transfer.findMetabaseSettings('Customer'), null);
      const { group: next } = await insertGroup(empty, newGroup('Customer', 'after-import'));
      assert.ok(next.teamId > 42, `new team_id ${next.teamId} is above the imported ones`);
    });

    it('writes nothing, of any batch or setting, when one batch fails', async () => {
      const clash = { ...newGroup('Customer', 'imp-a'), teamId: 100 }; // same id as an imported group
      const fine = { ...newGroup('Customer', 'imp-fine'), teamId: 101 };
      const alsoFine = { ...newGroup('Customer', 'imp-fine-2'), teamId: 102 };
      async function* batches() {
        yield { groupTags: [], userGroups: [alsoFine], apiKeys: [], dataSources: [], metabaseSettings: [], auditRecords: [] };
        yield { groupTags: [], userGroups: [fine, clash], apiKeys: [], dataSources: [], metabaseSettings: [], auditRecords: [] };
      }
      await assert.rejects(empty.transfer.importAll(batches(), { failed_import_setting: 'x' }));
      assert.equal(await empty.userGroups.findUserGroup('Customer', 'imp-fine'), null);
      assert.equal(await empty.userGroups.findUserGroup('Customer', 'imp-fine-2'), null, 'the earlier batch is rolled back too');
      assert.equal(await empty.settings.getSetting('failed_import_setting'), null);
    });
  });

  embedStoreConformance(fixture);
  usageStoreConformance(fixture);
  hierarchyStoreConformance(fixture);
  eventStoreConformance(fixture);
  consoleSessionStoreConformance(fixture);
  webhookStoreConformance(fixture);
  dataSourceStoreConformance(fixture);
  metabaseStoreConformance(fixture);
  customerStoreConformance(fixture);
}
