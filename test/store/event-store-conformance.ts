import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { tokenVersionOf } from '../../src/consequences/embed-revocation.js';
import { ENVIRONMENTS, type Environment } from '../../src/kernel/environment.js';
import type { EventRecord } from '../../src/events/event.js';
import type { SigningKeyRecord } from '../../src/signing-keys/signing-key.js';
import { signingKeyRotated } from '../../src/signing-keys/signing-key-consequences.js';
import type { NewUserGroup, Store } from '../../src/store/store.js';
import type { StoreFixture } from './store-conformance.js';
import { newGroup } from '../helpers/new-group.js';
import { insertKey, revokeKey } from '../helpers/api-key-writes.js';
import { auditedChange, combined } from '../../src/consequences/write-consequences.js';
import { groupCreated } from '../../src/user-groups/user-group-consequences.js';
import { deleteGroup, insertGroup, replaceToken, revokeSession, updateGroup } from '../helpers/group-writes.js';

const AT = '2026-05-01T00:00:00.000Z';
const LATER = '2026-05-02T00:00:00.000Z';
/** Before anything the tests write: listing with it keeps every event. */
const EARLY = '2020-01-01T00:00:00.000Z';
const SECRET_PROPERTY = 'property-value-never-in-an-event';

function group(environment: Environment, providedId: string, overrides: Partial<NewUserGroup> = {}): NewUserGroup {
  return newGroup(providedId, { environment, mapping: { '40': '213' }, properties: { secret: SECRET_PROPERTY }, at: AT, ...overrides });
}

const by = (keyId: string, fields: string[]) => ({ keyId, fields });

