import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EmbedTokenError, type EmbedVerifier } from 'user-group-service/embed';
import { embedClaims, verifierFixture, generateSigningKey, signEmbedToken } from './fake-embed-service.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Tokens whose kid the service never published: each would make a naive verifier fetch the JWKS. */
async function unknownKidTokens(count: number): Promise<string[]> {
  const stranger = await generateSigningKey('EdDSA');
  return Promise.all(Array.from({ length: count }, (_, i) => signEmbedToken({ ...stranger, kid: `unknown-${i}` })));
}

/** Verifies them all at once; every one must be refused as invalid. */
async function storm(verifier: EmbedVerifier, tokens: string[]): Promise<void> {
  const outcomes = await Promise.allSettled(tokens.map((token) => verifier.verify(token)));
  for (const outcome of outcomes) {
    assert.equal(outcome.status, 'rejected');
    assert.ok(outcome.reason instanceof EmbedTokenError && outcome.reason.code === 'token_invalid', String(outcome.reason));
  }
}

describe('embed verifier: the published keys', () => {
  const fixture = verifierFixture({});
  const { verifierWith } = fixture;

  it('fetches the key set on first use only, not per token', async () => {
    const verifier = verifierWith();
    for (let i = 0; i < 5; i++) await verifier.verify(await signEmbedToken(fixture.key));
    assert.equal(fixture.service.jwksRequests, 1);
  });

  it('fetches the key set again for a key published after its first fetch, once the cooldown passed, and accepts it', async () => {
    const cooldownMs = 1500;
    const verifier = verifierWith({ jwksCooldownMs: cooldownMs });
    await verifier.verify(await signEmbedToken(fixture.key));
    assert.equal(fixture.service.jwksRequests, 1);

    const rotated = await generateSigningKey('ES256');
    fixture.service.publish(rotated);
    await sleep(cooldownMs + 100);
    const claims = await verifier.verify(await signEmbedToken(rotated, embedClaims({ sub: 'rotated' })));
    assert.equal(claims.sub, 'rotated');
    assert.equal(fixture.service.jwksRequests, 2, 'one refetch for the unknown kid');
    await verifier.verify(await signEmbedToken(rotated));
    assert.equal(fixture.service.jwksRequests, 2, 'the new key is cached');
    assert.equal(verifier.status().keys.keys, 2);

    // Past the cooldown again, a storm of unknown kids costs one fetch, not one per token.
    const tokens = await unknownKidTokens(100);
    await sleep(cooldownMs + 100);
    await storm(verifier, tokens);
    assert.equal(fixture.service.jwksRequests, 3);
  });

  it('does not fetch the key set for a storm of unknown kids within the cooldown', async () => {
    const verifier = verifierWith({ jwksCooldownMs: 60_000 });
    await verifier.verify(await signEmbedToken(fixture.key));
    await storm(verifier, await unknownKidTokens(200));
    assert.equal(fixture.service.jwksRequests, 1);
  });

  it('keeps the keys in hand while the key set cannot be fetched, and says why in status()', async () => {
    const cooldownMs = 1000;
    const verifier = verifierWith({ jwksCooldownMs: cooldownMs });
    await verifier.verify(await signEmbedToken(fixture.key));
    fixture.service.jwksDown = true;
    await sleep(cooldownMs + 100);
    const [unknown] = await unknownKidTokens(1);
    const error = await verifier.verify(unknown!).catch((e: unknown) => e);
    assert.ok(error instanceof EmbedTokenError && error.code === 'token_invalid');
    assert.match(error.message, /keys could not be fetched.*HTTP 503/);
    assert.equal(fixture.service.jwksRequests, 2);
    assert.match(verifier.status().keys.lastError ?? '', /HTTP 503/);
    for (const token of await unknownKidTokens(20)) await storm(verifier, [token]);
    assert.equal(fixture.service.jwksRequests, 2, 'no new attempt before the backoff');
    // A token signed by a key already known needs no fetch: the outage does not refuse it.
    assert.equal((await verifier.verify(await signEmbedToken(fixture.key, embedClaims({ sub: 'during-outage' })))).sub, 'during-outage');
    assert.equal(fixture.service.jwksRequests, 2);
  });

  it('retries a key set it could never fetch only after a backoff, then recovers', async () => {
    fixture.service.jwksDown = true;
    const verifier = verifierWith({ jwksCooldownMs: 60_000 });
    const tokens = await Promise.all(Array.from({ length: 50 }, () => signEmbedToken(fixture.key)));
    await storm(verifier, tokens);
    // One after the other too: each would find the last fetch failed, not one under way.
    for (const token of tokens) await storm(verifier, [token]);
    assert.equal(fixture.service.jwksRequests, 1, 'verifications during an outage cost one request, not one each');
    assert.equal(verifier.status().keys.fetchedAt, null);

    fixture.service.jwksDown = false;
    // The backoff after a failure is 5 s (or the cooldown when shorter).
    await sleep(5_100);
    assert.equal((await verifier.verify(tokens[0]!)).sub, 'acme');
    assert.equal(fixture.service.jwksRequests, 2);
  });
});
