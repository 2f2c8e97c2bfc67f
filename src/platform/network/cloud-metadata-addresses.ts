import ipaddr from 'ipaddr.js';
import { canonicalAddress } from './address-classifier.js';

/**
 * Where clouds serve instance metadata and credentials outside link-local (169.254.0.0/16 and fe80::/10, which the
 * address classifier names already): in ranges a caller that admits private networks would otherwise admit.
 */
const CLOUD_METADATA: readonly { network: [ipaddr.IPv4 | ipaddr.IPv6, number]; name: string }[] = [
  // AWS Nitro's VPC services over IPv6: instance metadata at ::254, EKS Pod Identity credentials at ::23, DNS, NTP.
  { network: ipaddr.parseCIDR('fd00:ec2::/64'), name: "AWS's instance metadata and VPC services" },
  { network: ipaddr.parseCIDR('fd20:ce::254/128'), name: "Google Cloud's metadata server (IPv6)" },
  { network: ipaddr.parseCIDR('100.100.100.200/32'), name: "Alibaba Cloud's metadata service" },
  { network: ipaddr.parseCIDR('168.63.129.16/32'), name: "Azure's WireServer (the host's agent channel)" },
];

/** The cloud service an address is a metadata endpoint of, in any form (IPv4-mapped too); null when it is none. */
export function cloudMetadataService(text: string): string | null {
  const canonical = canonicalAddress(text);
  if (canonical === null) return null;
  const address = ipaddr.parse(canonical);
  const found = CLOUD_METADATA.find(({ network }) => address.kind() === network[0].kind() && address.match(network));
  return found?.name ?? null;
}
