import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Principal } from '../../src/kernel/principal.js';
import { EMBED_TOKEN_TYPE } from '../../src/embed-sessions/embed-session.js';
import { tokenVersionOf } from '../../src/consequences/embed-revocation.js';
import { EmbedSessionService } from '../../src/embed-sessions/embed-session-service.js';
import { SessionActivity } from '../../src/embed-sessions/session-activity.js';
import { SessionIds } from '../../src/embed-sessions/session-id.js';
import { ServiceError } from '../../src/kernel/errors.js';
import { PositionSeal } from '../../src/kernel/position-seal.js';
import { hashSecret } from '../../src/secrets/secret-format.js';
import { createSigningKeyring, loadSigningKeyring, type SigningKeyring } from '../../src/signing-keys/signing-keys.js';
import { signEmbedToken } from '../../src/embed-sessions/embed-token-signer.js';
import { decodeJwt } from 'jose';
import { createTokenCipher } from '../../src/secrets/token-cipher.js';
import { userGroupTokenFormat } from '../../src/user-groups/user-group-token.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { newGroup } from '../helpers/new-group.js';
import { deleteGroup, insertGroup } from '../helpers/group-writes.js';

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
  let signingKeys: SigningKeyring;
  before(async () => {
    store = (await SqliteStore.open({ path: join(dir.path, 'store.sqlite') })).store;
    signingKeys = createSigningKeyring({
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
      sessionIds: new SessionIds(store.settings),
      activity: new SessionActivity(store.embedSessions, randomUUID, { now: () => clock.now }),
      now: () => clock.now,
    });
    await insertGroup(
      store,
      newGroup('clocked', { name: 'Clocked', properties: { region: 'eu' }, tokenHash: hashSecret(token), at: clock.now.toISOString() }),
    );
  });
  after(async () => {
    await store.close();
    dir.remove();
  });

  it('stores nothing at mint; the id carries the team and expiry; iat and exp come from the clock; the mint is counted at the flush', async () => {
    const minted = await service.mint(embedKey, { userGroupToken: token, expiresIn: 60 });
    assert.equal(minted.expiresAt, '2026-03-01T12:01:00.000Z');
    assert.match(minted.sessionId, /^es_[A-Za-z0-9_-]{48}$/);
    assert.equal(await store.embedSessions.findEmbedSession('Customer', minted.sessionId), null, 'no row for a live session');
    const ids = await new SessionIds(store.settings).forEnvironment('Customer');
    assert.deepEqual(
      ids.open(minted.sessionId),
      { kind: 'sealed', teamId: minted.teamId, expiresAt: Date.parse('2026-03-02T00:00:00.000Z') / 1000 },
      "the session's end: iat + max_lifetime (12 hours unless given)",
    );
    const claims = await service.introspect(customer, minted.token);
    assert.equal(claims.active, true);
    assert.deepEqual(claims.active && [claims.jti, claims.iat, claims.exp, claims.iss, claims.aud, claims.map, claims.props], [
      minted.sessionId,
      Date.parse('2026-03-01T12:00:00.000Z') / 1000,
      Date.parse('2026-03-01T12:01:00.000Z') / 1000,
      'iss-test',
      'aud-test',
      {},
      { region: 'eu' },
    ]);

    const hour = ['2026-03-01T12:00:00.000Z', '2026-03-01T13:00:00.000Z'] as const;
    assert.deepEqual(await store.embedSessions.listSessionActivity('Customer', minted.teamId, ...hour), [], 'counted in memory only');
    await service.mint(customer, { userGroupId: 'clocked' });
    await service.flushActivity();
    assert.deepEqual(await store.embedSessions.listSessionActivity('Customer', minted.teamId, ...hour), [
      {
        environment: 'Customer',
        teamId: minted.teamId,
        hourStart: hour[0],
        minted: 2,
        renewed: 0,
        lastMintedAt: '2026-03-01T12:00:00.000Z',
      },
    ]);
    await service.flushActivity();
    assert.equal(
      (await store.embedSessions.listSessionActivity('Customer', minted.teamId, ...hour))[0]?.minted,
      2,
      'a flush with nothing counted adds nothing',
    );
  });

  it('tells the claims a session minted now would carry, without its token claims, signing or counting nothing', async () => {
    const hour = ['2026-03-01T12:00:00.000Z', '2026-03-01T13:00:00.000Z'] as const;
    const minted = await service.mint(customer, { userGroupId: 'clocked' });
    const introspected = await service.introspect(customer, minted.token);
    assert.ok(introspected.active);
    const { active, jti, iat, exp, ...carried } = introspected;
    assert.ok(active && jti && iat && exp, 'what a token has and the claims leave out');
    await service.flushActivity();
    const counted = (await store.embedSessions.listSessionActivity('Customer', minted.teamId, ...hour))[0]?.minted;

    assert.deepEqual(await service.sessionClaims(customer, 'clocked'), carried);
    await service.flushActivity();
    assert.equal((await store.embedSessions.listSessionActivity('Customer', minted.teamId, ...hour))[0]?.minted, counted, 'not a mint');
    await assert.rejects(service.sessionClaims(customer, 'nobody'), code('not_found'));
  });

  it('ends a session by id: stored revoked with its expiry, listed once in the feed, introspected inactive; again is no error and writes nothing', async () => {
    clock.now = new Date('2026-03-01T12:10:00.000Z');
    const minted = await service.mint(customer, { userGroupId: 'clocked', expiresIn: 600 });
    const feedBefore = (await service.revocations(customer, {})).revocations.length;
    await service.revoke(embedKey, minted.sessionId, { ip: '198.51.100.7' });
    assert.deepEqual(await store.embedSessions.findEmbedSession('Customer', minted.sessionId), {
      sessionId: minted.sessionId,
      environment: 'Customer',
      teamId: minted.teamId,
      providedId: 'clocked',
      tokenVersion: tokenVersionOf(hashSecret(token)),
      createdAt: '2026-03-01T12:10:00.000Z',
      // The session's end: its first token's iat + max_lifetime (12 hours unless given), past which no renewal reaches.
      expiresAt: '2026-03-02T00:10:00.000Z',
      revokedAt: '2026-03-01T12:10:00.000Z',
    });
    assert.deepEqual(await service.introspect(customer, minted.token), { active: false });
    await service.revoke(customer, minted.sessionId);
    const feed = (await service.revocations(customer, {})).revocations;
    assert.equal(feed.length, feedBefore + 1);
    assert.equal(feed.at(-1)?.sessionId, minted.sessionId);
  });

  it("answers not_found for an id this environment never minted: altered, made up, the other environment's, or of the earlier form without a row", async () => {
    clock.now = new Date('2026-03-01T12:30:00.000Z');
    const minted = await service.mint(customer, { userGroupId: 'clocked' });
    const last = minted.sessionId.at(-1) === 'A' ? 'B' : 'A';
    const testing = (await new SessionIds(store.settings).forEnvironment('Testing')).mint({
      teamId: minted.teamId,
      expiresAt: Date.parse(minted.expiresAt) / 1000,
    });
    for (const id of [
      `${minted.sessionId.slice(0, -1)}${last}`,
      `es_${randomBytes(36).toString('base64url')}`,
      testing,
      `es_${randomBytes(16).toString('base64url')}`,
      'es_x',
    ]) {
      await assert.rejects(service.revoke(customer, id), code('not_found'), id);
    }
    assert.equal((await service.introspect(customer, minted.token)).active, true, 'the real one is untouched');
  });

  it('ends a session past its maximum lifetime, or one whose group was deleted, without writing anything: each has ended already', async () => {
    clock.now = new Date('2026-03-01T14:00:00.000Z');
    const expiring = await service.mint(customer, { userGroupId: 'clocked', expiresIn: 60, maxLifetime: 60 });
    await insertGroup(store, newGroup('doomed', { name: 'Doomed', at: clock.now.toISOString() }));
    const doomed = await service.mint(customer, { userGroupId: 'doomed' });
    await deleteGroup(store, 'Customer', 'doomed', clock.now.toISOString());
    clock.now = new Date('2026-03-01T14:01:00.000Z');
    const feedBefore = (await service.revocations(customer, {})).revocations.length;
    await service.revoke(customer, expiring.sessionId);
    await service.revoke(customer, doomed.sessionId);
    assert.equal(await store.embedSessions.findEmbedSession('Customer', expiring.sessionId), null);
    assert.equal(await store.embedSessions.findEmbedSession('Customer', doomed.sessionId), null);
    assert.equal((await service.revocations(customer, {})).revocations.length, feedBefore);
  });

  it('ends a session stored at mint by an earlier version (the id of the earlier form) from its row', async () => {
    clock.now = new Date('2026-03-01T15:00:00.000Z');
    const sessionId = `es_${randomBytes(16).toString('base64url')}`;
    const group = (await store.userGroups.findUserGroup('Customer', 'clocked'))!;
    const raw = new Database(join(dir.path, 'store.sqlite'));
    try {
      raw
        .prepare('INSERT INTO embed_sessions VALUES (?, ?, ?, ?, ?, ?, ?, NULL)')
        .run(
          sessionId,
          'Customer',
          group.teamId,
          'clocked',
          tokenVersionOf(group.tokenHash),
          '2026-03-01T14:59:00.000Z',
          '2026-03-01T15:09:00.000Z',
        );
    } finally {
      raw.close();
    }
    await service.revoke(customer, sessionId);
    assert.equal((await store.embedSessions.findEmbedSession('Customer', sessionId))?.revokedAt, '2026-03-01T15:00:00.000Z');
    assert.equal((await service.revocations(customer, {})).revocations.at(-1)?.sessionId, sessionId);
  });

  it('introspects a token as inactive once it has expired', async () => {
    const start = new Date('2026-03-01T16:00:00.000Z');
    clock.now = start;
    const minted = await service.mint(customer, { userGroupId: 'clocked', expiresIn: 60 });
    clock.now = new Date(start.getTime() + 59_000);
    assert.equal((await service.introspect(customer, minted.token)).active, true);
    clock.now = new Date(start.getTime() + 61_000);
    assert.deepEqual(await service.introspect(customer, minted.token), { active: false });
  });

  it('renews a token up to 60 s past its exp and not later (idle), and never past the maximum lifetime', async () => {
    const start = new Date('2026-03-02T10:00:00.000Z');
    clock.now = start;
    const first = await service.mint(customer, { userGroupId: 'clocked', expiresIn: 60, maxLifetime: 300 });
    const at = (seconds: number) => (clock.now = new Date(start.getTime() + seconds * 1000));
    at(119);
    const late = await service.renew(customer, first.token, 600);
    assert.equal(late.sessionId, first.sessionId, 'expired 59 s ago: still renewable');
    assert.equal(late.expiresAt, '2026-03-02T10:05:00.000Z', 'capped by the session end (iat + max_lifetime)');
    at(121);
    await assert.rejects(service.renew(customer, first.token), (e: unknown) => code('conflict')(e) && /idle/.test((e as Error).message));
    at(299);
    assert.equal((await service.renew(customer, late.token, 60)).expiresAt, '2026-03-02T10:05:00.000Z');
    at(300);
    await assert.rejects(
      service.renew(customer, late.token),
      (e: unknown) => code('conflict')(e) && /maximum lifetime/.test((e as Error).message),
    );
  });

  it('keeps the revocation of a renewable session until its maximum lifetime, not its first token', async () => {
    clock.now = new Date('2026-03-02T12:00:00.000Z');
    const minted = await service.mint(customer, { userGroupId: 'clocked', expiresIn: 60, maxLifetime: 3600 });
    await service.revoke(customer, minted.sessionId);
    assert.equal((await store.embedSessions.findEmbedSession('Customer', minted.sessionId))?.expiresAt, '2026-03-02T13:00:00.000Z');
    const entry = (await service.revocations(customer, {})).revocations.find((r) => r.sessionId === minted.sessionId);
    assert.equal(entry?.expiresAt, '2026-03-02T13:01:00.000Z');
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

  it('refuses to renew a session whose origins an earlier version accepted and this one does not (409), and renews the rest', async () => {
    const minted = await service.mint(embedKey, { userGroupToken: token, expiresIn: 60, origins: ['https://app.example.com'] });
    for (const loose of [['https://*'], ['https://*.com'], ['https://a.example;sandbox'], ['http://localhost:0']]) {
      // As an earlier version would have signed it: the same session, with origins it let through.
      const older = signEmbedToken({ ...decodeJwt(minted.token), org: loose }, signingKeys.Customer.active(), EMBED_TOKEN_TYPE);
      await assert.rejects(
        service.renew(embedKey, older),
        (error: unknown) => code('conflict')(error) && /no longer accepts/.test((error as Error).message),
        JSON.stringify(loose),
      );
    }
    assert.equal((await service.renew(embedKey, minted.token)).sessionId, minted.sessionId);
  });
});
