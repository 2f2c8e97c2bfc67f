import { isIP } from 'node:net';

/* UGS_TRUST_PROXY's text: what config.ts parses at start-up and http/trusted-proxies.ts turns into the check serving uses. */

/** The names proxy-addr (and so Fastify and Express) give these ranges; accepted here too. */
export const NAMED_PROXY_RANGES: Readonly<Record<string, readonly (readonly [string, number])[]>> = {
  loopback: [
    ['127.0.0.0', 8],
    ['::1', 128],
  ],
  linklocal: [
    ['169.254.0.0', 16],
    ['fe80::', 10],
  ],
  uniquelocal: [
    ['10.0.0.0', 8],
    ['172.16.0.0', 12],
    ['192.168.0.0', 16],
    ['fc00::', 7],
  ],
};

/**
 * UGS_TRUST_PROXY: the addresses of the proxies in front of the service, as a
 * comma-separated list of addresses, CIDRs and the names loopback, linklocal
 * and uniquelocal. Empty or `false`: no proxy is trusted. Throws an Error
 * whose message says what is wrong with the text.
 *
 * `true` and hop counts are refused: both trust whatever address connects,
 * so a client that reaches the service directly (or, with `true`, through the
 * proxy) picks its own address with X-Forwarded-For, and with it its
 * failed-auth budget and what the audit log says. Fastify itself no longer
 * honours hop counts, for the same reason.
 */
export function parseTrustedProxies(text: string): string[] {
  const trimmed = text.trim();
  if (trimmed === '' || trimmed.toLowerCase() === 'false') return [];
  if (trimmed.toLowerCase() === 'true' || /^\d+$/.test(trimmed)) {
    throw new Error(
      `${trimmed.toLowerCase() === 'true' ? '"true"' : 'a hop count'} would trust any address that connects, letting clients forge X-Forwarded-For; list the proxies' addresses or CIDRs instead (e.g. 10.0.0.0/8, or uniquelocal)`,
    );
  }
  const entries = trimmed.split(',').map((entry) => entry.trim());
  for (const entry of entries) {
    if (!(entry in NAMED_PROXY_RANGES) && proxyRangeOf(entry) === undefined) {
      throw new Error(
        `${JSON.stringify(entry)} is not an IP address, a CIDR (e.g. 10.0.0.0/8) or one of ${Object.keys(NAMED_PROXY_RANGES).join(', ')}`,
      );
    }
  }
  return entries;
}

/** `[network, prefix length]` of an address or CIDR; undefined when it is neither. */
export function proxyRangeOf(entry: string): readonly [string, number] | undefined {
  const [network = '', prefixText, ...rest] = entry.split('/');
  const family = isIP(network);
  if (family === 0 || rest.length > 0) return undefined;
  const maximum = family === 6 ? 128 : 32;
  if (prefixText === undefined) return [network, maximum];
  const prefix = /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
  return prefix <= maximum ? [network, prefix] : undefined;
}
