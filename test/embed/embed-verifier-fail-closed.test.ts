import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createEmbedVerifier, EmbedTokenError, type EmbedVerifier } from 'user-group-service/embed';
import { resolveVerifierOptions } from '../../src/embed/embed-verifier-options.js';
import { embedClaims, FakeEmbedService, verifierFixture, FEED_API_KEY, signEmbedToken, waitFor } from './fake-embed-service.js';

/** verify()'s refusal while the revocations are unknown; its message, checked never to quote the token or the API key. */
async function unavailable(verifier: EmbedVerifier, token: string, apiKey = FEED_API_KEY): Promise<string> {
  const error = await verifier.verify(token).then(
    () => assert.fail('the token was accepted while the revocations are unknown'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof EmbedTokenError, String(error));
  assert.equal(error.code, 'revocations_unavailable', error.message);
  assert.ok(!error.message.includes(token) && !error.message.includes(apiKey), error.message);
  if (process.env.SHOW_MESSAGES) console.log(error.message);
  return error.message;
}

describe('embed verifier with an API key: fails closed while its revocations are unknown', () => {
  const fixture = verifierFixture({ apiKey: FEED_API_KEY, revocationPollMs: 50 });
  const { verifierWith } = fixture;

  it('refuses every token until the feed has been read once (503: says it passes once the feed answers), then accepts them', async () => {
    fixture.service.feedDown = true;
    const verifier = verifierWith();
    const token = await signEmbedToken(fixture.key);
    const message = await unavailable(verifier, token);
    assert.match(
      message,
      /the revocation feed has never been read \(the revocation feed answered HTTP 503 \(unavailable\)\); every token is refused until it is read again \(retried every 50 ms\)/,
    );
    assert.doesNotMatch(message, /API key/);
    assert.equal(fixture.service.jwksRequests, 0, 'no signature is checked for a token refused anyway');
    assert.deepEqual(
      { ...verifier.status().revocations, lastErrorAt: null },
      {
        enabled: true,
        syncedAt: null,
        lastError: 'the revocation feed answered HTTP 503 (unavailable)',
        lastErrorAt: null,
        revokedSessions: 0,
        revokedTokenVersions: 0,
        revokedViewers: 0,
        stale: true,
        apiKeyRefused: false,
      },
    );

    fixture.service.feedDown = false;
    await waitFor('the feed to be read', () => verifier.status().revocations.syncedAt !== null);
    assert.equal((await verifier.verify(token)).sub, 'acme');
    assert.equal(verifier.status().revocations.stale, false);
  });

  it('refuses every token when nothing answers (a closed port), naming the network error, and accepts them once the service is up', async () => {
    const port = Number(new URL(fixture.service.url).port);
    await fixture.service.close();
    const verifier = verifierWith();
    const token = await signEmbedToken(fixture.key);
    assert.match(
      await unavailable(verifier, token),
      /has never been read \(fetch failed: ECONNREFUSED\); every token is refused until it is read again/,
    );
    assert.match(await unavailable(verifier, token), /ECONNREFUSED/, 'refused again, not waiting on anything');

    fixture.service = await FakeEmbedService.start(port);
    fixture.service.publish(fixture.key);
    await waitFor('the feed to be read', () => verifier.status().revocations.syncedAt !== null);
    assert.equal((await verifier.verify(token)).sub, 'acme');
  });

  for (const status of [401, 403] as const) {
    it(`says a key the feed refuses (${status}) is wrong or revoked and will not pass by itself, also once answers turn to 429`, async () => {
      fixture.service.feedFailure = status;
      const verifier = verifierWith();
      const token = await signEmbedToken(fixture.key);
      const message = await unavailable(verifier, token);
      assert.match(
        message,
        new RegExp(
          `refuses this verifier's API key \\(the revocation feed answered HTTP ${status} \\((unauthenticated|forbidden)\\)\\): the key is wrong, revoked or not allowed to read the feed, which will not pass by itself`,
        ),
      );
      assert.match(message, /give the verifier a valid API key/);
      assert.equal(verifier.status().revocations.apiKeyRefused, true);
      // The service throttles an address whose authentications keep failing: still the key's fault.
      fixture.service.feedFailure = 429;
      await waitFor('a throttled poll', () => /HTTP 429/.test(verifier.status().revocations.lastError ?? ''));
      assert.match(
        await unavailable(verifier, token),
        new RegExp(
          `refuses this verifier's API key \\(the revocation feed answered HTTP ${status} \\(\\w+\\); since: the revocation feed answered HTTP 429 \\(rate_limited\\)\\): the key is wrong`,
        ),
      );

      fixture.service.feedFailure = undefined;
      await waitFor('the feed to be read', () => verifier.status().revocations.syncedAt !== null);
      assert.equal((await verifier.verify(token)).sub, 'acme');
      assert.equal(verifier.status().revocations.apiKeyRefused, false);
    });
  }

  it('refuses with a key the service does not know at all, never quoting it', async () => {
    const apiKey = 'ugsk_not_a_key_of_this_service';
    const verifier = verifierWith({ apiKey });
    const message = await unavailable(verifier, await signEmbedToken(fixture.key), apiKey);
    assert.match(message, /HTTP 401 \(unauthenticated\)\): the key is wrong, revoked or not allowed to read the feed/);
    assert.ok(!verifier.status().revocations.lastError!.includes(apiKey));
  });

  it('refuses a token it verified and cached once the last good read is older than maxRevocationStalenessMs, and one revoked meanwhile stays refused', async () => {
    const verifier = verifierWith({ maxRevocationStalenessMs: 1000 });
    const claims = embedClaims({ sub: 'eta' });
    const token = await signEmbedToken(fixture.key, claims);
    const other = await signEmbedToken(fixture.key, embedClaims({ sub: 'theta' }));
    assert.equal((await verifier.verify(token)).sub, 'eta');
    assert.equal((await verifier.verify(other)).sub, 'theta');
    assert.equal(verifier.status().cachedTokens, 2);

    fixture.service.feedDown = true;
    fixture.service.revoke({ session_id: claims.jti as string, user_group_id: 'eta' });
    await waitFor('the revocations to go stale', () => verifier.status().revocations.stale);
    const message = await unavailable(verifier, token);
    assert.match(
      message,
      /the revocation feed was last read at \S+Z, more than maxRevocationStalenessMs \(1000 ms\) ago \(the revocation feed answered HTTP 503 \(unavailable\)\)/,
    );
    await unavailable(verifier, other);

    fixture.service.feedDown = false;
    await waitFor('the feed to be read again', () => !verifier.status().revocations.stale);
    await assert.rejects(verifier.verify(token), (e: unknown) => e instanceof EmbedTokenError && e.code === 'token_revoked');
    assert.equal((await verifier.verify(other)).sub, 'theta');
  });

  it('without an API key, nothing changes: no feed is read, tokens are accepted whatever the feed would answer', async () => {
    for (const [down, failure] of [
      [true, undefined],
      [false, 401],
    ] as const) {
      fixture.service.feedDown = down;
      fixture.service.feedFailure = failure;
      const verifier = verifierWith({ apiKey: undefined, maxRevocationStalenessMs: 100 });
      assert.equal((await verifier.verify(await signEmbedToken(fixture.key))).sub, 'acme');
      assert.equal(verifier.status().revocations.stale, false);
      assert.equal(verifier.status().revocations.enabled, false);
    }
    assert.equal(fixture.service.feedRequests, 0);
  });

  it('defaults maxRevocationStalenessMs to six polls and at least a minute, and refuses less than two polls with a TypeError', () => {
    assert.equal(resolveVerifierOptions({ serviceUrl: fixture.service.url }).maxRevocationStalenessMs, 60_000);
    assert.equal(resolveVerifierOptions({ serviceUrl: fixture.service.url, revocationPollMs: 50 }).maxRevocationStalenessMs, 60_000);
    assert.equal(resolveVerifierOptions({ serviceUrl: fixture.service.url, revocationPollMs: 30_000 }).maxRevocationStalenessMs, 180_000);
    assert.equal(
      resolveVerifierOptions({ serviceUrl: fixture.service.url, revocationPollMs: 50, maxRevocationStalenessMs: 100 })
        .maxRevocationStalenessMs,
      100,
    );
    for (const maxRevocationStalenessMs of [0, 99, -1, 150.5, Number.NaN, Number.POSITIVE_INFINITY, '1000' as unknown as number]) {
      assert.throws(
        () =>
          createEmbedVerifier({ serviceUrl: fixture.service.url, apiKey: FEED_API_KEY, revocationPollMs: 50, maxRevocationStalenessMs }),
        {
          name: 'TypeError',
          message: /maxRevocationStalenessMs must be an integer of at least twice revocationPollMs \(100\)/,
        },
      );
    }
    assert.equal(fixture.service.feedRequests, 0);
  });
});
