import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Environment } from '../../src/kernel/environment.js';
import type { DataSourceRecord } from '../../src/data-sources/data-source.js';
import {
  dataSourceChecked,
  dataSourceCreated,
  dataSourceDeleted,
  dataSourceUpdated,
} from '../../src/data-sources/data-source-consequences.js';
import type { Store } from '../../src/store/store.js';
import type { StoreFixture } from './store-conformance.js';
import { newGroup } from '../helpers/new-group.js';
import { insertGroup, updateGroup } from '../helpers/group-writes.js';

const AT = '2026-06-01T00:00:00.000Z';
const LATER = '2026-06-01T01:00:00.000Z';
const by = { keyId: 'key_sources', fields: ['name'] };

function dataSource(environment: Environment, id: string, overrides: Partial<DataSourceRecord> = {}): DataSourceRecord {
  return {
    environment,
    id,
    name: `Source ${id}`,
    kind: 'postgresql',
    connection: { host: '10.0.0.5', port: 5432, database: id, user: 'reader', ssl: { mode: 'disable' } },
    passwordCiphertext: randomBytes(40),
    version: 1,
    createdAt: AT,
    updatedAt: AT,
    ...overrides,
  };
}

/** Data sources on every store: per environment, keyset pages, versions, the groups mapping to one, each change audited and evented. */
export function dataSourceStoreConformance(fixture: StoreFixture): void {
  describe(`Store data sources: ${fixture.name}`, () => {
    let store: Store;
    before(async () => {
      store = await fixture.open();
    });
    after(() => store.close());

    const insert = (record: DataSourceRecord, max = 1000) =>
      store.dataSources.insertDataSource(record, dataSourceCreated(record.environment, record.id, AT, by), max);

    it('adds one per (environment, id), lists them in byte order by keyset pages, and finds several at once', async () => {
      const ids = ['b-2', 'B-1', 'a', '213', 'é'];
      for (const id of ids) assert.ok(typeof (await insert(dataSource('Customer', id))) === 'object');
      assert.equal(await insert(dataSource('Customer', 'a')), 'exists');
      const testing = await insert(dataSource('Testing', 'a', { name: 'Testing a' }));
      assert.equal(typeof testing === 'object' && testing.name, 'Testing a', 'the same id in the other environment is another data source');
      const pages: string[][] = [];
      for (let after: string | null = null; ;) {
        const page = await store.dataSources.listDataSources('Customer', after, 2);
        pages.push(page.map((d) => d.id));
        if (page.length < 2) break;
        after = page.at(-1)!.id;
      }
      assert.deepEqual(
        pages.flat(),
        [...ids].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y))),
      );
      const found = await store.dataSources.findDataSources('Customer', ['213', 'missing', 'a']);
      assert.deepEqual(found.map((d) => d.id).sort(), ['213', 'a']);
      const a = await store.dataSources.findDataSource('Customer', 'a');
      assert.deepEqual(a?.connection, dataSource('Customer', 'a').connection);
      assert.equal(a?.version, 1);
      assert.ok(a?.passwordCiphertext instanceof Buffer);
    });

    it('refuses an environment past its cap', async () => {
      assert.ok(typeof (await insert(dataSource('Testing', 'cap-1'), 2)) === 'object', 'Testing holds "a" already');
      assert.equal(await insert(dataSource('Testing', 'cap-2'), 2), 'full');
      assert.equal(await store.dataSources.findDataSource('Testing', 'cap-2'), null);
    });

    it('updates only from the version read, counting one more, and appends the update only when it applies', async () => {
      await insert(dataSource('Customer', 'versioned'));
      const change = {
        name: 'Renamed',
        connection: { host: 'db.internal', port: 6432, database: 'x', user: 'y', ssl: { mode: 'verify-full' as const } },
        passwordCiphertext: null,
        updatedAt: LATER,
      };
      const consequences = dataSourceUpdated('Customer', 'versioned', LATER, { keyId: 'key_sources', fields: ['name'] });
      const updated = await store.dataSources.updateDataSource('Customer', 'versioned', 1, change, consequences);
      assert.equal(updated?.version, 2);
      assert.equal(updated?.name, 'Renamed');
      assert.equal(updated?.passwordCiphertext, null);
      assert.equal(updated?.updatedAt, LATER);
      const stale = await store.dataSources.updateDataSource('Customer', 'versioned', 1, change, consequences);
      assert.equal(stale, null, 'a change from a version read before another change is refused');
      const updates = (await store.audit.listAuditRecords({ limit: 1000 })).filter((r) => r.action === 'data_source.updated');
      assert.equal(updates.filter((r) => r.dataSourceId === 'versioned').length, 1);
    });

    it('counts and names the groups whose own mapping names a data source, its string or number form, and refuses to delete it unless forced', async () => {
      await insert(dataSource('Customer', '500'));
      await insertGroup(store, newGroup('maps-string', { mapping: { '40': '500', '41': 'other' } }));
      await insertGroup(store, newGroup('maps-number', { mapping: { '40': 500 } }));
      await insertGroup(store, newGroup('maps-twice', { mapping: { '40': '500', '42': 500 } }));
      await insertGroup(store, newGroup('maps-none', { mapping: { '40': '5000' } }));
      await insertGroup(store, newGroup('testing-maps', { environment: 'Testing', mapping: { '40': '500' } }));
      assert.deepEqual(await store.dataSources.groupsMappingTo('Customer', '500', 2), {
        providedIds: ['maps-number', 'maps-string'],
        total: 3,
      });
      const refused = await store.dataSources.deleteDataSource('Customer', '500', false, dataSourceDeleted('Customer', '500', LATER, by));
      assert.deepEqual(refused, { deleted: false, mappedGroups: 3 });
      assert.ok(await store.dataSources.findDataSource('Customer', '500'));
      await updateGroup(store, 'Customer', 'maps-twice', { mapping: { '40': 'elsewhere' }, updatedAt: LATER });
      assert.equal((await store.dataSources.groupsMappingTo('Customer', '500', 10)).total, 2);
      const forced = await store.dataSources.deleteDataSource('Customer', '500', true, dataSourceDeleted('Customer', '500', LATER, by));
      assert.deepEqual(forced, { deleted: true });
      assert.equal(await store.dataSources.findDataSource('Customer', '500'), null);
      assert.equal(
        await store.dataSources.deleteDataSource('Customer', '500', true, dataSourceDeleted('Customer', '500', LATER, by)),
        null,
      );
      const deletions = (await store.audit.listAuditRecords({ limit: 1000 })).filter((r) => r.action === 'data_source.deleted');
      assert.equal(deletions.length, 1, 'only the delete that happened is audited');
      const events = await store.events.listEvents('Customer', 0, 1000, '2000-01-01T00:00:00.000Z');
      const deleted = events.filter((e) => e.type === 'data_source.deleted');
      assert.deepEqual(
        deleted.map((e) => e.data),
        [{ api_environment_tag: 'Customer', data_source_id: '500' }],
      );
    });

    it('appends a check record with no event, and swaps a sealed password only from the ciphertext read', async () => {
      await store.dataSources.appendRecord(dataSourceChecked('Customer', 'a', LATER, { keyId: 'key_sources', fields: ['connected'] }));
      const checks = (await store.audit.listAuditRecords({ limit: 1000 })).filter((r) => r.action === 'data_source.checked');
      assert.equal(checks.length, 1);
      assert.equal(checks[0]?.dataSourceId, 'a');
      assert.deepEqual(checks[0]?.fields, ['connected']);
      const sealed = (await store.dataSources.listDataSourcePasswords()).find((p) => p.environment === 'Customer' && p.id === 'a');
      assert.ok(sealed);
      const next = randomBytes(40);
      assert.equal(await store.dataSources.replaceDataSourcePasswordCiphertext('Customer', 'a', randomBytes(40), next), false);
      assert.equal(await store.dataSources.replaceDataSourcePasswordCiphertext('Customer', 'a', sealed.passwordCiphertext, next), true);
      assert.deepEqual((await store.dataSources.findDataSource('Customer', 'a'))?.passwordCiphertext, next);
    });
  });
}
