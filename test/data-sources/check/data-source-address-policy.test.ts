import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DataSourceAddressPolicy, DataSourceAddressRefused } from '../../../src/data-sources/check/data-source-address-policy.js';

const SERVICE_PORT = 8080;

/** A resolver that answers from a table, so names of other networks are tested without any DNS or traffic. */
function resolver(table: Record<string, string[]>) {
  return async (hostname: string) => {
    const addresses = table[hostname];
    if (!addresses) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

/** This service, listening on SERVICE_PORT, on a host with one private interface (10.0.0.7) and loopback. */
function policy(options: { table?: Record<string, string[]>; hostAddresses?: () => Promise<string[]>; ownPorts?: () => number[] } = {}) {
  return new DataSourceAddressPolicy({
    ownPorts: options.ownPorts ?? (() => [SERVICE_PORT]),
    resolve: resolver(options.table ?? {}),
    hostAddresses: options.hostAddresses ?? (async () => ['127.0.0.1', '::1', '10.0.0.7', 'fe80::7%eth0']),
  });
}

const refusedFor = (reason: string) => (error: unknown) => error instanceof DataSourceAddressRefused && error.reason === reason;

describe('data source address policy', () => {
  it('admits private, loopback, unique local, CGNAT and global unicast addresses, to be connected to as given', async () => {
    for (const address of [
      '127.0.0.1',
      '127.1.2.3',
      '::1',
      '10.0.0.5',
      '172.16.4.2',
      '192.168.1.10',
      'fd12:3456::1',
      '100.64.0.1',
      '8.8.8.8',
    ]) {
      assert.deepEqual(await policy().addressFor(address, 5432), { addresses: [address], servername: address }, address);
    }
    assert.deepEqual(await policy().addressFor('[::1]', 5432), { addresses: ['::1'], servername: '::1' });
  });

  it('refuses link-local (cloud metadata), unspecified, multicast, broadcast and the other special ranges, in any form', async () => {
    const refused = [
      '169.254.169.254',
      '169.254.170.2',
      'fe80::1',
      'fe80::1%eth0',
      '[fe80::1]',
      '0.0.0.0',
      '::',
      '224.0.0.1',
      'ff02::1',
      '255.255.255.255',
      '192.0.2.1',
      '192.0.0.192',
      '2001:db8::1',
      'fec0::1',
      '::ffff:169.254.169.254',
      '64:ff9b::a9fe:a9fe',
      '64:ff9b::7f00:1',
      '2002:a9fe:a9fe::1',
    ];
    for (const address of refused) await assert.rejects(policy().addressFor(address, 5432), refusedFor('address_refused'), address);
  });

  it("refuses the metadata endpoints clouds put in ranges it admits (AWS's fd00:ec2::254, Alibaba's 100.100.100.200)", async () => {
    for (const address of ['fd00:ec2::254', 'fd20:ce::254', '100.100.100.200', '::ffff:100.100.100.200', '168.63.129.16'])
      await assert.rejects(policy().addressFor(address, 5432), refusedFor('address_refused'), address);
  });

  it('refuses a name when any address it resolves to is refused: one link-local address among private ones', async () => {
    const mixed = policy({ table: { 'db.example': ['10.0.0.5', '169.254.169.254', '10.0.0.6'] } });
    await assert.rejects(mixed.addressFor('db.example', 5432), (error: unknown) => {
      assert.ok(error instanceof DataSourceAddressRefused);
      assert.equal(error.reason, 'address_refused');
      assert.match(error.message, /db\.example resolves to 169\.254\.169\.254, which is link-local/);
      return true;
    });
  });

  it('answers every address of a name, in the resolver order, and the name for TLS', async () => {
    const named = policy({ table: { 'db.example': ['10.0.0.5', 'fd00::5'] } });
    assert.deepEqual(await named.addressFor('db.example', 5432), { addresses: ['10.0.0.5', 'fd00::5'], servername: 'db.example' });
  });

  it("refuses the service's own port on loopback, by address or by name, and admits another port there", async () => {
    const local = policy({ table: { localhost: ['::1', '127.0.0.1'] } });
    for (const host of ['127.0.0.1', '127.0.0.2', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1'])
      await assert.rejects(local.addressFor(host, SERVICE_PORT), refusedFor('address_refused'), host);
    assert.deepEqual(await local.addressFor('localhost', 5432), { addresses: ['::1', '127.0.0.1'], servername: 'localhost' });
    assert.deepEqual(await local.addressFor('127.0.0.1', SERVICE_PORT + 1), { addresses: ['127.0.0.1'], servername: '127.0.0.1' });
  });

  it("refuses the service's own port on this host's interface addresses, not on another host's", async () => {
    const own = policy({ table: { 'self.example': ['10.0.0.7'] } });
    for (const host of ['10.0.0.7', '::ffff:10.0.0.7', 'self.example'])
      await assert.rejects(own.addressFor(host, SERVICE_PORT), refusedFor('address_refused'), host);
    assert.deepEqual(await own.addressFor('10.0.0.8', SERVICE_PORT), { addresses: ['10.0.0.8'], servername: '10.0.0.8' });
  });

  it("asks for the service's ports at each check: they are known only once it listens", async () => {
    let ports: number[] = [];
    const late = policy({ ownPorts: () => ports });
    assert.deepEqual((await late.addressFor('127.0.0.1', SERVICE_PORT)).addresses, ['127.0.0.1']);
    ports = [SERVICE_PORT];
    await assert.rejects(late.addressFor('127.0.0.1', SERVICE_PORT), refusedFor('address_refused'));
  });

  it("refuses the service's own port anywhere when this host's addresses cannot be listed, and asks for them only then", async () => {
    let asked = 0;
    const blind = policy({
      hostAddresses: async () => {
        asked++;
        throw new Error('no interfaces');
      },
    });
    assert.deepEqual((await blind.addressFor('10.0.0.8', 5432)).addresses, ['10.0.0.8']);
    assert.equal(asked, 0);
    await assert.rejects(blind.addressFor('10.0.0.8', SERVICE_PORT), refusedFor('address_refused'));
  });

  it('says a name that does not resolve, or resolves to nothing, is not found', async () => {
    const empty = policy({ table: { 'empty.example': [] } });
    await assert.rejects(empty.addressFor('missing.example', 5432), refusedFor('host_not_found'));
    await assert.rejects(empty.addressFor('empty.example', 5432), refusedFor('host_not_found'));
  });

  it('resolves with the system resolver by default (localhost, from the hosts file)', async () => {
    const system = new DataSourceAddressPolicy({ ownPorts: () => [SERVICE_PORT] });
    const { addresses, servername } = await system.addressFor('localhost', 5432);
    assert.equal(servername, 'localhost');
    assert.ok(addresses.length > 0 && addresses.every((address) => address === '::1' || address.startsWith('127.')), addresses.join());
    await assert.rejects(system.addressFor('localhost', SERVICE_PORT), refusedFor('address_refused'));
  });
});
