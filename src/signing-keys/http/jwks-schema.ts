import { Type } from '@sinclair/typebox';
import { SIGNING_ALGORITHMS } from '../../kernel/embed-tokens.js';

/** The JWKS part of the wire: what /.well-known/jwks.json and /.well-known/jwks-testing.json answer. */
export const Jwks = Type.Object({
  keys: Type.Array(
    Type.Object(
      { kty: Type.String(), kid: Type.String(), alg: Type.String(), use: Type.Literal('sig') },
      { additionalProperties: true, description: 'A public JWK (RFC 7517): crv and x (and y) for EdDSA and ES256, n and e for RS256.' },
    ),
  ),
});

/**
 * `?alg=ES256`: only the keys of that algorithm. A verifier that knows fewer algorithms than the service has
 * published (jsonwebtoken with jwk-to-pem has no Ed25519, and one such key makes a whole set unreadable to it)
 * reads a set it can parse, through a rotation from one algorithm to another.
 */
export const JwksQuery = Type.Object({
  alg: Type.Optional(
    Type.Unsafe<(typeof SIGNING_ALGORITHMS)[number]>({
      type: 'string',
      enum: [...SIGNING_ALGORITHMS],
      description: 'Only the keys of this algorithm; every key when absent.',
    }),
  ),
});
