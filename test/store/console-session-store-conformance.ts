import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { ApiKeyRecord } from '../../src/api-keys/api-key.js';
import type { ConsoleSessionRecord } from '../../src/console/console-session.js';
import type { Environment } from '../../src/kernel/environment.js';
import type { NewUserGroup, Store } from '../../src/store/store.js';
import type { StoreFixture } from './store-conformance.js';
import { newGroup } from '../helpers/new-group.js';
import { insertKey, revokeKey } from '../helpers/api-key-writes.js';
import { insertGroup, updateGroup } from '../helpers/group-writes.js';

const AT = '2026-05-01T10:00:00.000Z';
/** Before anything the tests write: inserting with it as the stale bound forgets nothing. */
const EARLY = { lastSeen: '2020-01-01T00:00:00.000Z', created: '2020-01-01T00:00:00.000Z' };

function key(overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  return {
    id: `key_${randomBytes(8).toString('hex')}`,
    name: null,
    environment: 'Customer',
    access: 'read-write',
    keyHash: randomBytes(32),
    createdAt: AT,
    lastUsedAt: null,
    revokedAt: null,
    ...overrides,
  };
}

function session(keyId: string, overrides: Partial<ConsoleSessionRecord> = {}): ConsoleSessionRecord {
  return { idHash: randomBytes(32), keyId, environment: 'Customer', access: 'read-write', createdAt: AT, lastSeenAt: AT, ...overrides };
}

function group(environment: Environment, providedId: string): NewUserGroup {
  return newGroup(providedId, { environment, at: AT });
}

