import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { createEmbedVerifier, EmbedTokenError, type EmbedVerifier, type EmbedVerifierOptions } from 'user-group-service/embed';
import { embedClaims, FakeEmbedService, FEED_API_KEY, generateSigningKey, signEmbedToken, waitFor, type SigningKey } from './fake-embed-service.js';

/**
 * A key sees only its environment's revocations, so a verifier polling the
 * Customer feed never hears that a Testing session ended: it must refuse
 * Testing tokens outright rather than accept them until they expire.
 */
async function assertOtherEnvironment(verifier: EmbedVerifier, token: string, ...named: string[]): Promise<void> {
  await assert.rejects(verifier.verify(token), (e: unknown) => {
    assert.ok(e instanceof EmbedTokenError, String(e));
    assert.equal(e.code, 'token_invalid', e.message);
    for (const environment of named) assert.match(e.message, new RegExp(environment), e.message);
    return true;
  });
}

describe('embed verifier: the environment its revocations cover', () => {
  let service: FakeEmbedService;
  let key: SigningKey;
  const verifiers: EmbedVerifier[] = [];
  const verifierWith = (options: Partial<EmbedVerifierOptions> = {}) => {
    const verifier = createEmbedVerifier({ serviceUrl: service.url, apiKey: FEED_API_KEY, revocationPollMs: 50, ...options });
    verifiers.push(verifier);
    return verifier;
  };
  const tokenOf = (env: 'Customer' | 'Testing') => signEmbedToken(key, embedClaims({ env }));
  beforeEach(async () => {
    service = await FakeEmbedService.start();
    key = await generateSigningKey('EdDSA');
    service.publish(key);
  });
  afterEach(async () => {
    for (const verifier of verifiers.splice(0)) await verifier.close();
    await service.close();
  });

  for (const [feed, other] of [
    ['Customer', 'Testing'],
    ['Testing', 'Customer'],
  ] as const) {
    it(`with an API key of ${feed}, accepts ${feed} tokens and refuses ${other} ones, naming both environments`, async () => {
      service.environment = feed;
      const verifier = verifierWith();
      assert.equal((await verifier.verify(await tokenOf(feed))).env, feed);
      await assertOtherEnvironment(verifier, await tokenOf(other), feed, other);
      assert.equal(verifier.status().environment, feed);
    });
  }

  it('never accepts a token of the other environment while the feed is down, before it has named its environment', async () => {
    service.feedDown = true;
    const verifier = verifierWith();
    const testing = await tokenOf('Testing');
    await assert.rejects(verifier.verify(testing), (e: unknown) => e instanceof EmbedTokenError && e.code === 'revocations_unavailable');
    assert.equal(verifier.status().environment, null);
    service.feedDown = false;
    await waitFor('the feed to be read', () => verifier.status().revocations.syncedAt !== null);
    await assertOtherEnvironment(verifier, testing, 'Customer', 'Testing');
    assert.equal((await verifier.verify(await tokenOf('Customer'))).env, 'Customer');
  });

  it('pins the environment without an API key with the environment option', async () => {
    const verifier = verifierWith({ apiKey: undefined, environment: 'Testing' });
    assert.equal((await verifier.verify(await tokenOf('Testing'))).env, 'Testing');
    await assertOtherEnvironment(verifier, await tokenOf('Customer'), 'Testing', 'Customer');
    assert.equal(verifier.status().environment, 'Testing');
    assert.equal(service.feedRequests, 0);
  });

  it('refuses every token when the pinned environment is not the one the API key reads, naming both', async () => {
    service.environment = 'Testing';
    const verifier = verifierWith({ environment: 'Customer' });
    await assertOtherEnvironment(verifier, await tokenOf('Customer'), 'Customer', 'Testing');
    await assertOtherEnvironment(verifier, await tokenOf('Testing'), 'Customer', 'Testing');
  });

  it('counts a feed answer that does not name its environment as a failed poll, and so refuses every token', async () => {
    service.environment = undefined;
    const verifier = verifierWith();
    await assert.rejects(verifier.verify(await tokenOf('Customer')), (e: unknown) => e instanceof EmbedTokenError && e.code === 'revocations_unavailable' && /environment/.test(e.message));
    const status = verifier.status();
    assert.match(status.revocations.lastError ?? '', /environment/);
    assert.equal(status.revocations.syncedAt, null);
    assert.equal(status.environment, null);
  });

  it('refuses an environment option other than Customer or Testing with a TypeError', () => {
    for (const environment of ['Production', 'customer', '']) {
      assert.throws(() => createEmbedVerifier({ serviceUrl: service.url, environment } as unknown as EmbedVerifierOptions), TypeError, environment);
    }
  });
});
