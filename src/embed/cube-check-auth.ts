import type { EmbedClaims } from './embed-claims.js';
import { EmbedTokenError, type EmbedTokenErrorCode } from './embed-errors.js';
import { createEmbedVerifier, type EmbedVerifierStatus } from './embed-verifier.js';
import type { EmbedVerifierOptions } from './embed-verifier-options.js';
import { cubesHandlerError, type CubeHandlerErrorClass } from './cube-handler-error.js';

export type { CubeHandlerErrorClass } from './cube-handler-error.js';

export interface CubeCheckAuthOptions extends EmbedVerifierOptions {
  /** Required here: the revocation feed is what this check adds to Cube's own. */
  apiKey: string;
  /**
   * Cube's error class, `require('@cubejs-backend/api-gateway').CubejsHandlerError` in cube.js. Without it, the class is
   * looked up from Cube's working directory as cube.js would require it; if it cannot be found there, refusals are
   * plain errors, which Cube answers with a 500 (still refused, never let through).
   */
  CubejsHandlerError?: CubeHandlerErrorClass;
}

/** What Cube hands checkAuth: its request, on which the function sets `securityContext`. */
export interface CubeAuthRequest {
  securityContext?: unknown;
}

/** Cube's `checkAuth(req, auth)`, with the verifier's status and close for a health endpoint and shutdown. */
export interface CubeCheckAuth {
  (req: CubeAuthRequest, auth?: string): Promise<void>;
  /** Where the class of its refusals came from: `fallback` means Cube answers them with a 500, not a 403. */
  readonly errorClass: 'given' | 'found in Cube' | 'fallback';
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
 * (signature, claims, and the revocation feed, so a session ended by DELETE is refused before its exp) and sets
 * `req.securityContext` to a writable copy of the claims (Cube and its hooks write into it). Cube passes the
 * Authorization header without its scheme; a `Bearer ` left on it is taken off. Refusals are Cube's own error: 403
 * for an expired, ended or invalid session, 503 while revocations cannot be read (fails closed). The verifier's own
 * reason goes in the error's originalError, which Cube logs and does not answer.
 */
export function createCubeCheckAuth(options: CubeCheckAuthOptions): CubeCheckAuth {
  const { CubejsHandlerError: given, ...verifierOptions } = options;
  if (typeof options.apiKey !== 'string' || options.apiKey === '') {
    throw new TypeError(
      "createCubeCheckAuth needs apiKey (a dashboard key of the environment) to read the revocation feed: without it an ended session stays good until its exp, which Cube's built-in check already gives",
    );
  }
  if (given !== undefined && typeof given !== 'function') {
    throw new TypeError("CubejsHandlerError must be Cube's class: require('@cubejs-backend/api-gateway').CubejsHandlerError");
  }
  const found = given ?? cubesHandlerError();
  const HandlerError = found ?? CubeAuthRefusal;
  const verifier = createEmbedVerifier(verifierOptions);
  const checkAuth = async (req: CubeAuthRequest, auth?: string): Promise<void> => {
    const token = typeof auth === 'string' ? auth.replace(/^Bearer\s+/i, '') : '';
    if (token === '') throw new HandlerError(403, 'Forbidden', 'No embed token: send it in the Authorization header');
    let claims: EmbedClaims;
    try {
      claims = await verifier.verify(token);
    } catch (error) {
      if (error instanceof EmbedTokenError) throw new HandlerError(...REFUSALS[error.code], error);
      // Not the token's fault and not a reason to let it through: Cube answers this one with a 500 too.
      throw new HandlerError(500, 'Internal Server Error', 'The embed token could not be checked', error as Error);
    }
    req.securityContext = structuredClone(claims);
  };
  const errorClass = given ? 'given' : found ? 'found in Cube' : 'fallback';
  return Object.assign(checkAuth, { errorClass, status: () => verifier.status(), close: () => verifier.close() } as const);
}

/** The refusal when Cube's class is nowhere: what Cube reads of its own (status, type, message), but Cube answers 500. */
class CubeAuthRefusal extends Error {
  override name = 'CubeAuthRefusal';

  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
    readonly originalError?: Error,
  ) {
    super(message);
  }
}
