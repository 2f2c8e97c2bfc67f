import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Principal } from '../../src/api-keys/api-key.js';
import { tokenVersionOf } from '../../src/embed-sessions/embed-session.js';
import { EmbedSessionService } from '../../src/embed-sessions/embed-session-service.js';
import { ServiceError } from '../../src/kernel/errors.js';
import { PositionSeal } from '../../src/kernel/position-seal.js';
import { hashSecret } from '../../src/secrets/secret-format.js';
import { createSigningKeyring, loadSigningKeyring } from '../../src/signing-keys/signing-keys.js';
import { createTokenCipher } from '../../src/secrets/token-cipher.js';
import { userGroupTokenFormat } from '../../src/user-groups/user-group-token.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const customer: Principal = { keyId: 'key_customer', environment: 'Customer', access: 'read-write' };
const embedKey: Principal = { keyId: 'key_embed', environment: 'Customer', access: 'embed' };
const readOnly: Principal = { keyId: 'key_reader', environment: 'Customer', access: 'read-only' };
const code = (expected: string) => (error: unknown) => error instanceof ServiceError && error.code === expected;

describe('EmbedSessionService with a clock the test controls', () => {
  const dir = makeTempDir('ugs-embed-service');
  const clock = { now: new Date('2026-03-01T12:00:00.000Z') };
  const token = userGroupTokenFormat.generate();
  let store: SqliteStore;
  let service: EmbedSessionService;
  before(async () => {
    store = (await SqliteStore.open({ path: join(dir.path, 'store.sqlite') })).store;
    const signingKeys = createSigningKeyring({
      store: store.signingKeys,
      settings: store.settings,
      cipher: createTokenCipher('e'.repeat(32)),
      algorithm: 'EdDSA',
      jwksMaxAgeSeconds: 300,
      now: () => clock.now,
    });
    await loadSigningKeyring(signingKeys);
    service = new EmbedSessionService({
      sessions: store.embedSessions,
      groups: store.userGroups,
      signingKeys,
      settings: { Customer: { issuer: 'iss-test', audience: 'aud-test' }, Testing: { issuer: 'iss-testing', audience: 'aud-testing' } },
      positions: new PositionSeal(store.settings),
      now: () => clock.now,
    });
    await store.userGroups.insertUserGroupIfAbsent({
      environment: 'Customer',
      providedId: 'clocked',
      name: 'Clocked',
      mapping: null,
      properties: { region: 'eu' },
      tokenHash: hashSecret(token),
      tokenCiphertext: randomBytes(60),
      createdAt: clock.now.toISOString(),
      updatedAt: clock.now.toISOString(),
    });
  });
  after(async () => {
    await store.close();
    dir.remove();
  });

  it('records the session before handing out the token, with iat and exp from the clock', async () => {
    const minted = await service.mint(embedKey, { userGroupToken: token, expiresIn: 60 });
    assert.equal(minted.expiresAt, '2026-03-01T12:01:00.000Z');
    const session = await store.embedSessions.findEmbedSession('Customer', minted.sessionId);
    assert.deepEqual(session, {
      sessionId: minted.sessionId,
      environment: 'Customer',
      teamId: minted.teamId,
      providedId: 'clocked',
      tokenVersion: tokenVersionOf(hashSecret(token)),
      createdAt: '2026-03-01T12:00:00.000Z',
      expiresAt: '2026-03-01T12:01:00.000Z',
      revokedAt: null,
    });
    const claims = await service.introspect(customer, minted.token);
    assert.equal(claims.active, true);
    assert.deepEqual(claims.active && [claims.iat, claims.exp, claims.iss, claims.aud, claims.map, claims.props], [
      Date.parse('2026-03-01T12:00:00.000Z') / 1000,
      Date.parse('2026-03-01T12:01:00.000Z') / 1000,
      'iss-test',
      'aud-test',
      {},
      { region: 'eu' },
    ]);
  });

  it('introspects a token as inactive once it has expired', async () => {
    const start = new Date('2026-03-01T13:00:00.000Z');
    clock.now = start;
    const minted = await service.mint(customer, { userGroupId: 'clocked', expiresIn: 60 });
    clock.now = new Date(start.getTime() + 59_000);
    assert.equal((await service.introspect(customer, minted.token)).active, true);
    clock.now = new Date(start.getTime() + 61_000);
    assert.deepEqual(await service.introspect(customer, minted.token), { active: false });
  });

  it('refuses read-only keys with forbidden, and validates expires_in bounds', async () => {
    await assert.rejects(service.mint(readOnly, { userGroupId: 'clocked' }), code('forbidden'));
    await assert.rejects(service.revoke(readOnly, 'es_x'), code('forbidden'));
    for (const expiresIn of [59, 86_401, 60.5, Number.NaN])
      await assert.rejects(service.mint(customer, { userGroupId: 'clocked', expiresIn }), code('invalid_request'), String(expiresIn));
    await assert.rejects(service.mint(customer, { userGroupId: 'clocked', userGroupToken: token }), code('invalid_request'));
    await assert.rejects(service.mint(customer, {}), code('invalid_request'));
    await assert.rejects(service.mint(customer, { userGroupToken: 'ugt_not-a-real-one' }), code('not_found'));
  });
});
