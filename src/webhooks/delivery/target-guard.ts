import { lookup } from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { invalidRequest } from '../../kernel/errors.js';
import type { WebhookTargetPolicy } from '../webhook-service.js';
import { canonicalAddress, classifyAddress } from '../../platform/network/address-classifier.js';
import { cachedFor, HOST_ADDRESSES_TTL_MS, readHostAddresses, type HostAddressSource } from '../../platform/network/host-addresses.js';

const URL_MAX_LENGTH = 2048;

/** Why a target is refused, as a delivery attempt records it and a registration answers it. */
export class TargetRefused extends Error {
  override name = 'TargetRefused';
  readonly code = 'ETARGETREFUSED';
  /** `address`: the operator's opt-out would admit it; `http`: nothing would. */
  constructor(
    message: string,
    readonly reason: 'address' | 'http',
  ) {
    super(message);
  }
}

export interface TargetGuardOptions {
  allowPrivateTargets: boolean;
  /** Resolves a name to every address (tests pass their own); dns.lookup by default. */
  resolve?: (hostname: string) => Promise<LookupAddress[]>;
  /** This host's interface and gateway addresses (tests pass their own); read from the system, cached for a few seconds, by default. */
  hostAddresses?: HostAddressSource;
}

/**
 * Where webhooks may send: https to global unicast addresses that are not
 * this host's own nor its gateways'; with UGS_WEBHOOK_ALLOW_PRIVATE_TARGETS,
 * every other address too (loopback and this host's included, which is how
 * a receiver on the same machine is reached), over http or https. Checked at
 * registration and, through `addressesFor` (the lookup the delivery's socket
 * connects with), at every delivery: a name that resolves elsewhere later
 * (DNS rebinding) cannot reach a refused address.
 */
export class TargetGuard implements WebhookTargetPolicy {
  private readonly resolve: (hostname: string) => Promise<LookupAddress[]>;
  private readonly hostAddresses: HostAddressSource;

  constructor(private readonly options: TargetGuardOptions) {
    this.resolve = options.resolve ?? ((hostname) => lookup(hostname, { all: true, verbatim: true }));
    this.hostAddresses = options.hostAddresses ?? cachedFor(readHostAddresses, HOST_ADDRESSES_TTL_MS);
  }

  async checkRegistration(text: string): Promise<string> {
    const url = parseTarget(text);
    try {
      await this.addressesFor(url);
    } catch (error) {
      if (error instanceof TargetRefused) {
        const allow =
          error.reason === 'address'
            ? ' (loopback, private and other non-public targets are allowed only when the operator sets UGS_WEBHOOK_ALLOW_PRIVATE_TARGETS=true)'
            : '';
        throw invalidRequest(`"url" is refused: ${error.message}${allow}.`);
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
    const refusals = await this.refusals(host, addresses);
    if (refusals[0] && !this.options.allowPrivateTargets) throw new TargetRefused(refusals[0], 'address');
    if (url.protocol === 'http:' && !(this.options.allowPrivateTargets && refusals.length === addresses.length)) {
      throw new TargetRefused('http is allowed only to non-public addresses when private targets are allowed; use https', 'http');
    }
    return addresses;
  }

  /** Why each refused address is, as a sentence naming it; empty when every address may be reached. */
  private async refusals(host: string, addresses: LookupAddress[]): Promise<string[]> {
    let own: Set<string> | undefined;
    const refusals: string[] = [];
    for (const { address } of addresses) {
      const subject = address === host ? address : `${host} resolves to ${address}, which`;
      const found = classifyAddress(address);
      if (found.refused !== null) {
        refusals.push(`${subject} is ${found.refused}, not a public address`);
        continue;
      }
      own ??= await this.ownAddresses();
      if (found.identities.some((identity) => own!.has(identity)))
        refusals.push(`${subject} is an address of this host or its gateway, not a public address`);
    }
    return refusals;
  }

  private async ownAddresses(): Promise<Set<string>> {
    let listed: Iterable<string>;
    try {
      listed = await this.hostAddresses();
    } catch {
      // With the opt-out they matter only to allow http, which then stays refused for a public-looking address.
      if (this.options.allowPrivateTargets) return new Set();
      throw new TargetRefused("this host's own addresses could not be listed, so no address can be told apart from them", 'address');
    }
    const own = new Set<string>();
    for (const address of listed) {
      const canonical = canonicalAddress(address);
      if (canonical) own.add(canonical);
    }
    return own;
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
  if (url.username !== '' || url.password !== '')
    throw invalidRequest('"url" must not hold credentials (user:password@); authenticate deliveries by their signature instead.');
  return url;
}