/** Console sessions: stored by the hash of their id, seen by every connection, ended by sign out or by their key's revocation. */
export function consoleSessionStoreConformance(fixture: StoreFixture): void {
  describe(`Store console sessions: ${fixture.name}`, () => {
    let store: Store;
    let other: Store;
    let keyId: string;
    before(async () => {
      store = await fixture.open();
      other = await fixture.reopen();
      const k = key();
      await insertKey(store, k);
      keyId = k.id;
    });
    after(async () => {
      await other.close();
      await store.close();
    });

    it('finds a session by its id hash, field for field, from another connection too; an unknown hash finds nothing', async () => {
      const s = session(keyId, { environment: 'Testing', access: 'read-only' });
      await store.consoleSessions.insertConsoleSession(s, EARLY);
      assert.deepEqual(await store.consoleSessions.findConsoleSession(s.idHash), s);
      assert.deepEqual(await other.consoleSessions.findConsoleSession(s.idHash), s, 'another worker or replica sees the session');
      assert.equal(await store.consoleSessions.findConsoleSession(randomBytes(32)), null);
    });

    it('moves last_seen_at forward, never back', async () => {
      const s = session(keyId);
      await store.consoleSessions.insertConsoleSession(s, EARLY);
      await store.consoleSessions.touchConsoleSession(s.idHash, '2026-05-01T10:05:00.000Z');
      await other.consoleSessions.touchConsoleSession(s.idHash, '2026-05-01T10:01:00.000Z');
      assert.equal((await store.consoleSessions.findConsoleSession(s.idHash))?.lastSeenAt, '2026-05-01T10:05:00.000Z');
      await store.consoleSessions.touchConsoleSession(randomBytes(32), '2026-05-01T10:05:00.000Z');
    });

    it('deletes a session once (sign out): true, then false, and it is found nowhere', async () => {
      const s = session(keyId);
      await store.consoleSessions.insertConsoleSession(s, EARLY);
      assert.equal(await other.consoleSessions.deleteConsoleSession(s.idHash), true);
      assert.equal(await store.consoleSessions.deleteConsoleSession(s.idHash), false);
      assert.equal(await store.consoleSessions.findConsoleSession(s.idHash), null);
    });

    it('finds no session of a revoked key, at once and from every connection', async () => {
      const k = key();
      await insertKey(store, k);
      const s = session(k.id);
      await store.consoleSessions.insertConsoleSession(s, EARLY);
      assert.ok(await other.consoleSessions.findConsoleSession(s.idHash));
      assert.equal(await revokeKey(other, k.id, '2026-05-01T11:00:00.000Z'), true);
      assert.equal(await store.consoleSessions.findConsoleSession(s.idHash), null);
      assert.equal(await other.consoleSessions.findConsoleSession(s.idHash), null);
    });

    it('forgets sessions idle or older than the bounds given when another signs in, and keeps the fresh ones', async () => {
      const idle = session(keyId, { createdAt: '2026-05-01T09:00:00.000Z', lastSeenAt: '2026-05-01T09:10:00.000Z' });
      const old = session(keyId, { createdAt: '2026-04-30T20:00:00.000Z', lastSeenAt: '2026-05-01T09:59:00.000Z' });
      const fresh = session(keyId, { createdAt: '2026-05-01T09:00:00.000Z', lastSeenAt: '2026-05-01T09:59:00.000Z' });
      for (const s of [idle, old, fresh]) await store.consoleSessions.insertConsoleSession(s, EARLY);
      const newest = session(keyId, { createdAt: '2026-05-01T10:00:00.000Z', lastSeenAt: '2026-05-01T10:00:00.000Z' });
      await store.consoleSessions.insertConsoleSession(newest, {
        lastSeen: '2026-05-01T09:30:00.000Z',
        created: '2026-04-30T22:00:00.000Z',
      });
      assert.equal(await store.consoleSessions.findConsoleSession(idle.idHash), null, 'idle past the bound');
      assert.equal(await store.consoleSessions.findConsoleSession(old.idHash), null, 'created before the bound');
      assert.ok(await store.consoleSessions.findConsoleSession(fresh.idHash));
      assert.ok(await store.consoleSessions.findConsoleSession(newest.idHash));
    });
  });

  describe(`Store activity, as the console lists it: ${fixture.name}`, () => {
    let store: Store;
    before(async () => {
      store = await fixture.open();
    });
    after(() => store.close());

    it('lists the latest audit records and events of one environment, newest first, of one group when asked', async () => {
      const by = { keyId: 'key_console', fields: ['name'] };
      for (const id of ['act-a', 'act-b', 'act-c']) await insertGroup(store, group('Customer', id), by);
      await insertGroup(store, group('Testing', 'act-a'), by);
      await updateGroup(store, 'Customer', 'act-a', { name: 'Renamed', updatedAt: AT }, by);

      const audit = await store.audit.listAuditRecords({ environment: 'Customer', newestFirst: true, limit: 3 });
      assert.deepEqual(
        audit.map((r) => [r.action, r.providedId]),
        [
          ['user_group.updated', 'act-a'],
          ['user_group.created', 'act-c'],
          ['user_group.created', 'act-b'],
        ],
      );
      const ofGroup = await store.audit.listAuditRecords({
        environment: 'Customer',
        newestFirst: true,
        group: { providedId: 'act-a' },
        limit: 10,
      });
      assert.deepEqual(
        ofGroup.map((r) => r.action),
        ['user_group.updated', 'user_group.created'],
      );
      assert.ok(
        ofGroup.every((r) => r.environment === 'Customer'),
        'not the Testing group of the same id',
      );

      const events = await store.events.listRecentEvents('Customer', 3, EARLY.created);
      assert.deepEqual(
        events.map((e) => [e.type, e.data.user_group_id]),
        [
          ['user_group.updated', 'act-a'],
          ['user_group.created', 'act-c'],
          ['user_group.created', 'act-b'],
        ],
      );
      const groupEvents = await store.events.listRecentEvents('Customer', 10, EARLY.created, 'act-a');
      assert.deepEqual(
        groupEvents.map((e) => e.type),
        ['user_group.updated', 'user_group.created'],
      );
      assert.deepEqual(
        await store.events.listRecentEvents('Customer', 10, '2099-01-01T00:00:00.000Z'),
        [],
        'none past the retention bound',
      );
    });
  });
}
