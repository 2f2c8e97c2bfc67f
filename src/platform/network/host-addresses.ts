import { readFile } from 'node:fs/promises';
import { endianness, networkInterfaces } from 'node:os';

/** The addresses of this host and of the routers next to it, in any textual form. */
export type HostAddressSource = () => Promise<Iterable<string>>;

/** Interfaces come and go (DHCP, containers, VPNs) but not between two deliveries a few seconds apart. */
export const HOST_ADDRESSES_TTL_MS = 5000;

const RTF_GATEWAY = 0x2;

/**
 * Every address of every interface, and every gateway the routing tables name (Linux's
 * /proc/net/route and /proc/net/ipv6_route; elsewhere none): a global address on the host reaches the
 * host itself, and its router usually serves an admin page. Listing the interfaces is allowed to throw:
 * a guard that cannot tell which addresses are its own must refuse, not guess.
 */
export async function readHostAddresses(): Promise<string[]> {
  const [ipv4Routes, ipv6Routes] = await Promise.all([readIfPresent('/proc/net/route'), readIfPresent('/proc/net/ipv6_route')]);
  return [...(await readInterfaceAddresses()), ...ipv4Gateways(ipv4Routes), ...ipv6Gateways(ipv6Routes)];
}

/** Every address of every interface (loopback included): where a socket of this host may listen. Allowed to throw, as above. */
export async function readInterfaceAddresses(): Promise<string[]> {
  return Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((entry) => entry.address));
}

/** /proc/net/route: a header, then `Iface Destination Gateway Flags …`, addresses in hex as the kernel's __be32 printed in host byte order.
 * */
export function ipv4Gateways(table: string, byteOrder: 'LE' | 'BE' = endianness()): string[] {
  const gateways = new Set<string>();
  for (const line of table.split('\n').slice(1)) {
    const [, , gateway, flags] = line.trim().split(/\s+/);
    if (!gateway || !flags || !(parseInt(flags, 16) & RTF_GATEWAY) || /^0+$/.test(gateway)) continue;
    const value = parseInt(gateway, 16);
    const octets = [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255];
    gateways.add((byteOrder === 'LE' ? octets.reverse() : octets).join('.'));
  }
  return [...gateways];
}

/** /proc/net/ipv6_route: `destination prefix source prefix next-hop metric refs use flags iface`, addresses as 32 hex digits. */
export function ipv6Gateways(table: string): string[] {
  const gateways = new Set<string>();
  for (const line of table.split('\n')) {
    const fields = line.trim().split(/\s+/);
    const nextHop = fields[4];
    const flags = fields[8];
    if (!nextHop || !flags || !(parseInt(flags, 16) & RTF_GATEWAY) || !/^[0-9a-f]{32}$/i.test(nextHop) || /^0+$/.test(nextHop)) continue;
    gateways.add(nextHop.match(/.{4}/g)!.join(':'));
  }
  return [...gateways];
}

/** The source's answer, read again once it is older than `ttlMs`; concurrent callers share one read. */
export function cachedFor(source: HostAddressSource, ttlMs: number, now: () => number = Date.now): HostAddressSource {
  let cached: { at: number; read: Promise<Iterable<string>> } | undefined;
  return () => {
    if (!cached || now() - cached.at >= ttlMs) {
      const read = source();
      cached = { at: now(), read };
      // A failed read is not kept: the next check tries again.
      read.catch(() => {
        if (cached?.read === read) cached = undefined;
      });
    }
    return cached.read;
  };
}

async function readIfPresent(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return '';
  }
}
