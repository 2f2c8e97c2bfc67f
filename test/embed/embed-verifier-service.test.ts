import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { createEmbedVerifier, EmbedTokenError, type EmbedVerifier } from 'user-group-service/embed';
import { UserGroupClient } from '../../src/client/user-group-client.js';
import { buildForSuite } from '../helpers/build.js';
import { waitFor } from './fake-embed-service.js';

/** The verifier against the service itself: what its feed really answers a revoked key. */
describe('embed verifier against the service: a revoked API key', () => {
  // Before the server's own teardown, which buildForSuite registers: what uses the server stops first.
  after(async () => {
    for (const verifier of verifiers) await verifier.close();
  });
  const service = buildForSuite({ apiKey: false });
  const verifiers: EmbedVerifier[] = [];

  it('refuses every token once the feed has refused the key for longer than maxRevocationStalenessMs, saying the key is wrong or revoked', async () => {
    const { key, record } = await service.services.apiKeys.create({ environment: 'Customer', access: 'read-write' });
    const client = new UserGroupClient({ baseUrl: service.url, apiKey: key, retries: 0 });
    await client.getOrCreate({ user_group_id: 'acme', name: 'Acme' });
    const { token } = await client.mintEmbedSession({ user_group_id: 'acme' });
    const verifier = createEmbedVerifier({ serviceUrl: service.url, apiKey: key, revocationPollMs: 50, maxRevocationStalenessMs: 500 });
    verifiers.push(verifier);
    assert.equal((await verifier.verify(token)).sub, 'acme');

    await service.services.apiKeys.revoke(record.id);
    await waitFor('the revocations to go stale', () => verifier.status().revocations.stale);
    const error = await verifier.verify(token).catch((e: unknown) => e);
    assert.ok(error instanceof EmbedTokenError && error.code === 'revocations_unavailable', String(error));
    // The service's failed-authentication throttle may answer 429 after a few polls: the 401 is what is named.
    assert.match(
      error.message,
      /refuses this verifier's API key \(the revocation feed answered HTTP 401 \(unauthenticated\)(; since: [^)]*HTTP 429 \(rate_limited\))?\): the key is wrong, revoked or not allowed/,
    );
    assert.ok(!error.message.includes(key) && !error.message.includes(token));
    assert.equal(verifier.status().revocations.apiKeyRefused, true);
  });
});
