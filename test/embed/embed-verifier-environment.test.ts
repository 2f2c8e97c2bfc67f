import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { createEmbedVerifier, EmbedTokenError, type EmbedVerifier, type EmbedVerifierOptions } from 'user-group-service/embed';
import {
  embedClaims,
  FakeEmbedService,
  FEED_API_KEY,
  generateSigningKey,
  signEmbedToken,
  waitFor,
  type SigningKey,
} from './fake-embed-service.js';

type Environment = 'Customer' | 'Testing';

/** What the service mints for each environment: its own key, issuer and audience (the settings' defaults). */
const MINTED_AS: Record<Environment, { iss: string; aud: string }> = {
  Customer: { iss: 'user-group-service', aud: 'embedded-dashboards' },
  Testing: { iss: 'user-group-service-testing', aud: 'embedded-dashboards-testing' },
};

async function assertRefused(verifier: EmbedVerifier, token: string, message: RegExp): Promise<void> {
  await assert.rejects(verifier.verify(token), (e: unknown) => {
    assert.ok(e instanceof EmbedTokenError, String(e));
    assert.equal(e.code, 'token_invalid', e.message);
    assert.match(e.message, message);
    return true;
  });
}

/**
 * Each environment signs with its own keys, published at its own JWKS URL,
 * under its own issuer and audience. The verifier is configured for one
 * environment (Customer unless told otherwise) and refuses the other's tokens
 * at the signature; an API key of the other environment, whose revocation
 * feed cannot revoke the tokens it accepts, makes it refuse every token.
 */
