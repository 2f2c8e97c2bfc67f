import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import ipaddr from 'ipaddr.js';
import { canonicalAddress, classifyAddress } from '../../../src/platform/network/address-classifier.js';
import { ALWAYS_REFUSED, ISSUE_26_GAPS, PUBLIC_ADDRESSES } from '../../helpers/refused-targets.js';

type Ranges = Record<string, [ipaddr.IPv4 | ipaddr.IPv6, number] | [ipaddr.IPv4 | ipaddr.IPv6, number][]>;

/** An address inside a range, past its network address (which for the IPv4-carrying forms would wrap 0.0.0.0). */
function inside([network]: [ipaddr.IPv4 | ipaddr.IPv6, number]): string {
  const bytes = network.toByteArray();
  bytes[bytes.length - 1]! |= 1;
  return ipaddr.fromByteArray(bytes).toString();
}

describe('address classifier', () => {
  it('refuses every range of the table, naming what it is', () => {
    for (const [address, what] of [...ISSUE_26_GAPS, ...ALWAYS_REFUSED]) {
      const found = classifyAddress(address);
      assert.ok(found.refused?.includes(what), `${address}: ${found.refused}`);
    }
  });

  it('accepts global unicast and the forms that reach it', () => {
    for (const address of PUBLIC_ADDRESSES) assert.equal(classifyAddress(address).refused, null, address);
  });

  it('refuses an address in every range ipaddr.js names, whichever version is installed', () => {
    for (const kind of [ipaddr.IPv4, ipaddr.IPv6]) {
      const ranges = (kind.prototype as unknown as { SpecialRanges: Ranges }).SpecialRanges;
      assert.ok(Object.keys(ranges).length > 5);
      for (const [name, value] of Object.entries(ranges)) {
        const networks = (Array.isArray(value[0]) ? value : [value]) as [ipaddr.IPv4 | ipaddr.IPv6, number][];
        for (const network of networks) {
          const address = inside(network);
          assert.notEqual(classifyAddress(address).refused, null, `${name}: ${address}`);
        }
      }
    }
  });

  it('names the range of a refused address, an IPv4-mapped address by its IPv4 address, a translated one by its form', () => {
    const ranges = {
      '10.1.2.3': 'private',
      '127.0.0.1': 'loopback',
      '::1': 'loopback',
      '::ffff:127.0.0.1': 'loopback',
      '::ffff:169.254.169.254': 'linkLocal',
      '64:ff9b::7f00:1': 'nat64',
      '2002:7f00:1::1': '6to4',
      'fd00::1': 'uniqueLocal',
      '100.64.0.1': 'carrierGradeNat',
      'fe80::1': 'linkLocal',
      '0.0.0.0': 'unspecified',
      '::8.8.8.8': 'ipv4Compatible',
      '100:0:0:1::1': 'dummy',
      '4000::1': 'outsideGlobalUnicast',
      localhost: 'notAnAddress',
    };
    for (const [address, range] of Object.entries(ranges)) {
      const found = classifyAddress(address);
      assert.equal(found.refused === null ? null : found.range, range, address);
    }
  });

  it('reads ::a.b.c.d as the IPv4-compatible address it is, not as IPv4-mapped (ipaddr.js alone would)', () => {
    assert.equal(ipaddr.parse('::8.8.8.8').range(), 'ipv4Mapped', 'the library quirk this guards against');
    assert.match(classifyAddress('::8.8.8.8').refused ?? '', /IPv4-compatible/);
    assert.equal(classifyAddress('::ffff:8.8.8.8').refused, null);
  });

  it('refuses what is not an address, and ignores a zone id', () => {
    for (const text of ['not-an-address', '', '0177.0.0.1', '127.1', '2130706433', '1.2.3.4.5', '[::1]']) {
      assert.equal(classifyAddress(text).refused, 'not an IP address', text);
    }
    assert.match(classifyAddress('fe80::1%eth0').refused ?? '', /link-local/);
  });

  it('names the identities a host address is compared in: the address, and the IPv4 address it wraps', () => {
    assert.deepEqual(classifyAddress('64:ff9b::808:808'), { refused: null, identities: ['64:ff9b:0:0:0:0:808:808', '8.8.8.8'] });
    assert.deepEqual(classifyAddress('2606:4700::1111'), { refused: null, identities: ['2606:4700:0:0:0:0:0:1111'] });
    assert.equal(canonicalAddress('::ffff:8.8.8.8'), '8.8.8.8');
    assert.equal(canonicalAddress('2606:4700:0000::1111'), '2606:4700:0:0:0:0:0:1111');
    assert.equal(canonicalAddress('eth0'), null);
  });
});
