import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DataTransfer } from '../../src/transfer/data-transfer.js';
import { createTokenCipher } from '../../src/secrets/token-cipher.js';
import { UserGroupService } from '../../src/user-groups/user-group-service.js';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { Store } from '../../src/store/store.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { collect, from } from '../helpers/transfer-lines.js';

const cipher = createTokenCipher('t'.repeat(32));
const writer = { keyId: 'k', environment: 'Customer', access: 'read-write' } as const;

/** Each group's provided id and its parent's, as the store reads them. */
async function tree(store: Store): Promise<[string, string | null][]> {
  return (await store.transfer.listUserGroupsAfter(0, 100))
    .map((g) => [g.providedId, g.parentTeamId ?? null] as const)
    .map(([id, parent]) => [id, parent === null ? null : String(parent)]);
}

describe('Export and import keep the group hierarchy', () => {
  const dir = makeTempDir('ugs-hierarchy-transfer');
  const stores: Store[] = [];
  const databases: TestDatabase[] = [];
  let lines: string[];
  let sourceTree: [string, string | null][];
  before(async () => {
    const { store: source } = await SqliteStore.open({ path: join(dir.path, 'source.sqlite') });
    stores.push(source);
    const groups = new UserGroupService({ store: source.userGroups, cipher });
    await groups.getOrCreate(writer, { userGroupId: 'old-child', name: 'Old child' });
    await groups.getOrCreate(writer, { userGroupId: 'grandchild', name: 'Grandchild', parentUserGroupId: 'old-child' });
    await groups.getOrCreate(writer, { userGroupId: 'new-parent', name: 'New parent' });
    // A move under a newer group: in team_id order the child would come before its parent.
    await groups.update(writer, { userGroupId: 'old-child', parentUserGroupId: 'new-parent' });
    lines = await collect(new DataTransfer(source.transfer, cipher).exportLines());
    sourceTree = await tree(source);
  });
  after(async () => {
    for (const s of stores) await s.close();
    for (const d of databases) await d.drop();
    dir.remove();
  });

  it('exports parents before their children, each child naming its parent', () => {
    const groups = lines.map((l) => JSON.parse(l)).filter((l) => l.type === 'user_group');
    assert.deepEqual(
      groups.map((g) => g.provided_id),
      ['new-parent', 'old-child', 'grandchild'],
    );
    assert.equal(groups[0].parent_team_id, undefined, 'a root line is what it was');
    assert.equal(groups[1].parent_team_id, groups[0].team_id);
    assert.equal(groups[2].parent_team_id, groups[1].team_id);
  });

  it('imports the hierarchy into SQLite and PostgreSQL', async () => {
    const { store: sqlite } = await SqliteStore.open({ path: join(dir.path, 'target.sqlite') });
    stores.push(sqlite);
    const database = await createTestDatabase({ migrated: true });
    databases.push(database);
    const { store: postgres } = await PostgresStore.open({
      connectionString: database.url,
      poolSize: 2,
      statementTimeoutMs: 5000,
      connectTimeoutMs: 2000,
    });
    stores.push(postgres);
    for (const target of [sqlite, postgres]) {
      await new DataTransfer(target.transfer, cipher).import(from(lines));
      assert.deepEqual(await tree(target), sourceTree);
      const lineage = await target.userGroups.findUserGroupLineage('Customer', 'grandchild');
      assert.deepEqual(
        lineage?.ancestors.map((g) => g.providedId),
        ['new-parent', 'old-child'],
      );
    }
  });

  it('refuses a child before its parent, or a parent of another environment, naming the line', async () => {
    const groupLines = lines.filter((l) => JSON.parse(l).type === 'user_group');
    const swapped = lines.map((l) => (l === groupLines[0] ? groupLines[1]! : l === groupLines[1] ? groupLines[0]! : l));
    const { store: target } = await SqliteStore.open({ path: join(dir.path, 'refused.sqlite') });
    stores.push(target);
    await assert.rejects(
      new DataTransfer(target.transfer, cipher).import(from(swapped)),
      /Line 2 of the export: user group "old-child" names parent team_id/,
    );
    assert.equal(await target.transfer.isEmpty(), true);
  });
});
