import ipaddr from 'ipaddr.js';
import { isIP } from 'node:net';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/**
 * What an address is, for an outbound connection: why it is not global unicast (and which range it is in, for a
 * caller that admits some of them), or the forms it may be compared in.
 */
export type AddressClass =
  | {
      refused: string;
      /**
       * ipaddr.js's name of its range ('private', 'loopback', 'linkLocal', ...; an IPv4-mapped address has its IPv4
       * address's, being the same address), or one of these for what ipaddr.js has no name for or calls otherwise:
       * 'nat64' and '6to4' (wrapping a refused IPv4 address), 'ipv4Compatible', 'dummy', 'outsideGlobalUnicast',
       * 'notAnAddress'.
       */
      range: string;
    }
  /** The address, canonical, and the IPv4 address it carries if it wraps one: what this host's addresses are compared with. */
  | { refused: null; identities: string[] };

/**
 * ipaddr.js names every IANA special-purpose range (IPv4 and IPv6 registries, as of 2025) but calls
 * "unicast" whatever it has no name for. Reviewed against the registries, these are what it misses;
 * everything else outside 2000::/3 is refused too (below), since no global unicast address lives there.
 */
const UNNAMED_IPV6: readonly { network: [ipaddr.IPv6, number]; name: string; range: string }[] = [
  { network: ipaddr.IPv6.parseCIDR('::/96'), name: 'an IPv4-compatible address (deprecated by RFC 4291)', range: 'ipv4Compatible' },
  { network: ipaddr.IPv6.parseCIDR('100:0:0:1::/64'), name: 'in the dummy prefix (RFC 9780)', range: 'dummy' },
];

/** Where IPv6 global unicast addresses are allocated (RFC 4291 §2.4); outside it, only special ranges. */
const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');

/**
 * The IPv6 forms that carry an IPv4 address a public receiver may be reached through, so the IPv4
 * address decides: IPv4-mapped (a dual-stack socket connects over IPv4), the NAT64 well-known prefix
 * (what DNS64 answers on IPv6-only networks) and 6to4. Every other IPv4-carrying form is refused
 * outright by its range name: the local-use NAT64 prefix 64:ff9b:1::/48 (the operator's own network,
 * the IPv4 bits' position depends on its prefix length), IPv4-translated ::ffff:0:0:0/96 (SIIT, local),
 * Teredo 2001::/32 and the deprecated IPv4-compatible ::/96. Only an IPv4-mapped address is its IPv4 address
 * (`range` null: the IPv4 address's); the others reach it through a translator, so their refusal has a range of its own.
 */
const CARRIES_IPV4: readonly {
  network: [ipaddr.IPv6, number];
  name: string;
  range: string | null;
  ipv4: (parts: number[]) => [number, number];
}[] = [
  { network: ipaddr.IPv6.parseCIDR('::ffff:0:0/96'), name: 'the IPv4-mapped form', range: null, ipv4: (p) => [p[6]!, p[7]!] },
  { network: ipaddr.IPv6.parseCIDR('64:ff9b::/96'), name: 'the NAT64 form', range: 'nat64', ipv4: (p) => [p[6]!, p[7]!] },
  { network: ipaddr.IPv6.parseCIDR('2002::/16'), name: 'the 6to4 form', range: '6to4', ipv4: (p) => [p[1]!, p[2]!] },
];

/** ipaddr.js's range names, as a refusal says them; a name missing here is still refused, by that name. */
const RANGE_NAMES: Readonly<Record<string, string>> = {
  unspecified: 'unspecified ("this network")',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local (cloud metadata services live there)',
  loopback: 'loopback',
  carrierGradeNat: 'shared address space (carrier-grade NAT)',
  private: 'private',
  reserved: 'reserved (documentation, benchmarking, protocol assignments or future use)',
  as112: 'an AS112 DNS sink',
  amt: 'an AMT relay',
  uniqueLocal: 'unique local (private)',
  deprecatedSiteLocal: 'site-local (deprecated, private)',
  discard: 'discard-only (100::/64)',
  rfc6145: 'IPv4-translated (SIIT, local)',
  rfc6052: "local-use NAT64 (the operator's network)",
  teredo: 'Teredo',
  benchmarking: 'benchmarking',
  as112v6: 'an AS112 DNS sink',
  deprecatedOrchid: 'an ORCHID (deprecated)',
  orchid2: 'an ORCHIDv2 identifier',
  droneRemoteIdProtocolEntityTags: 'a drone remote ID tag',
  segmentRouting: 'a segment routing SID',
};

/** Whether an address (from a URL or a resolver) is global unicast, what a public service may be reached at. */
export function classifyAddress(text: string): AddressClass {
  const address = parseAddress(text);
  if (!address) return { refused: 'not an IP address', range: 'notAnAddress' };
  if (address.kind() === 'ipv4') return classifyIpv4(address as ipaddr.IPv4);
  const ipv6 = address as ipaddr.IPv6;
  const carrier = CARRIES_IPV4.find((form) => ipv6.match(form.network));
  if (carrier) {
    const [high, low] = carrier.ipv4(ipv6.parts);
    const ipv4 = new ipaddr.IPv4([high >> 8, high & 255, low >> 8, low & 255]);
    const inner = classifyIpv4(ipv4);
    if (inner.refused !== null)
      return { refused: `${carrier.name} of ${ipv4.toString()}, which is ${inner.refused}`, range: carrier.range ?? inner.range };
    return { refused: null, identities: [ipv6.toNormalizedString(), ...inner.identities] };
  }
  const range = ipv6.range();
  if (range !== 'unicast') return { refused: RANGE_NAMES[range] ?? range, range };
  const unnamed = UNNAMED_IPV6.find((entry) => ipv6.match(entry.network));
  if (unnamed) return { refused: unnamed.name, range: unnamed.range };
  if (!ipv6.match(GLOBAL_UNICAST)) return { refused: 'outside global unicast (2000::/3)', range: 'outsideGlobalUnicast' };
  return { refused: null, identities: [ipv6.toNormalizedString()] };
}

/** An address as `classifyAddress` compares it (IPv4-mapped as IPv4); null when it is none. */
export function canonicalAddress(text: string): string | null {
  const address = parseAddress(text);
  if (!address) return null;
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress())
    return (address as ipaddr.IPv6).toIPv4Address().toString();
  return address.toNormalizedString();
}

function classifyIpv4(address: ipaddr.IPv4): AddressClass {
  const range = address.range();
  if (range !== 'unicast') return { refused: RANGE_NAMES[range] ?? range, range };
  return { refused: null, identities: [address.toString()] };
}

/**
 * Only what node:net calls an address (dotted-quad IPv4, no octal or short forms). ipaddr.js reads
 * `::a.b.c.d` as `::ffff:a.b.c.d`, which is another address (and glibc prints IPv4-compatible
 * addresses that way), so a dotted tail becomes two hex groups first. A zone id names an interface,
 * not an address: only link-local addresses have one, and they are refused by their range.
 */
function parseAddress(text: string): Address | null {
  const bare = text.replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 4) return ipaddr.IPv4.parse(bare);
  if (family !== 6) return null;
  const hex = bare.replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_match, a: string, b: string, c: string, d: string) => {
    const group = (x: string, y: string) => ((Number(x) << 8) | Number(y)).toString(16);
    return `${group(a, b)}:${group(c, d)}`;
  });
  return ipaddr.IPv6.parse(hex);
}
