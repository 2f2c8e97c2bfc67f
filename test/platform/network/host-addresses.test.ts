import assert from 'node:assert/strict';
import { networkInterfaces } from 'node:os';
import { describe, it } from 'node:test';
import {
  cachedFor,
  ipv4Gateways,
  ipv6Gateways,
  readHostAddresses,
  readInterfaceAddresses,
} from '../../../src/platform/network/host-addresses.js';

/** /proc/net/route of a container whose default route goes through 192.0.2.1 (little-endian host). */
const ROUTE = `Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT
eth0\t00000000\t010200C0\t0003\t0\t0\t0\t00000000\t0\t0\t0
eth0\t000200C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0
eth1\t0000000A\t0101A8C0\t0003\t0\t0\t0\t000000FF\t0\t0\t0
`;

/** /proc/net/ipv6_route with a default route through fd00::1 and on-link routes without a next hop. */
const IPV6_ROUTE = `fd000000000000000000000000000000 40 00000000000000000000000000000000 00 00000000000000000000000000000000 00000100 00000001 00000000 00000001     eth0
00000000000000000000000000000000 00 00000000000000000000000000000000 00 fd000000000000000000000000000001 00000400 00000002 00000000 00000003     eth0
00000000000000000000000000000001 80 00000000000000000000000000000000 00 00000000000000000000000000000000 00000000 00000002 00000000 80200001       lo
`;

describe("this host's own addresses", () => {
  it('reads every gateway of the IPv4 routing table, in either byte order', () => {
    assert.deepEqual(ipv4Gateways(ROUTE, 'LE'), ['192.0.2.1', '192.168.1.1']);
    assert.deepEqual(ipv4Gateways(ROUTE.replace('010200C0', 'C0000201').replace('0101A8C0', 'C0A80101'), 'BE'), [
      '192.0.2.1',
      '192.168.1.1',
    ]);
    assert.deepEqual(ipv4Gateways(''), []);
  });

  it('reads every next hop of the IPv6 routing table', () => {
    assert.deepEqual(ipv6Gateways(IPV6_ROUTE), ['fd00:0000:0000:0000:0000:0000:0000:0001']);
    assert.deepEqual(ipv6Gateways(''), []);
  });

  it('lists every interface address of this machine', async () => {
    const listed = new Set(await readHostAddresses());
    for (const entries of Object.values(networkInterfaces()))
      for (const entry of entries ?? []) assert.ok(listed.has(entry.address), entry.address);
    assert.ok(listed.has('127.0.0.1'));
  });

  it('lists the interface addresses alone (where this host listens), and no gateway', async () => {
    const listed = await readInterfaceAddresses();
    assert.ok(listed.includes('127.0.0.1'));
    assert.equal(listed.length, Object.values(networkInterfaces()).flatMap((entries) => entries ?? []).length);
  });

  it('keeps a read for its time to live, shares it between concurrent callers, and forgets a failed one', async () => {
    let now = 0;
    let reads = 0;
    let fail = false;
    const cached = cachedFor(
      async () => {
        reads += 1;
        if (fail) throw new Error('no interfaces');
        return [String(reads)];
      },
      1000,
      () => now,
    );
    assert.deepEqual(await Promise.all([cached(), cached()]), [['1'], ['1']]);
    now = 999;
    assert.deepEqual(await cached(), ['1']);
    now = 1000;
    fail = true;
    await assert.rejects(cached(), /no interfaces/);
    fail = false;
    assert.deepEqual(await cached(), ['3'], 'read again at once');
  });
});
