import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import { buildForSuite } from '../helpers/build.js';
import { mintToken } from '../helpers/embed-sessions.js';

/**
 * docs/integrations/grafana.md's [auth.jwt] block, read from the page, against a live service: the JWKS at its
 * jwk_set_url path verifies a minted token, and the token meets its expect_claims and the claim types Grafana's
 * check requires (pkg/services/auth/jwt/validation.go: iss and sub strings, aud a string or strings, exp, nbf and
 * iat numbers). Grafana itself does not run here.
 */
const page = readFileSync(new URL('../../../docs/integrations/grafana.md', import.meta.url), 'utf8');
const block = /```ini\n([\s\S]*?)```/.exec(page)?.[1] ?? '';
const setting = (name: string) => new RegExp(`^${name} = (.*)$`, 'm').exec(block)?.[1];

describe("Grafana's JWT sign-in as docs/integrations/grafana.md configures it", () => {
  const server = buildForSuite({ embed: { algorithm: 'ES256' } });

  it('verifies a minted token with the documented key set and expected claims', async () => {
    const jwksUrl = new URL(setting('jwk_set_url') ?? '');
    assert.equal(`${jwksUrl.pathname}${jwksUrl.search}`, '/.well-known/jwks.json?alg=ES256');
    const expected = JSON.parse(setting('expect_claims') ?? '{}') as { iss: string; aud: string };
    assert.deepEqual(expected, { iss: 'user-group-service', aud: 'embedded-dashboards' });
    assert.equal(setting('username_claim'), 'sub');
    assert.equal(setting('url_login'), 'true');

    await server.api.getOrCreate({ user_group_id: 'acme', name: 'Acme' });
    const token = await mintToken(server.api, 'acme');
    const { payload } = await jwtVerify(token, createRemoteJWKSet(new URL(`${jwksUrl.pathname}${jwksUrl.search}`, server.url)), {
      issuer: expected.iss,
      audience: expected.aud,
    });
    assert.equal(payload.sub, 'acme');
    for (const claim of ['exp', 'iat'] as const) assert.equal(typeof payload[claim], 'number');
    assert.ok(payload.nbf === undefined || typeof payload.nbf === 'number');
    assert.equal(typeof decodeJwt(token).iss, 'string');
  });
});
