import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ApiKeyService } from '../../src/api-keys/api-key-service.js';
import { CONSOLE_SESSION_LIMITS, consoleSessionIdFormat, csrfSecretOf } from '../../src/console/console-session.js';
import { ConsoleSessionService } from '../../src/console/console-session-service.js';
import { ServiceError } from '../../src/kernel/errors.js';
import { hashSecret } from '../../src/secrets/secret-format.js';
import { redactSecrets } from '../../src/secrets/secret-redaction.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const MINUTE = 60_000;
const code = (expected: string) => (error: unknown) => error instanceof ServiceError && error.code === expected;

describe('ConsoleSessionService with a clock the test controls, over a real store', () => {
  const dir = makeTempDir('ugs-console-sessions');
  const start = new Date('2026-03-01T12:00:00.000Z').getTime();
  const clock = { at: start };
  const now = () => new Date(clock.at);
  let store: SqliteStore;
  let apiKeys: ApiKeyService;
  let sessions: ConsoleSessionService;
  before(async () => {
    store = (await SqliteStore.open({ path: join(dir.path, 'store.sqlite') })).store;
    apiKeys = new ApiKeyService({ store: store.apiKeys, cacheTtlMs: 1000, revocations: store.apiKeys.keyRevocations() });
    sessions = new ConsoleSessionService({ store: store.consoleSessions, apiKeys, now });
  });
  after(async () => {
    await store.close();
    dir.remove();
  });

  async function signedIn(access: 'read-write' | 'read-only' = 'read-write') {
    clock.at = start;
    const { key, record } = await apiKeys.create({ environment: 'Customer', access });
    return { ...(await sessions.signIn(key)), keyId: record.id };
  }

  it("opens a session with exactly its key's rights, storing only the hash of the id it hands out", async () => {
    const { sessionId, session, keyId } = await signedIn('read-only');
    assert.match(sessionId, /^ugsc_[0-9A-Za-z]{49}$/);
    assert.deepEqual(session.principal, { keyId, environment: 'Customer', access: 'read-only' });
    assert.equal(session.csrfSecret, csrfSecretOf(sessionId));
    const stored = await store.consoleSessions.findConsoleSession(hashSecret(sessionId));
    assert.ok(stored);
    assert.ok(!JSON.stringify({ ...stored, idHash: stored.idHash.toString('hex') }).includes(sessionId));
    assert.deepEqual((await sessions.resume(sessionId))?.principal, session.principal);
  });

  it('refuses a wrong key as the API does, and an embed key, storing nothing', async () => {
    await assert.rejects(sessions.signIn('ugsk_not-a-key'), code('unauthenticated'));
    const { key } = await apiKeys.create({ environment: 'Customer', access: 'embed' });
    await assert.rejects(sessions.signIn(key), code('forbidden'));
  });

  it('ends a session idle for 30 minutes, and deletes its row', async () => {
    const { sessionId } = await signedIn();
    clock.at = start + CONSOLE_SESSION_LIMITS.idleMs - 1;
    assert.ok(await sessions.resume(sessionId), 'one millisecond short of idle');
    clock.at += CONSOLE_SESSION_LIMITS.idleMs;
    assert.equal(await sessions.resume(sessionId), null);
    assert.equal(await store.consoleSessions.findConsoleSession(hashSecret(sessionId)), null);
  });

  it('ends a session 12 hours after sign-in however busy it is', async () => {
    const { sessionId } = await signedIn();
    for (clock.at = start; clock.at < start + CONSOLE_SESSION_LIMITS.absoluteMs; clock.at += 20 * MINUTE) {
      assert.ok(await sessions.resume(sessionId), `still open at +${(clock.at - start) / MINUTE} min`);
    }
    clock.at = start + CONSOLE_SESSION_LIMITS.absoluteMs;
    assert.equal(await sessions.resume(sessionId), null);
  });

  it('writes last_seen_at at most once a minute, not once a page view', async () => {
    const { sessionId } = await signedIn();
    const lastSeen = async () => (await store.consoleSessions.findConsoleSession(hashSecret(sessionId)))?.lastSeenAt;
    clock.at = start + 59_000;
    await sessions.resume(sessionId);
    assert.equal(await lastSeen(), new Date(start).toISOString(), 'under a minute: no write');
    clock.at = start + MINUTE;
    await sessions.resume(sessionId);
    assert.equal(await lastSeen(), new Date(start + MINUTE).toISOString());
  });

  it('ends at sign out, and at once when its key is revoked', async () => {
    const first = await signedIn();
    await sessions.signOut(first.sessionId);
    assert.equal(await sessions.resume(first.sessionId), null);
    await sessions.signOut(first.sessionId);
    const second = await signedIn();
    assert.ok(await sessions.resume(second.sessionId));
    await apiKeys.revoke(second.keyId);
    assert.equal(await sessions.resume(second.sessionId), null);
  });

  it('finds nothing for a malformed or unknown id, without an error', async () => {
    assert.equal(await sessions.resume(undefined), null);
    assert.equal(await sessions.resume('garbage'), null);
    assert.equal(await sessions.resume('ugsc_' + 'A'.repeat(49)), null);
  });
});

describe('console session ids as secrets', () => {
  it('are redacted from text that may reach a log line or an error message', () => {
    const id = consoleSessionIdFormat.generate();
    assert.equal(redactSecrets(`cookie ugs_console=${id}; other`), 'cookie ugs_console=ugsc_[redacted]; other');
  });
});
