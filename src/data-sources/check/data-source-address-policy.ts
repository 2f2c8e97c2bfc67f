import { lookup } from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { canonicalAddress, classifyAddress } from '../../platform/network/address-classifier.js';
import { cloudMetadataService } from '../../platform/network/cloud-metadata-addresses.js';
import { cachedFor, HOST_ADDRESSES_TTL_MS, readInterfaceAddresses, type HostAddressSource } from '../../platform/network/host-addresses.js';
import type { CheckFailure } from '../connection-check.js';

/**
 * The special ranges a data source may be in besides global unicast: databases live on private networks, and on
 * this host in development. Every other special range is refused: link-local above all (cloud metadata services
 * answer at 169.254.169.254), unspecified, multicast, broadcast, documentation, a translated form of a refused
 * IPv4 address (the classifier's range names). The metadata endpoints clouds put inside these ranges are refused
 * on their own (cloud-metadata-addresses.ts).
 */
const ADMITTED_RANGES: ReadonlySet<string> = new Set(['private', 'loopback', 'uniqueLocal', 'carrierGradeNat']);

/** Why a data source's host may not be connected to. The message names addresses: for logs, never for the caller. */
export class DataSourceAddressRefused extends Error {
  override name = 'DataSourceAddressRefused';
  constructor(
    message: string,
    readonly reason: Extract<CheckFailure, 'address_refused' | 'host_not_found'>,
  ) {
    super(message);
  }
}

/** Where to connect for a data source: resolved and checked once, so the name is not looked up again. */
export interface DataSourceAddress {
  /** Every address the host resolved to, each allowed, in the resolver's order: connect to these, the first first. */
  addresses: string[];
  /** The host as given (brackets removed): what TLS names the server by (SNI, verify-full). */
  servername: string;
}

export interface DataSourceAddressPolicyOptions {
  /** The ports this service listens on; asked at each check, as they are known only once the service listens. */
  ownPorts: () => readonly number[];
  /** Resolves a name to every address (tests pass their own); dns.lookup by default. */
  resolve?: (hostname: string) => Promise<LookupAddress[]>;
  /** This host's interface addresses (tests pass their own); read from the system, cached for a few seconds, by default. */
  hostAddresses?: HostAddressSource;
}

/**
 * Which hosts a data source may name: private, loopback, unique local, CGNAT and global unicast addresses, but not
 * link-local, unspecified, multicast or another special range, nor a cloud's metadata endpoint in any range, and
 * not this service's own listening ports on an
 * address of this host (loopback or an interface's): a connection check must not become a way to probe the
 * metadata service or the service itself. A name is refused when ANY address it resolves to is, and the caller
 * connects to the addresses returned, not to the name, so a name that resolves elsewhere later (DNS rebinding)
 * cannot move the connection.
 */
export class DataSourceAddressPolicy {
  private readonly resolve: (hostname: string) => Promise<LookupAddress[]>;
  private readonly hostAddresses: HostAddressSource;

  constructor(private readonly options: DataSourceAddressPolicyOptions) {
    this.resolve = options.resolve ?? ((hostname) => lookup(hostname, { all: true, verbatim: true }));
    this.hostAddresses = options.hostAddresses ?? cachedFor(readInterfaceAddresses, HOST_ADDRESSES_TTL_MS);
  }

  /** The addresses to connect to for `host` and `port`; throws DataSourceAddressRefused otherwise. */
  async addressFor(host: string, port: number): Promise<DataSourceAddress> {
    const servername = host.replace(/^\[(.*)\]$/, '$1');
    const addresses = await this.addressesOf(servername);
    const ownPort = this.options.ownPorts().includes(port);
    for (const address of addresses) {
      const subject = address === servername ? address : `${servername} resolves to ${address}, which`;
      const found = classifyAddress(address);
      if (found.refused !== null && !ADMITTED_RANGES.has(found.range))
        throw new DataSourceAddressRefused(`${subject} is ${found.refused}`, 'address_refused');
      const metadata = cloudMetadataService(address);
      if (metadata) throw new DataSourceAddressRefused(`${subject} is ${metadata}`, 'address_refused');
      if (ownPort && (await this.reachesThisHost(address)))
        throw new DataSourceAddressRefused(`${address} port ${port} is this service's own`, 'address_refused');
    }
    return { addresses, servername };
  }

  private async addressesOf(host: string): Promise<string[]> {
    if (isIP(host.replace(/%.*$/, '')) !== 0) return [host];
    let resolved: LookupAddress[];
    try {
      resolved = await this.resolve(host);
    } catch (error) {
      // ENOTFOUND, EAI_AGAIN and the rest of getaddrinfo's failures: the caller learns only that the name did not resolve.
      throw new DataSourceAddressRefused(`${host} does not resolve (${(error as { code?: string }).code ?? 'no code'})`, 'host_not_found');
    }
    if (resolved.length === 0) throw new DataSourceAddressRefused(`${host} resolves to no address`, 'host_not_found');
    return resolved.map(({ address }) => address);
  }

  /** Whether an address is loopback or, in any of its forms, one of this host's interfaces. Unknowable counts as this host. */
  private async reachesThisHost(address: string): Promise<boolean> {
    const found = classifyAddress(address);
    if (found.refused !== null && found.range === 'loopback') return true;
    const identities = found.refused === null ? found.identities : [address];
    let listed: Iterable<string>;
    try {
      listed = await this.hostAddresses();
    } catch {
      return true;
    }
    const own = new Set<string>();
    for (const listedAddress of listed) own.add(canonicalAddress(listedAddress) ?? listedAddress);
    return identities.some((identity) => own.has(canonicalAddress(identity) ?? identity));
  }
}
