import { BlockList, isIP } from 'node:net';
import { NAMED_PROXY_RANGES, proxyRangeOf } from '../trusted-proxy-ranges.js';

/** True when `address` (a peer's socket address, IPv4-mapped or not) is one of the trusted proxies. */
export type TrustedProxyCheck = (address: string | undefined) => boolean;

/**
 * The check for UGS_TRUST_PROXY's entries (as parseTrustedProxies in ../trusted-proxy-ranges.ts accepted them); one for
 * Fastify's trustProxy and the connection limits alike.
 */
export function trustedProxyCheck(entries: readonly string[]): TrustedProxyCheck {
  if (entries.length === 0) return () => false;
  const list = new BlockList();
  for (const entry of entries) {
    for (const [network, prefix] of NAMED_PROXY_RANGES[entry] ?? [proxyRangeOf(entry)!])
      list.addSubnet(network, prefix, isIP(network) === 6 ? 'ipv6' : 'ipv4');
  }
  return (address) => {
    const family = address === undefined ? 0 : isIP(address);
    // BlockList matches an IPv4-mapped IPv6 address (a dual-stack socket's peer) against IPv4 ranges too.
    return family !== 0 && list.check(address!, family === 6 ? 'ipv6' : 'ipv4');
  };
}
