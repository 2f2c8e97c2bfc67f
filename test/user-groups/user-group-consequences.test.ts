import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { tokenVersionOf } from '../../src/consequences/embed-revocation.js';
import { CLOCK_TOLERANCE_SECONDS } from '../../src/kernel/embed-tokens.js';
import { MAX_SESSION_LIFETIME_SECONDS } from '../../src/kernel/embed-tokens.js';
import type { UserGroupRecord } from '../../src/user-groups/user-group.js';
import { groupCreated, groupsDeleted, groupUpdated, tokenRotated } from '../../src/user-groups/user-group-consequences.js';
import { newGroup } from '../helpers/new-group.js';

const AT = '2026-05-01T00:00:00.000Z';
const EVENT_ID = /^evt_[0-9a-f]{32}$/;
const by = { keyId: 'key_a', fields: ['name', 'properties'], clientAddress: '203.0.113.9' };

function record(providedId: string, teamId: number): UserGroupRecord {
  return {
    ...newGroup(providedId, { name: providedId, properties: { secret: 'never in a consequence' }, at: AT, parentId: null }),
    teamId,
    parentTeamId: null,
  };
}

describe('the consequences of user group writes', () => {
  it('a create: one audit record and its event, naming the group and never a value', () => {
    const c = groupCreated({ environment: 'Customer', providedId: 'acme', createdAt: AT }, by)({ teamId: 7 });
    assert.deepEqual(c.audit, [
      {
        at: AT,
        action: 'user_group.created',
        environment: 'Customer',
        teamId: 7,
        providedId: 'acme',
        keyId: 'key_a',
        fields: ['name', 'properties'],
        clientAddress: '203.0.113.9',
        webhookId: null,
      },
    ]);
    assert.equal(c.events.length, 1);
    assert.match(c.events[0]!.id, EVENT_ID);
    assert.deepEqual(
      { ...c.events[0]!, id: 'x' },
      {
        id: 'x',
        environment: 'Customer',
        type: 'user_group.created',
        at: AT,
        data: { api_environment_tag: 'Customer', user_group_id: 'acme', team_id: 7 },
      },
    );
    assert.deepEqual(c.revocations, []);
  });

  it('leaves the team_id out, for the store to add, while only the write can know it', () => {
    const c = groupCreated({ environment: 'Testing', providedId: 'acme', createdAt: AT }, by)({ teamId: null });
    assert.equal(c.audit[0]!.teamId, null);
    assert.deepEqual(c.events[0]!.data, { api_environment_tag: 'Testing', user_group_id: 'acme' });
  });

  it('an update lists the changed field names; a change of parent makes it a move that lists the parent too', () => {
    const written = { teamId: 7 };
    const updated = groupUpdated('Customer', 'acme', { name: 'N', updatedAt: AT }, { keyId: 'key_a', fields: ['name'] })(written);
    assert.equal(updated.events[0]!.type, 'user_group.updated');
    assert.deepEqual(updated.events[0]!.data.changed, ['name']);
    const moved = groupUpdated('Customer', 'acme', { parentId: 'root', updatedAt: AT }, { keyId: 'key_a', fields: [] })(written);
    assert.equal(moved.audit[0]!.action, 'user_group.moved');
    assert.deepEqual(moved.audit[0]!.fields, ['parent_user_group_id']);
    assert.deepEqual(moved.events[0]!.data.changed, ['parent_user_group_id']);
    const detached = groupUpdated('Customer', 'acme', { parentId: null, updatedAt: AT }, { keyId: 'key_a', fields: [] })(written);
    assert.equal(detached.events[0]!.type, 'user_group.moved');
  });

  it('a rotation is audited and ends the sessions of the old token, not the new one, for the longest session and clock tolerance', () => {
    const old = randomBytes(32);
    const fresh = randomBytes(32);
    const c = tokenRotated(
      {
        teamId: 7,
        environment: 'Customer',
        providedId: 'acme',
        expectedTokenHash: old,
        tokenHash: fresh,
        tokenCiphertext: randomBytes(60),
        updatedAt: AT,
      },
      { keyId: 'key_a', fields: ['token'] },
    );
    assert.deepEqual(
      c.audit.map((r) => [r.action, r.teamId, r.fields]),
      [['user_group.token_rotated', 7, ['token']]],
    );
    assert.deepEqual(
      c.events.map((e) => e.data),
      [{ api_environment_tag: 'Customer', user_group_id: 'acme', team_id: 7 }],
    );
    assert.deepEqual(c.revocations, [
      {
        environment: 'Customer',
        sessionId: null,
        providedId: 'acme',
        tokenVersion: tokenVersionOf(old),
        viewerId: null,
        reason: 'token_rotated',
        revokedAt: AT,
        expiresAt: new Date(Date.parse(AT) + (MAX_SESSION_LIFETIME_SECONDS + CLOCK_TOLERANCE_SECONDS) * 1000).toISOString(),
      },
    ]);
  });

  it("a deletion audits each group of the subtree on its own and ends each one's sessions, in the order given", () => {
    const members = [record('leaf', 9), record('child', 8), record('root', 7)];
    const c = groupsDeleted(AT, { keyId: 'key_a', fields: [] })(members);
    assert.deepEqual(
      c.audit.map((r) => [r.action, r.teamId, r.providedId]),
      [
        ['user_group.deleted', 9, 'leaf'],
        ['user_group.deleted', 8, 'child'],
        ['user_group.deleted', 7, 'root'],
      ],
    );
    assert.deepEqual(
      c.events.map((e) => e.data.user_group_id),
      ['leaf', 'child', 'root'],
    );
    assert.deepEqual(
      c.revocations.map((r) => [r.providedId, r.tokenVersion, r.reason]),
      members.map((m) => [m.providedId, tokenVersionOf(m.tokenHash), 'user_group_deleted']),
    );
    assert.equal(new Set(c.events.map((e) => e.id)).size, 3);
    assert.doesNotMatch(JSON.stringify(c), /never in a consequence/);
  });
});
