/**
 * Webhook target addresses by what the guard must answer, shared by the guard's unit test and the
 * HTTP registration test so both walk the same table. Each row: the address, and a fragment its
 * refusal must name.
 */

/** Issue 26 item 1: every one of these was accepted by the guard before it used ipaddr.js. */
export const ISSUE_26_GAPS: readonly (readonly [string, string])[] = [
  // NAT64, well-known prefix: the IPv4 address inside decides.
  ['64:ff9b::7f00:1', 'NAT64 form of 127.0.0.1, which is loopback'],
  ['64:ff9b::a9fe:a9fe', 'NAT64 form of 169.254.169.254, which is link-local'],
  ['64:ff9b::a00:1', 'NAT64 form of 10.0.0.1, which is private'],
  // NAT64, local-use prefix: the operator's own network, refused whatever it wraps.
  ['64:ff9b:1::7f00:1', 'local-use NAT64'],
  ['64:ff9b:1:a9fe:a9:fe00::', 'local-use NAT64'],
  // 6to4: the IPv4 address sits in bits 16 to 48.
  ['2002:7f00:1::1', '6to4 form of 127.0.0.1, which is loopback'],
  ['2002:a9fe:a9fe::', '6to4 form of 169.254.169.254, which is link-local'],
  // Teredo, refused outright (its client address is the last 32 bits inverted: here 127.0.0.1).
  ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'Teredo'],
  ['2001::1', 'Teredo'],
  // IPv4-translated (SIIT).
  ['::ffff:0:7f00:1', 'IPv4-translated'],
  ['::ffff:0:a9fe:a9fe', 'IPv4-translated'],
  // Deprecated site-local, discard-only, dummy prefix.
  ['fec0::1', 'site-local'],
  ['feff::1', 'site-local'],
  ['100::1', 'discard-only'],
  ['100:0:0:1::1', 'dummy prefix'],
  // Documentation.
  ['192.0.2.1', 'reserved'],
  ['198.51.100.7', 'reserved'],
  ['203.0.113.10', 'reserved'],
  ['2001:db8::1', 'reserved'],
  ['3fff::1', 'reserved'],
  // Benchmarking (198.18/15 was already refused: see ALWAYS_REFUSED).
  ['2001:2::1', 'benchmarking'],
  // What else ipaddr.js names, and what lies outside global unicast.
  ['192.88.99.1', 'reserved'],
  ['2001:3::1', 'AMT'],
  ['2001:4:112::1', 'AS112'],
  ['2001:20::1', 'ORCHIDv2'],
  ['5f00::1', 'segment routing'],
  ['1::1', 'outside global unicast'],
  ['4000::1', 'outside global unicast'],
];

/** Refused before issue 26 too; kept under test. */
export const ALWAYS_REFUSED: readonly (readonly [string, string])[] = [
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['10.1.2.3', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.1.1', 'private'],
  ['169.254.169.254', 'link-local'],
  ['100.64.0.1', 'carrier-grade NAT'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['192.0.0.8', 'reserved'],
  ['198.18.0.1', 'reserved'],
  ['198.19.255.254', 'reserved'],
  ['224.0.0.1', 'multicast'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.255', 'broadcast'],
  ['::1', 'loopback'],
  ['::', 'unspecified'],
  ['fc00::1', 'unique local'],
  ['fd12:3456::1', 'unique local'],
  ['fe80::1', 'link-local'],
  ['ff02::1', 'multicast'],
  ['::ffff:127.0.0.1', 'IPv4-mapped form of 127.0.0.1, which is loopback'],
  ['::ffff:a9fe:a9fe', 'IPv4-mapped form of 169.254.169.254, which is link-local'],
  ['::ffff:192.168.0.1', 'IPv4-mapped form of 192.168.0.1, which is private'],
  ['::127.0.0.1', 'IPv4-compatible'],
  ['::7f00:1', 'IPv4-compatible'],
  ['::808:808', 'IPv4-compatible'],
];

/** Global unicast, directly or wrapped in a form a public receiver may be reached through. */
export const PUBLIC_ADDRESSES: readonly string[] = [
  '8.8.8.8',
  '1.1.1.1',
  '172.32.0.1',
  '100.128.0.1',
  '93.184.216.34',
  '2001:4860:4860::8888',
  '2606:4700::1111',
  '::ffff:8.8.8.8',
  '64:ff9b::808:808',
  '2002:808:808::1',
];

/** An address as a URL's host: IPv6 in brackets. */
export function hostOf(address: string): string {
  return address.includes(':') ? `[${address}]` : address;
}
