import { lookup } from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { invalidRequest } from '../domain/errors.js';
import type { WebhookTargetPolicy } from '../domain/webhook-service.js';

const URL_MAX_LENGTH = 2048;

/** Addresses a webhook must not reach unless the operator allows private targets: their own network, the host itself, metadata services. */
const PRIVATE = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  PRIVATE.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  // ::/96 holds :: and the deprecated IPv4-compatible forms (::127.0.0.1); ::1 is outside it.
  ['::', 96],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  PRIVATE.addSubnet(network, prefix, 'ipv6');
}

/** An IPv4-mapped IPv6 address (::ffff:10.0.0.1, ::ffff:a00:1) as the IPv4 address it is; anything else unchanged. */
function unmapped(address: string): string {
  const lower = address.toLowerCase();
  const dotted = /^(?:0{0,4}:){0,5}:?ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1]!;
  const hex = /^(?:0{0,4}:){0,5}:?ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (!hex) return address;
  const high = parseInt(hex[1]!, 16);
  const low = parseInt(hex[2]!, 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** True for loopback, private, link-local, shared, unspecified, multicast and reserved addresses (IPv4-mapped forms included). */
export function isPrivateAddress(address: string): boolean {
  const plain = unmapped(address);
  const family = isIP(plain);
  if (family === 0) return true;
  return PRIVATE.check(plain, family === 4 ? 'ipv4' : 'ipv6');
}

/** Why a target is refused, as a delivery attempt records it and a registration answers it. */
export class TargetRefused extends Error {
  override name = 'TargetRefused';
  readonly code = 'ETARGETREFUSED';
}

export interface TargetGuardOptions {
  allowPrivateTargets: boolean;
  /** Resolves a name to every address (tests pass their own); dns.lookup by default. */
  resolve?: (hostname: string) => Promise<LookupAddress[]>;
}

/**
 * Where webhooks may send: https to public addresses; with
 * UGS_WEBHOOK_ALLOW_PRIVATE_TARGETS, private and loopback ones too, over http
 * or https. Checked at registration and, through `addressesFor` (the lookup
 * the delivery's socket connects with), at every delivery: a name that
 * resolves elsewhere later (DNS rebinding) cannot reach a refused address.
 */
export class TargetGuard implements WebhookTargetPolicy {
  private readonly resolve: (hostname: string) => Promise<LookupAddress[]>;

  constructor(private readonly options: TargetGuardOptions) {
    this.resolve = options.resolve ?? ((hostname) => lookup(hostname, { all: true, verbatim: true }));
  }

  async checkRegistration(text: string): Promise<string> {
    const url = parseTarget(text);
    try {
      await this.addressesFor(url);
    } catch (error) {
      if (error instanceof TargetRefused) {
        const allow = this.options.allowPrivateTargets ? '' : ' (loopback and private targets are allowed only when the operator sets UGS_WEBHOOK_ALLOW_PRIVATE_TARGETS=true)';
        throw invalidRequest(`"url" is refused: ${error.message}${error.message === 'private address' ? allow : ''}.`);
      }
      throw invalidRequest(`"url" names a host that does not resolve (${url.hostname}).`);
    }
    url.hash = '';
    return url.toString();
  }

  /** Every address the URL's host resolves to, each one checked; throws TargetRefused otherwise. */
  async addressesFor(url: URL): Promise<LookupAddress[]> {
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const family = isIP(host);
    const addresses = family === 0 ? await this.resolve(host) : [{ address: host, family }];
    if (addresses.length === 0) throw new Error('no address');
    const anyPrivate = addresses.some((a) => isPrivateAddress(a.address));
    if (anyPrivate && !this.options.allowPrivateTargets) throw new TargetRefused('private address');
    if (url.protocol === 'http:' && !(this.options.allowPrivateTargets && addresses.every((a) => isPrivateAddress(a.address)))) {
      throw new TargetRefused('http is allowed only to private addresses when private targets are allowed; use https');
    }
    return addresses;
  }
}

/** The URL's shape: http(s), no credentials, a sane length. */
export function parseTarget(text: string): URL {
  if (text.length > URL_MAX_LENGTH) throw invalidRequest(`"url" is at most ${URL_MAX_LENGTH} characters.`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalidRequest('"url" is not an absolute URL; give one like https://example.com/webhooks.');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalidRequest('"url" must be an https URL.');
  if (url.username !== '' || url.password !== '') throw invalidRequest('"url" must not hold credentials (user:password@); authenticate deliveries by their signature instead.');
  return url;
}
