import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ServiceError } from '../../src/kernel/errors.js';
import type { NewUserGroup, Store } from '../../src/store/store.js';
import type { StoreFixture } from './store-conformance.js';
import { newGroup } from '../helpers/new-group.js';
import { deleteGroup, insertGroup, updateGroup } from '../helpers/group-writes.js';

const AT = '2026-02-01T00:00:00.000Z';

function group(providedId: string, overrides: Partial<NewUserGroup> = {}): NewUserGroup {
  return newGroup(providedId, { at: AT, ...overrides });
}

const refusedWith = (code: string) => (error: unknown) => error instanceof ServiceError && error.code === code;
const noAudit = { keyId: null, fields: [], clientAddress: null };

/** The group hierarchy on every store: placement checks in the write's transaction, lineage, subtrees, cascades. */
export function hierarchyStoreConformance(fixture: StoreFixture): void {
  describe(`Store hierarchy: ${fixture.name}`, () => {
    let store: Store;
    before(async () => {
      store = await fixture.open();
    });
    after(() => store.close());

    const create = async (id: string, parentId?: string, overrides: Partial<NewUserGroup> = {}) =>
      (await insertGroup(store, group(id, { parentId, ...overrides }))).group;
    const move = (id: string, parentId: string | null) => updateGroup(store, 'Customer', id, { parentId, updatedAt: AT }, noAudit);

    it('creates under a parent, shows the parent, and reads the lineage root first', async () => {
      const root = await create('h-root');
      assert.equal(root.parentId, undefined, 'a root reads as before');
      const mid = await create('h-mid', 'h-root');
      assert.deepEqual(await store.userGroups.findUserGroup('Customer', 'h-mid'), mid, 'a create answers the row a read returns');
      assert.equal(mid.parentId, 'h-root');
      assert.equal(mid.parentTeamId, root.teamId);
      await create('h-leaf', 'h-mid');
      assert.equal((await store.userGroups.findUserGroup('Customer', 'h-leaf'))?.parentId, 'h-mid');
      const lineage = await store.userGroups.findUserGroupLineage('Customer', 'h-leaf');
      assert.deepEqual(
        lineage?.ancestors.map((g) => g.providedId),
        ['h-root', 'h-mid'],
      );
      assert.equal(lineage?.group.providedId, 'h-leaf');
      assert.equal(await store.userGroups.findUserGroupLineage('Customer', 'h-none'), null);
    });

    it('refuses a missing parent, or one in another environment, with invalid_request', async () => {
      await assert.rejects(create('h-orphan', 'h-missing'), refusedWith('invalid_request'));
      await create('h-testing', undefined, { environment: 'Testing' });
      await assert.rejects(create('h-cross', 'h-testing'), refusedWith('invalid_request'));
      assert.equal(await store.userGroups.findUserGroup('Customer', 'h-orphan'), null);
      await create('h-mover');
      await assert.rejects(move('h-mover', 'h-missing'), refusedWith('invalid_request'));
    });

    it('refuses cycles and chains deeper than five levels with conflict', async () => {
      await create('c1');
      await create('c2', 'c1');
      await create('c3', 'c2');
      await assert.rejects(move('c1', 'c1'), refusedWith('conflict'));
      await assert.rejects(move('c1', 'c3'), refusedWith('conflict'));
      await create('c4', 'c3');
      await create('c5', 'c4');
      await assert.rejects(create('c6', 'c5'), refusedWith('conflict'));
      await create('d1');
      await create('d2', 'd1');
      await assert.rejects(move('d1', 'c4'), refusedWith('conflict'), 'a subtree of two under the fourth level makes six');
      assert.equal((await move('d1', 'c3'))?.parentId, 'c3');
      assert.equal((await store.userGroups.findUserGroup('Customer', 'c1'))?.parentId, undefined, 'a refused move changes nothing');
    });

    it('moves, detaches, keeps the parent when absent, and audits a move as user_group.moved', async () => {
      await create('m-a');
      await create('m-b');
      await create('m-child', 'm-a');
      assert.equal((await move('m-child', 'm-b'))?.parentId, 'm-b');
      const renamed = await updateGroup(store, 'Customer', 'm-child', { name: 'renamed', updatedAt: AT });
      assert.equal(renamed?.parentId, 'm-b');
      assert.equal((await move('m-child', null))?.parentId, undefined);
      const records = await store.audit.listAuditRecords({ group: { providedId: 'm-child' }, limit: 1000 });
      const moves = records.filter((r) => r.action === 'user_group.moved');
      assert.equal(moves.length, 2);
      assert.deepEqual(moves[0]!.fields, ['parent_user_group_id']);
    });

    it('lists children and pages through the whole subtree', async () => {
      await create('t-root');
      await create('t-a', 't-root');
      await create('t-b', 't-root');
      await create('t-a1', 't-a');
      await create('t-a1x', 't-a1');
      const children = await store.userGroups.listUserGroups('Customer', {
        beforeTeamId: Number.MAX_SAFE_INTEGER,
        limit: 10,
        parentId: 't-root',
      });
      assert.deepEqual(
        children.map((g) => g.providedId),
        ['t-b', 't-a'],
      );
      const first = await store.userGroups.listDescendants('Customer', 't-root', { beforeTeamId: Number.MAX_SAFE_INTEGER, limit: 2 });
      const rest = await store.userGroups.listDescendants('Customer', 't-root', { beforeTeamId: first.at(-1)!.teamId, limit: 10 });
      assert.deepEqual(
        [...first, ...rest].map((g) => g.providedId),
        ['t-a1x', 't-a1', 't-b', 't-a'],
      );
    });

    it('refuses to delete a group with children unless cascading, then deletes and audits the whole subtree', async () => {
      await create('x-root');
      await create('x-a', 'x-root');
      await create('x-a1', 'x-a');
      await assert.rejects(deleteGroup(store, 'Customer', 'x-root', AT), refusedWith('conflict'));
      assert.ok(await store.userGroups.findUserGroup('Customer', 'x-root'));
      const deleted = await deleteGroup(store, 'Customer', 'x-root', AT, noAudit, { cascade: true });
      assert.equal(deleted?.providedId, 'x-root');
      for (const id of ['x-root', 'x-a', 'x-a1']) assert.equal(await store.userGroups.findUserGroup('Customer', id), null);
      for (const id of ['x-root', 'x-a', 'x-a1']) {
        const records = await store.audit.listAuditRecords({ group: { providedId: id }, limit: 1000 });
        assert.equal(records.filter((r) => r.action === 'user_group.deleted').length, 1, `${id} is audited`);
      }
    });

    it('lets at most one of two concurrent moves that close a cycle succeed, across two stores on one database', async () => {
      const peer = await fixture.reopen();
      try {
        for (let round = 0; round < 10; round++) {
          const [a, b] = [`race-a-${round}`, `race-b-${round}`];
          await create(a);
          await create(b);
          const results = await Promise.allSettled([
            updateGroup(store, 'Customer', a, { parentId: b, updatedAt: AT }),
            updateGroup(peer, 'Customer', b, { parentId: a, updatedAt: AT }),
          ]);
          for (const r of results) if (r.status === 'rejected') assert.ok(refusedWith('conflict')(r.reason), String(r.reason));
          assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1, `round ${round}: exactly one move wins`);
          const lineage = await store.userGroups.findUserGroupLineage('Customer', a);
          assert.ok(lineage!.ancestors.length <= 1);
        }
      } finally {
        await peer.close();
      }
    });
  });
}
