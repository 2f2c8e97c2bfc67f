import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createEmbedVerifier, EmbedTokenError, type EmbedVerifier } from 'user-group-service/embed';
import { CLOCK_TOLERANCE_SECONDS } from '../../src/kernel/embed-tokens.js';
import { MAX_CLOCK_TOLERANCE_SECONDS } from '../../src/embed/embed-verifier-options.js';
import { embedClaims, FakeEmbedService, verifierFixture, FEED_API_KEY, signEmbedToken, waitFor } from './fake-embed-service.js';

/** Refused as revoked, never quoting the token; with `reason`, the feed's reason for it (what a dashboard says ended the session). */
async function assertRevoked(verifier: EmbedVerifier, token: string, reason?: string): Promise<void> {
  await assert.rejects(verifier.verify(token), (e: unknown) => {
    assert.ok(e instanceof EmbedTokenError && e.code === 'token_revoked' && !e.message.includes(token), String(e));
    if (reason !== undefined) assert.equal(e.revocationReason, reason);
    return true;
  });
}

describe('embed verifier: the revocation feed', () => {
  const fixture = verifierFixture({ apiKey: FEED_API_KEY, revocationPollMs: 50 });
  const { verifierWith } = fixture;

  it('refuses a revoked session (jti) and a revoked token version (sub, tv), also tokens verified and cached before', async () => {
    const verifier = verifierWith();
    const session = embedClaims({ sub: 'alpha' });
    const version = embedClaims({ sub: 'beta', tv: 'BetaVersion00001' });
    const sameGroupOtherVersion = embedClaims({ sub: 'beta', tv: 'BetaVersion00002' });
    const otherGroupSameVersion = embedClaims({ sub: 'gamma', tv: 'BetaVersion00001' });
    const tokens = await Promise.all(
      [session, version, sameGroupOtherVersion, otherGroupSameVersion].map((claims) => signEmbedToken(fixture.key, claims)),
    );
    for (const token of tokens) await verifier.verify(token);
    assert.equal(verifier.status().cachedTokens, 4);

    fixture.service.revoke({ session_id: session.jti as string, user_group_id: 'alpha', reason: 'session_revoked' });
    fixture.service.revoke({ user_group_id: 'beta', token_version: 'BetaVersion00001', reason: 'token_rotated' });
    await waitFor('the revocations to arrive', () => verifier.status().revocations.revokedTokenVersions === 1);
    assert.equal(verifier.status().revocations.revokedSessions, 1);

    await assertRevoked(verifier, tokens[0]!, 'session_revoked');
    await assertRevoked(verifier, tokens[1]!, 'token_rotated');
    assert.equal((await verifier.verify(tokens[2]!)).tv, 'BetaVersion00002');
    assert.equal((await verifier.verify(tokens[3]!)).sub, 'gamma');
    // Not from the cache: a new signature over the revoked session id.
    await assertRevoked(verifier, await signEmbedToken(fixture.key, { ...session, iat: (session.iat as number) - 1 }));
  });

  it("refuses a revoked viewer's tokens up to the revocation's second, in every group, and not a later token or another viewer's", async () => {
    const verifier = verifierWith();
    const iat = Math.floor(Date.now() / 1000);
    const earlier = embedClaims({ sub: 'zeta', vid: 'leaver', iat: iat - 5 });
    const sameSecond = embedClaims({ sub: 'eta', vid: 'leaver', iat });
    const later = embedClaims({ sub: 'zeta', vid: 'leaver', iat: iat + 1 });
    const other = embedClaims({ sub: 'zeta', vid: 'stayer', iat: iat - 5 });
    const noViewer = embedClaims({ sub: 'zeta', iat: iat - 5 });
    const tokens = await Promise.all([earlier, sameSecond, later, other, noViewer].map((claims) => signEmbedToken(fixture.key, claims)));
    for (const token of tokens) await verifier.verify(token);

    fixture.service.revoke({ viewer_id: 'leaver', revoked_at: new Date(iat * 1000 + 400).toISOString() });
    await waitFor('the revocation to arrive', () => verifier.status().revocations.revokedViewers === 1);
    await assertRevoked(verifier, tokens[0]!, 'viewer_revoked');
    await assertRevoked(verifier, tokens[1]!, 'viewer_revoked');
    assert.equal((await verifier.verify(tokens[2]!)).vid, 'leaver', 'minted after the second of the revocation');
    assert.equal((await verifier.verify(tokens[3]!)).vid, 'stayer');
    assert.equal((await verifier.verify(tokens[4]!)).vid, undefined);
  });

  it("carries the feed's reason for each revocation (group deleted, renamed, one unknown to this verifier) in revocationReason", async () => {
    const verifier = verifierWith();
    const deleted = embedClaims({ sub: 'kappa', tv: 'KappaVersion0001' });
    const renamed = embedClaims({ sub: 'lambda', tv: 'LambdaVersion001' });
    const newer = embedClaims({ sub: 'mu' });
    const tokens = await Promise.all([deleted, renamed, newer].map((claims) => signEmbedToken(fixture.key, claims)));
    fixture.service.revoke({ user_group_id: 'kappa', token_version: 'KappaVersion0001', reason: 'user_group_deleted' });
    fixture.service.revoke({ user_group_id: 'lambda', token_version: 'LambdaVersion001', reason: 'user_group_renamed' });
    // A reason a newer service may add: the session is still refused, and the reason passed on as it is.
    fixture.service.revoke({ session_id: newer.jti as string, user_group_id: 'mu', reason: 'some_later_reason' as 'session_revoked' });
    await waitFor(
      'the revocations to arrive',
      () => verifier.status().revocations.revokedTokenVersions === 2 && verifier.status().revocations.revokedSessions === 1,
    );
    await assertRevoked(verifier, tokens[0]!, 'user_group_deleted');
    await assertRevoked(verifier, tokens[1]!, 'user_group_renamed');
    await assertRevoked(verifier, tokens[2]!, 'some_later_reason');
  });

  it('reads the feed from its oldest entry, page by page, before its first verification', async () => {
    const revokedLongAgo = embedClaims({ sub: 'delta' });
    const now = Date.now();
    for (let i = 0; i < 2400; i++) fixture.service.revoke({ session_id: `old-${i}`, user_group_id: 'filler' });
    for (let i = 0; i < 50; i++)
      fixture.service.revoke({ session_id: `gone-${i}`, user_group_id: 'filler', expires_at: new Date(now - 1000).toISOString() });
    fixture.service.revoke({ session_id: revokedLongAgo.jti as string, user_group_id: 'delta' });
    const verifier = verifierWith({ revocationPollMs: 60_000 });
    await assertRevoked(verifier, await signEmbedToken(fixture.key, revokedLongAgo));
    assert.equal(fixture.service.feedRequests, 3, `${fixture.service.revocations.length} entries are three pages of 1000`);
    const status = verifier.status().revocations;
    assert.ok(status.syncedAt instanceof Date);
    assert.equal(status.lastError, null);
    const live = fixture.service.revocations.filter((entry) => entry.session_id !== null && Date.parse(entry.expires_at) > now);
    assert.equal(status.revokedSessions, live.length, 'entries past their expires_at are forgotten');
  });

  it('catches up after the feed was down: a token revoked meanwhile is refused (embed-verifier-fail-closed.test.ts: what it does while down)', async () => {
    const verifier = verifierWith();
    const claims = embedClaims({ sub: 'epsilon' });
    const token = await signEmbedToken(fixture.key, claims);
    assert.equal((await verifier.verify(token)).sub, 'epsilon');
    fixture.service.feedDown = true;
    await waitFor('a few failed polls', () => verifier.status().revocations.lastErrorAt !== null && fixture.service.feedRequests > 5);
    assert.match(verifier.status().revocations.lastError ?? '', /HTTP 503 \(unavailable\)/);
    // Read once the feed is seen failing: a poll already under way when it went down may still have succeeded after it.
    const { syncedAt } = verifier.status().revocations;

    fixture.service.revoke({ session_id: claims.jti as string, user_group_id: 'epsilon' });
    fixture.service.feedDown = false;
    await waitFor('the feed to be read again', () => verifier.status().revocations.syncedAt! > syncedAt!);
    await assertRevoked(verifier, token);
  });

  it('survives a service it cannot reach at all: every token is refused, nothing crashes', async () => {
    const closed = await FakeEmbedService.start();
    await closed.close();
    const verifier = verifierWith({ serviceUrl: closed.url });
    const error = await verifier.verify(await signEmbedToken(fixture.key)).catch((e: unknown) => e);
    assert.ok(error instanceof EmbedTokenError && error.code === 'revocations_unavailable', String(error));
    assert.match(error.message, /ECONNREFUSED/);
    assert.match(verifier.status().revocations.lastError ?? '', /ECONNREFUSED/);
  });

  it('caps clockToleranceSeconds at what the feed keeps: a revoked token whose entry was pruned stays refused', async () => {
    // The service lists a session's revocation until its exp plus CLOCK_TOLERANCE_SECONDS, then prunes it.
    assert.equal(MAX_CLOCK_TOLERANCE_SECONDS, CLOCK_TOLERANCE_SECONDS);
    for (const clockToleranceSeconds of [61, 120, 3600]) {
      assert.throws(() => createEmbedVerifier({ serviceUrl: fixture.service.url, clockToleranceSeconds }), {
        name: 'TypeError',
        message: /clockToleranceSeconds must be at most 60: the service forgets a revocation 60 s after/,
      });
    }
    // A revoked token 61 s past its exp, whose entry the feed (and the verifier's list) has forgotten.
    const now = Math.floor(Date.now() / 1000);
    const claims = embedClaims({ sub: 'zeta', iat: now - 700, exp: now - 61 });
    fixture.service.revoke({
      session_id: claims.jti as string,
      user_group_id: 'zeta',
      expires_at: new Date((now - 1) * 1000).toISOString(),
    });
    const verifier = verifierWith({ clockToleranceSeconds: MAX_CLOCK_TOLERANCE_SECONDS });
    await assert.rejects(
      verifier.verify(await signEmbedToken(fixture.key, claims)),
      (e: unknown) => e instanceof EmbedTokenError && e.code === 'token_expired',
    );
    assert.equal(verifier.status().revocations.revokedSessions, 0, 'the entry is gone: only the tolerance cap keeps the token refused');
  });

  it('verify() after close() throws; close() may be called twice', async () => {
    const verifier = verifierWith();
    await verifier.close();
    await verifier.close();
    await assert.rejects(verifier.verify(await signEmbedToken(fixture.key)), /closed/);
  });

  for (const close of [true, false]) {
    it(`never keeps a process alive (${close ? 'closed: no timer runs after close()' : "not closed: its timer is unref'd"})`, async () => {
      const child = spawn(process.execPath, [fileURLToPath(new URL('./verifier-exit-child.js', import.meta.url))], {
        env: {
          ...process.env,
          EMBED_SERVICE_URL: fixture.service.url,
          EMBED_API_KEY: FEED_API_KEY,
          EMBED_TOKEN: await signEmbedToken(fixture.key),
          EMBED_CLOSE: close ? '1' : '0',
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      const bound = setTimeout(() => child.kill('SIGKILL'), 30_000);
      const [code, signal] = await new Promise<[number | null, string | null]>((resolve) => child.on('exit', (c, s) => resolve([c, s])));
      clearTimeout(bound);
      assert.equal(signal, null, 'the child had to be killed: something kept it alive');
      assert.equal(code, 0);
      const report = JSON.parse(stdout.trim()) as { sub: string; timers: number };
      assert.equal(report.sub, 'acme');
      assert.equal(report.timers === 0, close, `${report.timers} timers created in 300 ms after ${close ? 'close()' : 'the first polls'}`);
    });
  }
});
