import { decodeJwt } from 'jose';
import { EmbedTokenError } from 'user-group-service/embed';

/**
 * The dashboard's Content-Security-Policy, whose frame-ancestors lets only
 * the session's origins (its `org` claim) frame it, and nobody when the
 * session names none. It also forbids any style but the dashboard's own
 * stylesheet, and every script but, where `watch` is set (the orders page),
 * its own scripts (dashboard.js, ugs-embed-frame.js) and their requests to the dashboard.
 */

/**
 * Only what the service accepts in `origins` and a CSP source expression can name (an IPv6 literal it cannot): a scheme,
 * a host and a port, nothing that could end the directive or widen it (a session minted before the service checked hosts may
 * carry such an entry through its renewals).
 */
const ORIGIN = /^https:\/\/[a-z0-9.-]+(?::\d{1,5})?$|^http:\/\/(?:localhost|127(?:\.\d{1,3}){3})(?::\d{1,5})?$/;

export function dashboardCsp(origins: readonly string[] | undefined, { watch = false }: { watch?: boolean } = {}): string {
  const allowed = (origins ?? []).filter((origin) => ORIGIN.test(origin));
  return [
    "default-src 'none'",
    "style-src 'self'",
    ...(watch ? ["script-src 'self'", "connect-src 'self'"] : []),
    "base-uri 'none'",
    "form-action 'none'",
    `frame-ancestors ${allowed.length > 0 ? allowed.join(' ') : "'none'"}`,
  ].join('; ');
}

/**
 * The origins that may frame the page refusing this token. A revoked or
 * expired token passed the signature check before the verifier refused it
 * (it checks the signature first, then expiry and revocations), so its `org`
 * is the service's word, and the customer's page may show that the session
 * ended. Nothing in any other refused token can be trusted: nobody may frame
 * that refusal.
 */
export function originsForRefusal(token: string, error: EmbedTokenError): readonly string[] | undefined {
  if (error.code !== 'token_revoked' && error.code !== 'token_expired') return undefined;
  try {
    const org = decodeJwt(token)['org'];
    return Array.isArray(org) ? org.filter((origin): origin is string => typeof origin === 'string') : undefined;
  } catch {
    return undefined;
  }
}
