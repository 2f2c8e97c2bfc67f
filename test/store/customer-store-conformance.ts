import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { groupCreated, groupRenamed, groupUpdated } from '../../src/user-groups/user-group-consequences.js';
import { groupTagCreated, groupTagDeleted, groupTagRenamed } from '../../src/group-tags/group-tag-consequences.js';
import { renameTaken } from '../../src/user-groups/user-group-hierarchy.js';
import type { Store } from '../../src/store/store.js';
import { newGroup } from '../helpers/new-group.js';
import type { StoreFixture } from './store-conformance.js';

const AT = '2026-06-01T00:00:00.000Z';
const LATER = '2026-06-01T01:00:00.000Z';
const by = { keyId: 'key_customers', fields: [] as string[] };

/**
 * What the Customer API keeps on every store: a group's emails, demo flag, level and tags (absent while unset,
 * written by the group writes themselves), renames, group tags (a rename or deletion rewrites every carrier in the
 * same transaction, with its consequences), and the numbered pages with a total the v2 list reads.
 */
export function customerStoreConformance(fixture: StoreFixture): void {
  describe(`Store Customer API fields and group tags: ${fixture.name}`, () => {
    let store: Store;
    before(async () => {
      store = await fixture.open();
    });
    after(() => store.close());
    const insert = async (providedId: string, fields: Parameters<typeof newGroup>[1] = {}) => {
      const group = newGroup(providedId, fields);
      return (await store.userGroups.insertUserGroupIfAbsent(group, groupCreated(group, by))).group;
    };
    const events = async () => store.events.listEvents('Customer', 0, 10_000, '2000-01-01T00:00:00.000Z');

    it('stores the fields with the group, and a group without them reads as before they existed', async () => {
      const plain = await insert('plain');
      for (const field of ['emails', 'isDemoGroup', 'hierarchyLevel', 'groupTags']) assert.equal(Object.hasOwn(plain, field), false, field);
      for (const name of ['a', 'b']) {
        await store.groupTags.insertGroupTag({ environment: 'Customer', name, createdAt: AT }, groupTagCreated('Customer', name, AT, by));
      }
      const full = await insert('full', {
        emails: ['a@example.com'],
        isDemoGroup: true,
        hierarchyLevel: 'Customer',
        groupTags: ['b', 'a'],
      });
      assert.deepEqual(
        [full.emails, full.isDemoGroup, full.hierarchyLevel, full.groupTags],
        [['a@example.com'], true, 'Customer', ['b', 'a']],
      );
      const read = await store.userGroups.findUserGroup('Customer', 'full');
      assert.deepEqual(read, full);
      // Without tags a create inserts without reading first: its answer is still the row as a read returns it.
      const untagged = await insert('untagged', { emails: ['b@example.com'], isDemoGroup: true, hierarchyLevel: 'Customer' });
      assert.deepEqual(await store.userGroups.findUserGroup('Customer', 'untagged'), untagged);
      const changes = { emails: null, isDemoGroup: false, groupTags: ['a'], updatedAt: LATER };
      const updated = await store.userGroups.updateUserGroup('Customer', 'full', changes, groupUpdated('Customer', 'full', changes, by));
      assert.equal(Object.hasOwn(updated!, 'emails'), false, 'null clears');
      assert.equal(Object.hasOwn(updated!, 'isDemoGroup'), false);
      assert.equal(updated!.hierarchyLevel, 'Customer', 'what is not changed stays');
      assert.deepEqual(updated!.groupTags, ['a']);
    });

    it('renames a group only while its token is the one read, refuses a taken id, and ends its sessions', async () => {
      const group = await insert('before-rename', { hierarchyLevel: 'Customer' });
      await insert('other');
      const changes = { updatedAt: LATER };
      const rename = (providedId: string, expectedTokenHash: Buffer) => ({
        ...changes,
        rename: { providedId, tokenCiphertext: randomBytes(60), expectedTokenHash },
      });
      const consequences = (to: string) => groupRenamed(group, to, changes, by);
      await assert.rejects(
        store.userGroups.updateUserGroup('Customer', 'before-rename', rename('other', group.tokenHash), consequences('other')),
        (error: Error) => error.message === renameTaken('Customer', 'other').message,
      );
      assert.equal(
        await store.userGroups.updateUserGroup(
          'Customer',
          'before-rename',
          rename('after-rename', randomBytes(32)),
          consequences('after-rename'),
        ),
        null,
        'a token rotated since it was read: nothing written',
      );
      const renamed = await store.userGroups.updateUserGroup(
        'Customer',
        'before-rename',
        rename('after-rename', group.tokenHash),
        consequences('after-rename'),
      );
      assert.equal(renamed!.providedId, 'after-rename');
      assert.equal(renamed!.teamId, group.teamId);
      assert.equal(renamed!.hierarchyLevel, 'Customer');
      assert.equal(await store.userGroups.findUserGroup('Customer', 'before-rename'), null);
      const revocations = await store.embedSessions.listEmbedRevocations('Customer', 0, 100, AT);
      assert.deepEqual(
        revocations.filter((r) => r.reason === 'user_group_renamed').map((r) => r.providedId),
        ['before-rename'],
      );
      const renameEvents = (await events()).filter((e) => e.data.previous_user_group_id !== undefined);
      assert.deepEqual(
        renameEvents.map((e) => [e.type, e.data.user_group_id, e.data.previous_user_group_id, e.data.team_id]),
        [['user_group.updated', 'after-rename', 'before-rename', group.teamId]],
      );
    });

    it('creates tags once per environment, renames and deletes them on every carrier in one write', async () => {
      const tag = (name: string) => ({ environment: 'Customer' as const, name, createdAt: AT });
      assert.equal(await store.groupTags.insertGroupTag(tag('sales'), groupTagCreated('Customer', 'sales', AT, by)), true);
      assert.equal(await store.groupTags.insertGroupTag(tag('sales'), groupTagCreated('Customer', 'sales', AT, by)), false);
      assert.equal(await store.groupTags.insertGroupTag(tag('ops'), groupTagCreated('Customer', 'ops', AT, by)), true);
      assert.equal(
        await store.groupTags.insertGroupTag({ ...tag('sales'), environment: 'Testing' }, groupTagCreated('Testing', 'sales', AT, by)),
        true,
      );
      await insert('carrier-1', { groupTags: ['ops', 'sales'] });
      await insert('carrier-2', { groupTags: ['sales'] });
      await insert('bystander', { groupTags: ['ops'] });
      await insert('carrier-t', { environment: 'Testing', groupTags: ['sales'] });
      const carriers = async (environment: 'Customer' | 'Testing', ...names: string[]) => {
        const counts = await store.groupTags.countTagCarriers(environment);
        return names.map((name) => counts.get(name));
      };
      assert.deepEqual(await carriers('Customer', 'sales', 'ops'), [2, 2], 'each group counted once per tag it carries');
      assert.deepEqual(await carriers('Testing', 'sales', 'ops'), [1, undefined], 'per environment; a tag none carries is absent');

      const renamed = groupTagRenamed('Customer', 'sales', 'revenue', LATER, by);
      assert.equal(await store.groupTags.renameGroupTag('Customer', { name: 'sales', newName: 'ops', at: LATER }, renamed), 'taken');
      assert.equal(await store.groupTags.renameGroupTag('Customer', { name: 'nope', newName: 'x', at: LATER }, renamed), 'missing');
      assert.equal(await store.groupTags.renameGroupTag('Customer', { name: 'sales', newName: 'revenue', at: LATER }, renamed), 'renamed');
      assert.deepEqual(
        (await store.groupTags.listGroupTags('Customer')).map((t) => [t.name, t.createdAt]),
        [
          ['a', AT],
          ['b', AT],
          ['revenue', AT],
          ['ops', AT],
        ],
        'the creation time and the place in the list kept',
      );
      assert.deepEqual((await store.userGroups.findUserGroup('Customer', 'carrier-1'))!.groupTags, ['ops', 'revenue'], 'order kept');
      assert.deepEqual((await store.userGroups.findUserGroup('Customer', 'carrier-2'))!.groupTags, ['revenue']);
      assert.equal((await store.userGroups.findUserGroup('Customer', 'carrier-2'))!.updatedAt, LATER);
      assert.deepEqual(
        (await store.userGroups.findUserGroup('Testing', 'carrier-t'))!.groupTags,
        ['sales'],
        'the other environment untouched',
      );
      assert.equal((await store.userGroups.findUserGroup('Customer', 'bystander'))!.updatedAt, '2026-01-01T00:00:00.000Z');

      const deleted = groupTagDeleted('Customer', 'ops', LATER, by);
      assert.equal(await store.groupTags.deleteGroupTag('Customer', { name: 'nope', at: LATER }, deleted), false);
      assert.equal(await store.groupTags.deleteGroupTag('Customer', { name: 'ops', at: LATER }, deleted), true);
      assert.deepEqual((await store.userGroups.findUserGroup('Customer', 'carrier-1'))!.groupTags, ['revenue']);
      assert.deepEqual((await store.userGroups.findUserGroup('Customer', 'bystander'))!.groupTags, [], 'an emptied list stays a list');
      assert.deepEqual(await carriers('Customer', 'revenue', 'ops', 'sales'), [2, undefined, undefined], 'as renamed and deleted');

      const tagEvents = (await events()).filter((e) => e.type.startsWith('group_tag.') || e.data.changed?.includes('group_tags'));
      assert.deepEqual(
        tagEvents.map((e) => [e.type, e.data.group_tag ?? e.data.user_group_id, e.data.new_group_tag ?? null]),
        [
          ['group_tag.created', 'a', null],
          ['group_tag.created', 'b', null],
          ['group_tag.created', 'sales', null],
          ['group_tag.created', 'ops', null],
          ['group_tag.renamed', 'sales', 'revenue'],
          ['user_group.updated', 'carrier-1', null],
          ['user_group.updated', 'carrier-2', null],
          ['group_tag.deleted', 'ops', null],
          ['user_group.updated', 'carrier-1', null],
          ['user_group.updated', 'bystander', null],
        ],
      );
      const records = await store.audit.listAuditRecords({ limit: 1000 });
      const renameRecord = records.find((r) => r.action === 'group_tag.renamed');
      assert.deepEqual(renameRecord?.fields, ['group_tag=sales', 'new_name=revenue']);
      assert.equal(records.filter((r) => r.action === 'user_group.updated' && r.fields.includes('group_tags')).length, 4);
    });

    it('lists tags in the order they were made, even within one millisecond, a renamed one in its place', async () => {
      const made = ['order-z', 'order-a', 'order-m'];
      for (const name of made) {
        await store.groupTags.insertGroupTag({ environment: 'Testing', name, createdAt: AT }, groupTagCreated('Testing', name, AT, by));
      }
      const listed = async () => (await store.groupTags.listGroupTags('Testing')).map((t) => t.name).filter((n) => n.startsWith('order-'));
      assert.deepEqual(await listed(), made);
      const rename = { name: 'order-a', newName: 'order-b', at: LATER };
      assert.equal(
        await store.groupTags.renameGroupTag('Testing', rename, groupTagRenamed('Testing', 'order-a', 'order-b', LATER, by)),
        'renamed',
      );
      assert.deepEqual(await listed(), ['order-z', 'order-b', 'order-m']);
    });

    it('refuses, in the write itself, a group naming a tag its environment lacks', async () => {
      const ghost = newGroup('ghost-tagged', { groupTags: ['ghost'] });
      await assert.rejects(store.userGroups.insertUserGroupIfAbsent(ghost, groupCreated(ghost, by)), /"ghost"/);
      assert.equal(await store.userGroups.findUserGroup('Customer', 'ghost-tagged'), null);
      const underParent = newGroup('ghost-child', { groupTags: ['ghost'], parentId: 'plain' });
      await assert.rejects(store.userGroups.insertUserGroupIfAbsent(underParent, groupCreated(underParent, by)), /"ghost"/);
      await insert('tag-target');
      const changes = { groupTags: ['ghost'], updatedAt: LATER };
      await assert.rejects(
        store.userGroups.updateUserGroup('Customer', 'tag-target', changes, groupUpdated('Customer', 'tag-target', changes, by)),
        /"ghost"/,
      );
      assert.equal(Object.hasOwn((await store.userGroups.findUserGroup('Customer', 'tag-target'))!, 'groupTags'), false);
    });

    it('never leaves a group carrying a tag that a concurrent rename or deletion took away', async () => {
      for (let round = 0; round < 8; round++) {
        const name = `race-${round}`;
        await store.groupTags.insertGroupTag({ environment: 'Customer', name, createdAt: AT }, groupTagCreated('Customer', name, AT, by));
        const writes = Array.from({ length: 6 }, async (_, i) => {
          const group = newGroup(`race-${round}-${i}`, { groupTags: [name] });
          try {
            await store.userGroups.insertUserGroupIfAbsent(group, groupCreated(group, by));
          } catch (error) {
            assert.match((error as Error).message, new RegExp(`"${name}"`), 'refused only for the tag');
          }
        });
        const removal =
          round % 2 === 0
            ? store.groupTags.deleteGroupTag('Customer', { name, at: LATER }, groupTagDeleted('Customer', name, LATER, by))
            : store.groupTags.renameGroupTag(
                'Customer',
                { name, newName: `${name}-renamed`, at: LATER },
                groupTagRenamed('Customer', name, `${name}-renamed`, LATER, by),
              );
        await Promise.all([...writes, removal]);
        const existing = new Set((await store.groupTags.listGroupTags('Customer')).map((tag) => tag.name));
        for (let i = 0; i < 6; i++) {
          const group = await store.userGroups.findUserGroup('Customer', `race-${round}-${i}`);
          for (const tag of group?.groupTags ?? []) assert.ok(existing.has(tag), `round ${round}: race-${round}-${i} carries ${tag}`);
        }
      }
    });

    it('pages groups oldest first with the total the filters keep, and reads ancestors and child levels', async () => {
      const root = await insert('page-root', { environment: 'Testing', hierarchyLevel: 'Customer' });
      for (let i = 0; i < 4; i++)
        await insert(`page-child-${i}`, { environment: 'Testing', parentId: 'page-root', hierarchyLevel: 'User' });
      const all = await store.customers.listCustomers('Testing', {}, { offset: 0, limit: 100 });
      const ids = all.groups.map((g) => g.providedId);
      assert.equal(all.total, ids.length);
      assert.ok(ids.indexOf('page-root') < ids.indexOf('page-child-0'));
      const page = await store.customers.listCustomers('Testing', { parentId: 'page-root' }, { offset: 1, limit: 2 });
      assert.deepEqual(
        page.groups.map((g) => [g.providedId, g.parentId]),
        [
          ['page-child-1', 'page-root'],
          ['page-child-2', 'page-root'],
        ],
      );
      assert.equal(page.total, 4);
      assert.equal((await store.customers.listCustomers('Testing', { hierarchyLevel: 'Customer' }, { offset: 0, limit: 10 })).total, 1);
      assert.deepEqual(await store.customers.listCustomers('Testing', { parentId: 'nobody' }, { offset: 0, limit: 10 }), {
        groups: [],
        total: 0,
      });
      const found = await store.customers.findGroupsByTeamIds('Testing', [root.teamId, 999_999]);
      assert.deepEqual(
        found.map((g) => g.providedId),
        ['page-root'],
      );
      assert.deepEqual(await store.customers.findGroupsByTeamIds('Customer', [root.teamId]), [], 'another environment: none');
      assert.deepEqual(await store.customers.childLevels('Testing', root.teamId), ['User']);
    });
  });
}
