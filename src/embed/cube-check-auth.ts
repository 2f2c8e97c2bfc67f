import type { EmbedClaims } from './embed-claims.js';
import { EmbedTokenError, type EmbedTokenErrorCode } from './embed-errors.js';
import { createEmbedVerifier, type EmbedVerifierStatus } from './embed-verifier.js';
import type { EmbedVerifierOptions } from './embed-verifier-options.js';

/**
 * Cube's error class, `require('@cubejs-backend/api-gateway').CubejsHandlerError`: Cube's gateway answers an error
 * thrown by checkAuth with its `status` only when it is an instance of that very class; anything else becomes a
 * 500 (packages/cubejs-api-gateway/src/gateway.ts, checkAuthWrapper). Passed in, so this package needs no Cube.
 */
export type CubeHandlerErrorClass = new (status: number, type: string, message: string) => Error;

export interface CubeCheckAuthOptions extends EmbedVerifierOptions {
  CubejsHandlerError: CubeHandlerErrorClass;
}

/** What Cube hands checkAuth: its request, on which the function sets `securityContext`. */
export interface CubeAuthRequest {
  securityContext?: unknown;
}

/** Cube's `checkAuth(req, auth)`, with the verifier's status and close for a health endpoint and shutdown. */
export interface CubeCheckAuth {
  (req: CubeAuthRequest, auth?: string): Promise<void>;
  status(): EmbedVerifierStatus;
  close(): Promise<void>;
}

/** Cube answers the message as `{"error": …}`: it says why, never what the token holds. */
const REFUSALS: Record<EmbedTokenErrorCode, [status: number, type: string, message: string]> = {
  token_expired: [403, 'Forbidden', 'The embed session has expired'],
  token_revoked: [403, 'Forbidden', 'The embed session has been ended'],
  token_invalid: [403, 'Forbidden', 'Invalid embed token'],
  // No fault of the token: the revocations cannot be read now, so no session is trusted until they can.
  revocations_unavailable: [503, 'Service Unavailable', 'Embed sessions cannot be checked for revocation right now; retry shortly'],
};

/**
 * A Cube `checkAuth` that accepts this service's embed sessions: it verifies the token with the package verifier
 * (signature, claims, and with an `apiKey` the revocation feed, so a session ended by DELETE is refused before its
 * exp) and sets `req.securityContext` to a writable copy of the claims (Cube and its hooks write into it). Cube
 * passes the Authorization header without its scheme; a `Bearer ` left on it is taken off. Refusals are Cube's own
 * 403 (503 while revocations cannot be read), so Cube answers them as it answers its built-in check's.
 */
export function createCubeCheckAuth(options: CubeCheckAuthOptions): CubeCheckAuth {
  const { CubejsHandlerError, ...verifierOptions } = options;
  if (typeof CubejsHandlerError !== 'function') {
    throw new TypeError(
      "createCubeCheckAuth needs Cube's error class: { CubejsHandlerError } from require('@cubejs-backend/api-gateway'), or Cube answers every refusal with a 500",
    );
  }
  const verifier = createEmbedVerifier(verifierOptions);
  const checkAuth = async (req: CubeAuthRequest, auth?: string): Promise<void> => {
    const token = typeof auth === 'string' ? auth.replace(/^Bearer\s+/i, '') : '';
    if (token === '') throw new CubejsHandlerError(403, 'Forbidden', 'No embed token: send it in the Authorization header');
    let claims: EmbedClaims;
    try {
      claims = await verifier.verify(token);
    } catch (error) {
      if (!(error instanceof EmbedTokenError)) throw error;
      throw new CubejsHandlerError(...REFUSALS[error.code]);
    }
    req.securityContext = structuredClone(claims);
  };
  return Object.assign(checkAuth, { status: () => verifier.status(), close: () => verifier.close() });
}
