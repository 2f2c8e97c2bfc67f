import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Principal } from '../../src/kernel/principal.js';
import { ServiceError } from '../../src/kernel/errors.js';
import { createTokenCipher } from '../../src/secrets/token-cipher.js';
import { UserGroupService } from '../../src/user-groups/user-group-service.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { newGroup } from '../helpers/new-group.js';
import { insertGroup } from '../helpers/group-writes.js';

const writer: Principal = { keyId: 'key_w', environment: 'Customer', access: 'read-write' };
const reader: Principal = { keyId: 'key_r', environment: 'Customer', access: 'read-only' };
const tester: Principal = { keyId: 'key_t', environment: 'Testing', access: 'read-write' };

function isError(code: string) {
  return (error: unknown) => error instanceof ServiceError && error.code === code;
}

describe('UserGroupService', () => {
  const dir = makeTempDir('ugs-domain');
  let store: SqliteStore;
  let service: UserGroupService;
  before(async () => {
    store = (await SqliteStore.open({ path: join(dir.path, 's.sqlite') })).store;
    service = new UserGroupService({
      store: store.userGroups,
      cipher: createTokenCipher('s'.repeat(32)),
      now: () => new Date('2026-01-01T00:00:00Z'),
    });
  });
  after(async () => {
    await store.close();
    dir.remove();
  });

  it('creates once, then returns the same group and token', async () => {
    const first = await service.getOrCreate(writer, { userGroupId: 'a', name: 'A', mapping: { '1': 2 } });
    const again = await service.getOrCreate(writer, { userGroupId: 'a' });
    assert.equal(first.created, true);
    assert.equal(again.created, false);
    assert.deepEqual(again.group, first.group);
    assert.equal(first.group.createdAt, '2026-01-01T00:00:00.000Z');
  });

  it('creates no group whose id is not NFC, and keeps one made before that rule readable, changeable and deletable', async () => {
    const decomposed = 'cre\u0300me';
    await assert.rejects(
      service.getOrCreate(writer, { userGroupId: decomposed, name: 'C' }),
      (e: unknown) => isError('invalid_request')(e) && /NFC/.test((e as Error).message),
    );
    // As an older version stored it, before creation checked.
    await insertGroup(
      store,
      newGroup(decomposed, {
        name: 'Old',
        tokenHash: Buffer.alloc(32, 7),
        tokenCiphertext: createTokenCipher('s'.repeat(32)).encrypt(`ugt_${'a'.repeat(49)}`, 'Customer', decomposed),
        at: '2025-01-01T00:00:00.000Z',
      }),
    );
    const hit = await service.getOrCreate(writer, { userGroupId: decomposed });
    assert.deepEqual([hit.created, hit.group.name], [false, 'Old']);
    assert.equal((await service.get(reader, decomposed)).group.name, 'Old');
    assert.equal((await service.update(writer, { userGroupId: decomposed, name: 'Renamed' })).name, 'Renamed');
    await service.delete(writer, decomposed);
    await assert.rejects(service.get(reader, decomposed), isError('not_found'));
  });

  it('stores only the token hash and ciphertext', async () => {
    const { group } = await service.getOrCreate(writer, { userGroupId: 'hidden', name: 'H' });
    const record = await store.userGroups.findUserGroup('Customer', 'hidden');
    assert.ok(record);
    assert.equal(JSON.stringify(record).includes(group.token), false);
    assert.equal(record.tokenCiphertext.includes(Buffer.from(group.token)), false);
  });

  it('lets a read-only key read but not create, update or rotate', async () => {
    const { group } = await service.getOrCreate(writer, { userGroupId: 'ro', name: 'RO' });
    assert.equal((await service.getOrCreate(reader, { userGroupId: 'ro' })).group.token, group.token);
    await assert.rejects(service.getOrCreate(reader, { userGroupId: 'ro-new', name: 'x' }), isError('forbidden'));
    await assert.rejects(service.update(reader, { userGroupId: 'ro', name: 'x' }), isError('forbidden'));
    await assert.rejects(service.rotateToken(reader, group.token), isError('forbidden'));
  });

  it('keeps environments apart', async () => {
    const customer = await service.getOrCreate(writer, { userGroupId: 'env', name: 'C' });
    const testing = await service.getOrCreate(tester, { userGroupId: 'env', name: 'T' });
    assert.equal(testing.created, true);
    assert.notEqual(testing.group.teamId, customer.group.teamId);
    await assert.rejects(service.rotateToken(tester, customer.group.token), isError('not_found'));
    await assert.rejects(service.update(tester, { userGroupId: 'missing-here' }), isError('not_found'));
  });

  it('rotates: new token works, old one is gone, a second rotation with it fails', async () => {
    const { group } = await service.getOrCreate(writer, { userGroupId: 'rot', name: 'R' });
    const rotated = await service.rotateToken(writer, group.token);
    assert.notEqual(rotated.token, group.token);
    assert.equal(rotated.teamId, group.teamId);
    assert.equal((await service.getOrCreate(writer, { userGroupId: 'rot' })).group.token, rotated.token);
    await assert.rejects(service.rotateToken(writer, group.token), isError('not_found'));
  });

  it('refuses a malformed token as not found without touching the store', async () => {
    let lookups = 0;
    const counting = new Proxy(store.userGroups, {
      get(target, prop, receiver) {
        if (prop === 'findUserGroupByTokenHash') lookups++;
        return Reflect.get(target, prop, receiver);
      },
    });
    const guarded = new UserGroupService({ store: counting, cipher: createTokenCipher('s'.repeat(32)) });
    await assert.rejects(guarded.rotateToken(writer, 'ugt_not-a-token'), isError('not_found'));
    assert.equal(lookups, 0);
  });

  it('refuses properties over 64 KiB serialized', async () => {
    const properties = { blob: 'x'.repeat(64 * 1024) };
    await assert.rejects(service.getOrCreate(writer, { userGroupId: 'big', name: 'B', properties }), isError('invalid_request'));
  });
});
