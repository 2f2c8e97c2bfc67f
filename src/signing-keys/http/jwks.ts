import type { Static } from '@sinclair/typebox';
import { ENVIRONMENTS } from '../../kernel/environment.js';
import type { SigningKeyring } from '../signing-keys.js';
import { Jwks, JwksQuery } from './jwks-schema.js';
import { queryValidatorCompiler } from '../../platform/http/query-validator.js';
import { JWKS_PATHS } from './jwks-paths.js';
import { ANY_REQUEST_ERRORS, BODY_ERRORS, documented, errorAnswers } from '../../platform/http/route-docs.js';
import type { TypedApp } from '../../platform/http/typed-app.js';

/** GET /.well-known/jwks.json and /.well-known/jwks-testing.json: each environment's public keys, for any verifier; no key needed. */
export function registerJwks(app: TypedApp, signingKeys: SigningKeyring): void {
  for (const environment of ENVIRONMENTS) {
    const keys = signingKeys[environment];
    const maxAgeSeconds = keys.jwksMaxAgeSeconds;
    app.get(JWKS_PATHS[environment], {
      schema: {
        summary: `${environment} embed token signing keys (JWKS)`,
        description: `Every public key a live ${environment} embed token may be signed with, and the next one before it signs; never a key of the other environment. \`?alg=ES256\` (or EdDSA, RS256) keeps only that algorithm's keys, for a verifier that cannot read the others. Cacheable for ${maxAgeSeconds} s (UGS_EMBED_JWKS_MAX_AGE_SECONDS); refetch on an unknown kid.`,
        tags: ['Embed sessions'],
        security: [],
        querystring: JwksQuery,
        response: {
          200: documented(Jwks, {
            description: `The published ${environment} keys.`,
            examples: {
              keys: {
                summary: 'One P-256 key (ES256, the default algorithm)',
                value: {
                  keys: [
                    {
                      kty: 'EC',
                      crv: 'P-256',
                      x: 'IS_6QmL_KoKHgm0QHJkhmwRMqPRpihBbfcZ7Q2NBUBQ',
                      y: 'LXAIPZhNiZSQ7ISLUeTlNrNMfABWBltHGHyLtqMUZY4',
                      kid: 'K81U3VulZ7mCZL0FNSSTrVJdV-3gjK0Icq2lBWxc5Yg',
                      alg: 'ES256',
                      use: 'sig',
                    },
                  ],
                },
              },
            },
          }),
          ...errorAnswers(ANY_REQUEST_ERRORS, BODY_ERRORS),
        },
      },
      validatorCompiler: queryValidatorCompiler,
      handler: async (request, reply) => {
        reply.header('cache-control', `public, max-age=${maxAgeSeconds}`);
        // Every stored JWK was written by generateSigningKeyPair with kty, kid, alg and use set.
        const jwks = keys.jwks() as Static<typeof Jwks>;
        const { alg } = request.query;
        return alg === undefined ? jwks : { keys: jwks.keys.filter((key) => key.alg === alg) };
      },
    });
  }
}