describe('embed verifier: one environment, its own key set', () => {
  let service: FakeEmbedService;
  const keys = {} as Record<Environment, SigningKey>;
  const verifiers: EmbedVerifier[] = [];
  const verifierWith = (options: Partial<EmbedVerifierOptions> = {}) => {
    const verifier = createEmbedVerifier({ serviceUrl: service.url, revocationPollMs: 50, ...options });
    verifiers.push(verifier);
    return verifier;
  };
  /** A token as the service mints it for the environment; `claims` overrides, as a forger would. */
  const tokenOf = (environment: Environment, claims: Record<string, unknown> = {}, signer = keys[environment]) =>
    signEmbedToken(signer, embedClaims({ env: environment, ...MINTED_AS[environment], ...claims }));
  beforeEach(async () => {
    service = await FakeEmbedService.start();
    keys.Customer = await generateSigningKey('EdDSA');
    keys.Testing = await generateSigningKey('EdDSA');
    service.publish(keys.Customer);
    service.publishedTesting.push(keys.Testing);
  });
  afterEach(async () => {
    for (const verifier of verifiers.splice(0)) await verifier.close();
    await service.close();
  });

  it("is for Customer by default: accepts Customer tokens and refuses Testing ones at the signature, even ones claiming Customer's env, iss and aud", async () => {
    const verifier = verifierWith();
    assert.equal(verifier.status().environment, 'Customer');
    assert.equal((await verifier.verify(await tokenOf('Customer'))).env, 'Customer');
    await assertRefused(verifier, await tokenOf('Testing'), /signature|key/i);
    await assertRefused(verifier, await tokenOf('Testing', { env: 'Customer', ...MINTED_AS.Customer }), /signature|key/i);
  });

  it("with environment: Testing, reads /.well-known/jwks-testing.json, expects Testing's issuer and audience, and refuses Customer tokens", async () => {
    const verifier = verifierWith({ environment: 'Testing' });
    assert.equal(verifier.status().environment, 'Testing');
    assert.equal((await verifier.verify(await tokenOf('Testing'))).env, 'Testing');
    await assertRefused(verifier, await tokenOf('Customer'), /signature|key/i);
    await assertRefused(verifier, await tokenOf('Customer', { env: 'Testing', ...MINTED_AS.Testing }), /signature|key/i);
    assert.equal(service.jwksRequests, 0, "Customer's key set is never fetched");
  });

  it("checks each environment's own issuer and audience by default, and those given when given", async () => {
    for (const environment of ['Customer', 'Testing'] as const) {
      const other = environment === 'Customer' ? 'Testing' : 'Customer';
      const verifier = verifierWith({ environment });
      await assertRefused(verifier, await tokenOf(environment, { iss: MINTED_AS[other].iss }), /iss/);
      await assertRefused(verifier, await tokenOf(environment, { aud: MINTED_AS[other].aud }), /aud/);
      const custom = verifierWith({ environment, issuer: 'ugs-eu', audience: 'bi' });
      assert.equal((await custom.verify(await tokenOf(environment, { iss: 'ugs-eu', aud: 'bi' }))).sub, 'acme');
    }
  });

  it("refuses a token signed with the environment's key whose env names the other one, which the service never mints", async () => {
    await assertRefused(
      verifierWith(),
      await tokenOf('Customer', { env: 'Testing' }),
      /Testing environment; this verifier accepts Customer tokens only/,
    );
  });

  for (const [accepted, keyOf] of [
    ['Customer', 'Testing'],
    ['Testing', 'Customer'],
  ] as const) {
    it(`for ${accepted}, with an API key of ${keyOf}, refuses every token and says how to fix it`, async () => {
      service.environment = keyOf;
      const verifier = verifierWith({ environment: accepted, apiKey: FEED_API_KEY });
      const message = new RegExp(
        `accepts ${accepted} tokens, but its API key is a ${keyOf} key.*give it a ${accepted} API key, or set environment: '${keyOf}'`,
      );
      await assertRefused(verifier, await tokenOf(accepted), message);
      await assertRefused(verifier, await tokenOf(keyOf), /signature|key|API key/i);
      assert.equal(verifier.status().environment, accepted);
    });

    it(`for ${accepted}, with an API key of ${accepted}, accepts its tokens`, async () => {
      service.environment = accepted;
      const verifier = verifierWith({ environment: accepted, apiKey: FEED_API_KEY });
      assert.equal((await verifier.verify(await tokenOf(accepted))).env, accepted);
    });
  }

  it('refuses a cached token once the feed turns out to be of the other environment', async () => {
    const verifier = verifierWith({ apiKey: FEED_API_KEY });
    const token = await tokenOf('Customer');
    assert.equal((await verifier.verify(token)).env, 'Customer');
    service.environment = 'Testing';
    // A poll already in flight may still bring a Customer answer: wait for one that started after the switch.
    const switchedAt = Date.now();
    await waitFor('a poll started after the switch', () => (verifier.status().revocations.syncedAt?.getTime() ?? 0) > switchedAt);
    await assertRefused(verifier, token, /API key is a Testing key/);
  });

  it('refuses every token while the feed is down, before it has named its environment, then checks the environment', async () => {
    service.feedDown = true;
    const verifier = verifierWith({ apiKey: FEED_API_KEY });
    await assert.rejects(
      verifier.verify(await tokenOf('Customer')),
      (e: unknown) => e instanceof EmbedTokenError && e.code === 'revocations_unavailable',
    );
    service.environment = 'Testing';
    service.feedDown = false;
    await waitFor('the feed to be read', () => verifier.status().revocations.syncedAt !== null);
    await assertRefused(verifier, await tokenOf('Customer'), /API key is a Testing key/);
  });

  it('counts a feed answer that does not name its environment as a failed poll, and so refuses every token', async () => {
    service.environment = undefined;
    const verifier = verifierWith({ apiKey: FEED_API_KEY });
    await assert.rejects(
      verifier.verify(await tokenOf('Customer')),
      (e: unknown) => e instanceof EmbedTokenError && e.code === 'revocations_unavailable' && /environment/.test(e.message),
    );
    await waitFor('a failed poll', () => verifier.status().revocations.lastError !== null);
    const status = verifier.status();
    assert.match(status.revocations.lastError ?? '', /environment/);
    assert.equal(status.revocations.syncedAt, null);
    assert.equal(status.environment, 'Customer');
  });

  it('refuses an environment option other than Customer or Testing with a TypeError', () => {
    for (const environment of ['Production', 'customer', '']) {
      assert.throws(
        () => createEmbedVerifier({ serviceUrl: service.url, environment } as unknown as EmbedVerifierOptions),
        TypeError,
        environment,
      );
    }
  });
});