/** The outbox: every change writes its event with it, and a write that changes nothing writes none. */
export function eventStoreConformance(fixture: StoreFixture): void {
  describe(`Store events: ${fixture.name}`, () => {
    let store: Store;
    before(async () => {
      store = await fixture.open();
    });
    after(() => store.close());

    /** The environment's events after `after`, all pages, without ids and sequences (checked separately). */
    async function eventsAfter(environment: Environment, after: number): Promise<EventRecord[]> {
      return store.events.listEvents(environment, after, 1000, EARLY);
    }
    const last = async (environment: Environment) => (await eventsAfter(environment, 0)).at(-1)?.sequence ?? 0;
    const bare = (events: EventRecord[]) => events.map(({ type, timestamp, data }) => ({ type, timestamp, data }));

    it('writes one event per change, naming the group and the changed fields, never a value', async () => {
      const from = await last('Customer');
      const g = group('Customer', 'ev-1');
      const { group: created } = await insertGroup(store, g, by('key_a', ['name', 'properties']));
      await updateGroup(
        store,
        'Customer',
        'ev-1',
        { name: 'N', properties: { secret: SECRET_PROPERTY }, updatedAt: LATER },
        by('key_a', ['name', 'properties']),
      );
      await replaceToken(
        store,
        {
          teamId: created.teamId,
          environment: created.environment,
          providedId: created.providedId,
          expectedTokenHash: g.tokenHash,
          tokenHash: randomBytes(32),
          tokenCiphertext: randomBytes(60),
          updatedAt: LATER,
        },
        by('key_a', ['token']),
      );
      await deleteGroup(store, 'Customer', 'ev-1', LATER, by('key_a', []));
      const events = await eventsAfter('Customer', from);
      const named = { api_environment_tag: 'Customer', user_group_id: 'ev-1', team_id: created.teamId };
      assert.deepEqual(bare(events), [
        { type: 'user_group.created', timestamp: AT, data: named },
        { type: 'user_group.updated', timestamp: LATER, data: { ...named, changed: ['name', 'properties'] } },
        { type: 'user_group.token_rotated', timestamp: LATER, data: named },
        { type: 'user_group.deleted', timestamp: LATER, data: named },
      ]);
      for (const event of events) {
        assert.match(event.id, /^evt_[0-9a-f]{32}$/);
        assert.equal(event.environment, 'Customer');
        assert.ok(!JSON.stringify(event).includes(SECRET_PROPERTY), 'no property value');
      }
      assert.equal(new Set(events.map((e) => e.id)).size, events.length, 'ids are unique');
      const sequences = events.map((e) => e.sequence);
      assert.deepEqual(
        sequences,
        [...sequences].sort((a, b) => a - b),
      );
    });

    it('writes key events naming the key, in its environment only', async () => {
      const from = await last('Testing');
      const id = `key_${randomBytes(8).toString('hex')}`;
      await insertKey(
        store,
        {
          id,
          name: 'k',
          environment: 'Testing',
          access: 'read-only',
          keyHash: randomBytes(32),
          createdAt: AT,
          lastUsedAt: null,
          revokedAt: null,
        },
        by(id, ['environment', 'access']),
      );
      await revokeKey(store, id, LATER, by(id, ['revoked_at']));
      assert.deepEqual(bare(await eventsAfter('Testing', from)), [
        { type: 'api_key.created', timestamp: AT, data: { api_environment_tag: 'Testing', api_key_id: id } },
        { type: 'api_key.revoked', timestamp: LATER, data: { api_environment_tag: 'Testing', api_key_id: id } },
      ]);
      assert.ok(
        (await eventsAfter('Customer', 0)).every((e) => e.environment === 'Customer'),
        'the other environment sees none',
      );
    });

    it('writes moves, each deletion of a cascade, and ended embed sessions', async () => {
      const from = await last('Customer');
      const root = (await insertGroup(store, group('Customer', 'ev-root'))).group;
      const child = (await insertGroup(store, group('Customer', 'ev-child'))).group;
      await updateGroup(store, 'Customer', 'ev-child', { parentId: 'ev-root', updatedAt: LATER }, by('key_m', []));
      const sessionId = `es_${randomBytes(16).toString('base64url')}`;
      const ended = {
        sessionId,
        environment: 'Customer' as const,
        teamId: root.teamId,
        providedId: 'ev-root',
        tokenVersion: tokenVersionOf(randomBytes(32)),
        createdAt: AT,
        expiresAt: LATER,
        revokedAt: null,
      };
      await revokeSession(store, ended, LATER, by('key_m', []));
      assert.equal(await revokeSession(store, ended, LATER, by('key_m', [])), false, 'ended again: no second event');
      await deleteGroup(store, 'Customer', 'ev-root', LATER, by('key_m', []), { cascade: true });
      const named = (g: typeof root) => ({ api_environment_tag: 'Customer', user_group_id: g.providedId, team_id: g.teamId });
      assert.deepEqual(
        bare(await eventsAfter('Customer', from)).map(({ type, data }) => ({ type, data })),
        [
          { type: 'user_group.created', data: named(root) },
          { type: 'user_group.created', data: named(child) },
          { type: 'user_group.moved', data: { ...named(child), changed: ['parent_user_group_id'] } },
          { type: 'embed_session.revoked', data: named(root) },
          { type: 'user_group.deleted', data: named(child) },
          { type: 'user_group.deleted', data: named(root) },
        ],
      );
    });

    it('writes no event for a write that changes nothing', async () => {
      const g = group('Customer', 'ev-noop');
      const { group: created } = await insertGroup(store, g);
      const id = `key_${randomBytes(8).toString('hex')}`;
      await insertKey(
        store,
        {
          id,
          name: null,
          environment: 'Customer',
          access: 'read-write',
          keyHash: randomBytes(32),
          createdAt: AT,
          lastUsedAt: null,
          revokedAt: null,
        },
        by(id, []),
      );
      await revokeKey(store, id, LATER, by(id, []));
      const from = await last('Customer');
      assert.equal((await insertGroup(store, group('Customer', 'ev-noop'))).created, false);
      assert.equal(await updateGroup(store, 'Customer', 'ev-missing', { name: 'x', updatedAt: LATER }), null);
      const stale = {
        teamId: created.teamId,
        environment: created.environment,
        providedId: created.providedId,
        expectedTokenHash: randomBytes(32),
        tokenHash: randomBytes(32),
        tokenCiphertext: randomBytes(60),
        updatedAt: LATER,
      };
      assert.equal(await replaceToken(store, stale), null);
      assert.equal(await deleteGroup(store, 'Customer', 'ev-missing', LATER), null);
      await revokeKey(store, id, LATER, by(id, []));
      assert.deepEqual(await eventsAfter('Customer', from), []);
    });

    it('appends what a write is handed, as it is: the team_id only the write learns filled in, the deleted groups handed over', async () => {
      const from = await last('Customer');
      const g = group('Customer', 'ev-port');
      const child = group('Customer', 'ev-port-child', { parentId: 'ev-port' });
      const written: (number | null)[] = [];
      // Two records and events for one write, neither built by the domain's builders: the store decides none of it.
      const twice = (at: string, keyId: string) => (teamId: number | null) =>
        combined(
          ['user_group.created', 'user_group.updated'].map((action) =>
            auditedChange(
              action as 'user_group.created',
              at,
              { environment: 'Customer', providedId: 'ev-port', teamId },
              by(keyId, [action]),
            ),
          ),
        );
      const handed =
        (at: string, keyId: string) =>
        ({ teamId }: { teamId: number | null }) => (written.push(teamId), twice(at, keyId)(teamId));
      const { group: created } = await store.userGroups.insertUserGroupIfAbsent(g, handed(AT, 'key_p1'));
      await store.userGroups.insertUserGroupIfAbsent(child, groupCreated(child, by('key_p2', [])));
      await store.userGroups.updateUserGroup('Customer', 'ev-port', { name: 'N', updatedAt: LATER }, handed(LATER, 'key_p3'));
      assert.ok(written.length >= 2, 'called for each write');
      assert.ok(
        written.every((teamId) => teamId === null || teamId === created.teamId),
        'with the team_id written, or null for the statement that writes it to fill in',
      );
      const deleted: string[][] = [];
      await store.userGroups.deleteUserGroup(
        'Customer',
        'ev-port',
        (members) => (deleted.push(members.map((m) => m.providedId)), twice(LATER, 'key_p4')(created.teamId)),
        { cascade: true },
      );
      assert.deepEqual(deleted, [['ev-port-child', 'ev-port']], 'the subtree, children first');
      const named = { api_environment_tag: 'Customer', user_group_id: 'ev-port', team_id: created.teamId };
      const ofPort = (await eventsAfter('Customer', from)).filter((e) => e.data.user_group_id === 'ev-port');
      assert.deepEqual(
        bare(ofPort),
        [AT, LATER, LATER].flatMap((timestamp) => [
          { type: 'user_group.created', timestamp, data: named },
          { type: 'user_group.updated', timestamp, data: { ...named, changed: ['user_group.updated'] } },
        ]),
      );
      const records = (await store.audit.listAuditRecords({ group: { providedId: 'ev-port' }, limit: 100 })).filter(
        (r) => r.environment === 'Customer',
      );
      assert.deepEqual(
        records.map((r) => [r.action, r.teamId, r.keyId, r.fields]),
        ['key_p1', 'key_p3', 'key_p4'].flatMap((keyId) => [
          ['user_group.created', created.teamId, keyId, ['user_group.created']],
          ['user_group.updated', created.teamId, keyId, ['user_group.updated']],
        ]),
      );
    });

    it('has exactly one event per audit record', async () => {
      const audit = await store.audit.listAuditRecords({ limit: 10_000 });
      const events = [...(await eventsAfter('Customer', 0)), ...(await eventsAfter('Testing', 0))]
        .filter((e) => e.type !== 'signing_key.rotated')
        .sort((a, b) => a.sequence - b.sequence);
      assert.deepEqual(
        events.map((e) => [e.type, e.timestamp, e.environment]),
        audit.map((r) => [r.action, r.at, r.environment]),
      );
    });

    it("writes signing_key.rotated into the rotated key's environment only, and nothing for a first key or a taken generation", async () => {
      const from = { Customer: await last('Customer'), Testing: await last('Testing') };
      const generation = 50_000 + Math.floor(Math.random() * 10_000);
      const key = (kid: string, environment: Environment, announce: boolean, at = generation) => {
        const record: SigningKeyRecord = {
          kid,
          environment,
          generation: at,
          algorithm: 'EdDSA',
          publicJwk: { kty: 'OKP', crv: 'Ed25519', x: randomBytes(32).toString('base64url'), kid },
          privateKeyCiphertext: randomBytes(90),
          createdAt: '2026-07-01T00:00:00.000Z',
          activatesAt: announce ? '2026-07-01T00:05:00.000Z' : '2026-07-01T00:00:00.000Z',
        };
        // As SigningKeys hands it over: a rotation announces the key, the first key of an environment does not.
        return store.signingKeys.insertSigningKey(record, announce ? signingKeyRotated(record) : undefined);
      };
      const kid = `kid-ev-${randomBytes(4).toString('hex')}`;
      assert.equal(await key(kid, 'Testing', true), true);
      assert.equal(await key(`${kid}-taken`, 'Testing', true), false, 'the generation is taken: no key, no event');
      assert.deepEqual(bare(await eventsAfter('Testing', from.Testing)), [
        {
          type: 'signing_key.rotated',
          timestamp: '2026-07-01T00:00:00.000Z',
          data: { api_environment_tag: 'Testing', signing_key_id: kid, activates_at: '2026-07-01T00:05:00.000Z' },
        },
      ]);
      assert.deepEqual(await eventsAfter('Customer', from.Customer), [], 'a Testing rotation says nothing to Customer');
      const customerKid = `${kid}-customer`;
      assert.equal(await key(customerKid, 'Customer', true), true, 'the same generation in the other environment is another key');
      assert.deepEqual(
        bare(await eventsAfter('Customer', from.Customer)).map((e) => e.data),
        [{ api_environment_tag: 'Customer', signing_key_id: customerKid, activates_at: '2026-07-01T00:05:00.000Z' }],
      );
      assert.equal((await eventsAfter('Testing', from.Testing)).length, 1, 'and a Customer rotation nothing to Testing');
      const before = { Customer: await last('Customer'), Testing: await last('Testing') };
      assert.equal(await key(`${kid}-first`, 'Customer', false, generation + 1), true);
      for (const environment of ENVIRONMENTS) {
        assert.deepEqual(
          await eventsAfter(environment, before[environment]),
          [],
          "a key added without announcing (an environment's first) writes none",
        );
      }
    });

    it('pages by sequence, and leaves out (and forgets) events older than the retention', async () => {
      const from = await last('Testing');
      for (const [i, createdAt] of ['2026-06-01T00:00:00.000Z', '2026-06-03T00:00:00.000Z', '2026-06-05T00:00:00.000Z'].entries()) {
        await insertGroup(store, group('Testing', `ev-page-${i}`, { createdAt, updatedAt: createdAt }));
      }
      const first = await store.events.listEvents('Testing', from, 2, EARLY);
      assert.deepEqual(
        first.map((e) => e.data.user_group_id),
        ['ev-page-0', 'ev-page-1'],
      );
      const rest = await store.events.listEvents('Testing', first[1]!.sequence, 2, EARLY);
      assert.deepEqual(
        rest.map((e) => e.data.user_group_id),
        ['ev-page-2'],
      );
      const cutoff = '2026-06-02T00:00:00.000Z';
      const everywhere = async () => [...(await eventsAfter('Customer', 0)), ...(await eventsAfter('Testing', 0))];
      const expired = (await everywhere()).filter((e) => e.timestamp < cutoff).length;
      const kept = await store.events.listEvents('Testing', from, 10, cutoff);
      assert.deepEqual(
        kept.map((e) => e.data.user_group_id),
        ['ev-page-1', 'ev-page-2'],
      );
      const left = (await everywhere()).filter((e) => e.timestamp < cutoff).length;
      assert.ok(left < expired && left >= expired - 10, `a few expired events are forgotten per read (${expired} -> ${left})`);
    });
  });
}
