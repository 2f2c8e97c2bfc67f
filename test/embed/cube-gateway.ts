import jsonwebtoken from 'jsonwebtoken';
import jwkToPem from 'jwk-to-pem';

/**
 * Cube's side of docs/integrations/cube.md, replayed from its source: @cubejs-backend/api-gateway does not install
 * here (its dependencies download Cube Store from GitHub at install), but its two JWT libraries do. From cube-js/cube:
 * - packages/cubejs-api-gateway/src/gateway.ts at 07123be8c07acbfe7325dc4b643b52eda5dbd5a1:
 *   extractAuthorizationHeaderWithSchema, wrapCheckAuth, checkAuthWrapper, requestContextMiddleware, handleError and
 *   createDefaultCheckAuth (the built-in check), with `enforceSecurityChecks = NODE_ENV === 'production'`;
 * - packages/cubejs-api-gateway/src/jwk.ts at 2203e783f074a11d9a790d9d8ae66a540f98c07d: createJWKsFetcher;
 * - packages/cubejs-api-gateway/src/cubejs-handler-error.ts at 30691e2c91dae88b19d2ddc742628d73d0309dd0.
 * Left out, as nothing here depends on them: the key set's cache and retries, the playground secret's second check.
 */

/** Cube's CubejsHandlerError (cubejs-handler-error.ts), its constructor as Cube has it. */
export class CubejsHandlerError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
    readonly originalError?: Error,
  ) {
    super(message || type);
  }
}

/** The module `@cubejs-backend/api-gateway` as a Cube folder resolves it, for what cube.js requires of it: this class. */
export const HANDLER_ERROR_MODULE = `${CubejsHandlerError.toString()}\nmodule.exports = { CubejsHandlerError };\n`;

export type HandlerError = Error & { status: number; type: string; originalError?: Error };
export type HandlerErrorClass = new (status: number, type: string, message: string, originalError?: Error) => HandlerError;

/** The part of Express's request Cube's checkAuth sees. */
export interface CubeRequest {
  headers: Record<string, string | undefined>;
  securityContext?: unknown;
  authInfo?: unknown;
}
export type CheckAuth = (req: CubeRequest, auth?: string) => unknown;

/** What Cube answers a request (its status and JSON), or, let through, the security context its handlers get. */
export interface CubeAnswer {
  status: number;
  body?: { error?: string };
  securityContext?: Record<string, unknown>;
  /** The error Cube logs beside its answer (CubejsHandlerError's originalError, or the error itself). */
  logged?: Error;
}

/** extractAuthorizationHeaderWithSchema: the header's second word, or the whole header when it has one word. */
export function authorizationOf(headers: CubeRequest['headers']): string | undefined {
  const header = headers['x-cube-authorization'] ?? headers['authorization'];
  if (typeof header !== 'string') return undefined;
  const parts = header.split(' ', 2);
  return parts.length === 1 ? parts[0] : parts[1];
}

/** checkAuthWrapper around a checkAuth from cube.js (wrapCheckAuth), then requestContextMiddleware. */
export async function cubeRequest(checkAuth: CheckAuth, HandlerError: HandlerErrorClass, headers: CubeRequest['headers'] = {}) {
  return answer(wrapCheckAuth(checkAuth), HandlerError, headers);
}

function wrapCheckAuth(checkAuth: CheckAuth): CheckAuth {
  return async (req, auth) => {
    const result = (await checkAuth(req, auth)) as { security_context?: unknown } | undefined;
    if (result?.security_context) req.securityContext = result.security_context;
    if (req.securityContext && !req.authInfo) req.authInfo = req.securityContext;
    else if (req.authInfo) req.securityContext = req.authInfo;
  };
}

async function answer(checkAuth: CheckAuth, HandlerError: HandlerErrorClass, headers: CubeRequest['headers']): Promise<CubeAnswer> {
  const req: CubeRequest = { headers };
  try {
    await checkAuth(req, authorizationOf(headers));
  } catch (e) {
    if (e instanceof HandlerError) return { status: e.status, body: { error: e.message }, logged: e.originalError ?? e };
    if (e instanceof Error) return { status: 500, body: { error: e.toString() }, logged: e };
    throw new Error(`Cube answers nothing to a thrown ${typeof e}: the request hangs`);
  }
  return { status: 200, securityContext: req.securityContext as Record<string, unknown> | undefined };
}

/** handleError: how Cube answers an error thrown while it runs a query (queryRewrite among them). */
export function cubeErrorAnswer(e: unknown, HandlerError: HandlerErrorClass): { status: number; error: string } {
  const error = e as Error & { error?: unknown; type?: string };
  if (error instanceof HandlerError) return { status: error.status, error: error.message };
  if (error.error === 'Continue wait') return { status: 200, error: error.message };
  if (error.error) return { status: 400, error: error.message };
  if (error.type === 'UserError') return { status: 400, error: error.message };
  return { status: 500, error: error.toString() };
}

/** CUBEJS_JWK_URL, CUBEJS_JWT_ALGS, CUBEJS_JWT_ISSUER and CUBEJS_JWT_AUDIENCE, as OptsHandler reads them into `jwt`. */
export interface CubeJwtOptions {
  jwkUrl: string;
  algorithms: jsonwebtoken.Algorithm[];
  issuer: string[];
  audience: string;
}

/** jwk.ts: every key of the set through jwk-to-pem, by kid; one it cannot convert fails the whole set. */
async function fetchJwks(url: string): Promise<Map<string, string>> {
  const json = (await (await fetch(url)).json()) as { keys?: (jwkToPem.JWK & { kid?: string })[] };
  if (!json.keys) throw new Error('Unable to find keys inside response from JWK_URL');
  const result = new Map<string, string>();
  for (const jwk of json.keys) {
    if (!jwk.kid) throw new Error('Unable to find kid inside JWK');
    result.set(jwk.kid, jwkToPem(jwk));
  }
  return result;
}

/** createDefaultCheckAuth with `jwt.jwkUrl`: Cube's built-in check, the request as Cube answers it. */
export function cubeBuiltInRequest(
  jwt: CubeJwtOptions,
  HandlerError: HandlerErrorClass,
  headers: CubeRequest['headers'],
  enforceSecurityChecks = true,
): Promise<CubeAnswer> {
  const verifyWithJwk = async (auth: string) => {
    const decoded = jsonwebtoken.decode(auth, { complete: true });
    if (!decoded) throw new HandlerError(403, 'Forbidden', 'Unable to decode JWT key');
    if (!decoded.header || !decoded.header.kid) throw new HandlerError(403, 'Forbidden', 'JWT without kid inside headers');
    const pem = (await fetchJwks(jwt.jwkUrl)).get(decoded.header.kid);
    if (!pem) throw new HandlerError(403, 'Forbidden', `Unable to verify, JWK with kid: "${decoded.header.kid}" not found`);
    const [first, ...more] = jwt.issuer;
    return jsonwebtoken.verify(auth, pem, { algorithms: jwt.algorithms, issuer: [first!, ...more], audience: jwt.audience });
  };
  const checkAuth: CheckAuth = async (req, auth) => {
    if (auth) {
      try {
        req.securityContext = await verifyWithJwk(auth);
      } catch (e) {
        if (enforceSecurityChecks) throw new HandlerError(403, 'Forbidden', 'Invalid token', e as Error);
      }
    } else if (enforceSecurityChecks) {
      throw new HandlerError(403, 'Forbidden', "Authorization header isn't set");
    }
  };
  return answer(checkAuth, HandlerError, headers);
}
