import { Type } from '@sinclair/typebox';

/** The JWKS part of the wire: what /.well-known/jwks.json and /.well-known/jwks-testing.json answer. */
export const Jwks = Type.Object({
  keys: Type.Array(
    Type.Object(
      { kty: Type.String(), kid: Type.String(), alg: Type.String(), use: Type.Literal('sig') },
      { additionalProperties: true, description: 'A public JWK (RFC 7517): crv and x (and y) for EdDSA and ES256, n and e for RS256.' },
    ),
  ),
});
