/** Protections against slow and abusive clients; every field has a documented default (README). */
export interface HttpLimits {
  /** Requests per API key per minute on /api routes; 0 turns the limit off (the default). */
  requestsPerKeyPerMinute: number;
  /** Failed authentications per client address per minute; past it, further failures from that address get 429 for the rest of the minute (valid keys never do); 0 = off. */
  authFailuresPerMinute: number;
  /** Open connections at most; more are closed at once. */
  maxConnections: number;
  /**
   * Open connections from one client address at most; more from that address
   * are closed at once, other addresses unaffected. Trusted proxies
   * (UGS_TRUST_PROXY) are exempt: they carry many clients.
   */
  maxConnectionsPerAddress: number;
  /** Time to receive all request headers. */
  headersTimeoutMs: number;
  /** Time to receive the whole request, body included. */
  requestTimeoutMs: number;
  /**
   * How long an idle kept-alive connection stays open. Short, so idle
   * connections do not pile up; behind a load balancer it must exceed the
   * balancer's own idle timeout (AWS ALB: 60 s), or the balancer may reuse a
   * connection the service is closing.
   */
  keepAliveTimeoutMs: number;
}

export const DEFAULT_HTTP_LIMITS: HttpLimits = {
  requestsPerKeyPerMinute: 0,
  authFailuresPerMinute: 100,
  maxConnections: 10_000,
  maxConnectionsPerAddress: 100,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 10_000,
};
