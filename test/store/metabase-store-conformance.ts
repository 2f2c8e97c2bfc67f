import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Environment } from '../../src/kernel/environment.js';
import type { MetabaseSettingsRecord } from '../../src/metabase/metabase-settings.js';
import { metabaseConfigured, metabaseRemoved, metabaseTokenMinted } from '../../src/metabase/metabase-consequences.js';
import type { Store } from '../../src/store/store.js';
import type { StoreFixture } from './store-conformance.js';

const AT = '2026-06-01T00:00:00.000Z';
const LATER = '2026-06-01T01:00:00.000Z';
const by = { keyId: 'key_metabase', fields: ['site_url'] };

function settings(environment: Environment, overrides: Partial<MetabaseSettingsRecord> = {}): MetabaseSettingsRecord {
  return {
    environment,
    siteUrl: 'https://metabase.example.com',
    secretCiphertext: randomBytes(60),
    maxExpiresIn: 3600,
    createdAt: AT,
    updatedAt: AT,
    ...overrides,
  };
}

/** Metabase settings on every store: one row per environment, replaced in place, removed once; each change audited and evented. */
export function metabaseStoreConformance(fixture: StoreFixture): void {
  describe(`Store Metabase settings: ${fixture.name}`, () => {
    let store: Store;
    before(async () => {
      store = await fixture.open();
    });
    after(() => store.close());
    const audited = async (action: string) =>
      (await store.audit.listAuditRecords({ limit: 1000 })).filter((record) => record.action === action);

    it('keeps one row per environment, replaces it in place (created_at kept), and appends each write audited', async () => {
      assert.equal(await store.metabase.findMetabaseSettings('Customer'), null);
      const first = settings('Customer');
      assert.deepEqual(await store.metabase.putMetabaseSettings(first, metabaseConfigured('Customer', AT, by)), first);
      const testing = settings('Testing', { siteUrl: 'https://mb-testing.example.com' });
      await store.metabase.putMetabaseSettings(testing, metabaseConfigured('Testing', AT, by));
      const replaced = settings('Customer', { siteUrl: 'https://mb2.example.com', maxExpiresIn: 600, createdAt: LATER, updatedAt: LATER });
      const stored = await store.metabase.putMetabaseSettings(replaced, metabaseConfigured('Customer', LATER, by));
      assert.deepEqual(stored, { ...replaced, createdAt: AT });
      assert.deepEqual(await store.metabase.findMetabaseSettings('Customer'), { ...replaced, createdAt: AT });
      assert.deepEqual(await store.metabase.findMetabaseSettings('Testing'), testing);
      assert.equal((await audited('metabase.configured')).length, 3);
      const events = await store.events.listEvents('Customer', 0, 1000, '2000-01-01T00:00:00.000Z');
      assert.deepEqual(
        events.filter((e) => e.type.startsWith('metabase.')).map((e) => [e.type, e.data]),
        [
          ['metabase.configured', { api_environment_tag: 'Customer', changed: ['site_url'] }],
          ['metabase.configured', { api_environment_tag: 'Customer', changed: ['site_url'] }],
        ],
        "each write's event, in its transaction, in its own environment",
      );
    });

    it('swaps a sealed secret only from the one read, and removes once, audited only when it removed', async () => {
      const [customer] = (await store.metabase.listMetabaseSecrets()).filter((s) => s.environment === 'Customer');
      const next = randomBytes(60);
      assert.equal(await store.metabase.replaceMetabaseSecretCiphertext('Customer', randomBytes(60), next), false);
      assert.equal(await store.metabase.replaceMetabaseSecretCiphertext('Customer', customer!.secretCiphertext, next), true);
      assert.deepEqual((await store.metabase.findMetabaseSettings('Customer'))!.secretCiphertext, next);
      assert.equal(await store.metabase.deleteMetabaseSettings('Customer', metabaseRemoved('Customer', LATER, by)), true);
      assert.equal(await store.metabase.deleteMetabaseSettings('Customer', metabaseRemoved('Customer', LATER, by)), false);
      assert.equal((await audited('metabase.removed')).length, 1, 'the second removal appended nothing');
      const removed = (await store.events.listEvents('Customer', 0, 1000, '2000-01-01T00:00:00.000Z')).filter(
        (e) => e.type === 'metabase.removed',
      );
      assert.equal(removed.length, 1, 'one event, for the removal that removed');
      assert.equal(await store.metabase.findMetabaseSettings('Customer'), null);
      assert.ok(await store.metabase.findMetabaseSettings('Testing'), "the other environment's stays");
      await store.metabase.appendRecord(metabaseTokenMinted('Testing', LATER, by, { teamId: 7, providedId: 'acme' }, 'viewer-1'));
      const [minted] = await audited('metabase.token_minted');
      assert.deepEqual([minted!.teamId, minted!.providedId, minted!.viewerId], [7, 'acme', 'viewer-1']);
      const testingEvents = await store.events.listEvents('Testing', 0, 1000, '2000-01-01T00:00:00.000Z');
      assert.deepEqual(
        testingEvents.map((e) => e.type),
        ['metabase.configured'],
        'a mint appends its audit record and no event',
      );
    });
  });
}
