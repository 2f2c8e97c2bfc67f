import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ServiceError } from '../../../src/kernel/errors.js';
import { TargetGuard } from '../../../src/webhooks/delivery/target-guard.js';
import { ALWAYS_REFUSED, hostOf, ISSUE_26_GAPS, PUBLIC_ADDRESSES } from '../../helpers/refused-targets.js';

const refused = (fragment: string) => (error: unknown) =>
  error instanceof ServiceError && error.code === 'invalid_request' && error.message.includes(fragment);

/** A resolver that answers from a table, so names of other networks are tested without any DNS or traffic. */
function resolver(table: Record<string, string[]>) {
  return async (hostname: string) => {
    const addresses = table[hostname];
    if (!addresses) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

describe('webhook target guard', () => {
  /** A host whose only addresses are global, as a cloud VM with a public interface has: none of them private. */
  const globalHost = async () => ['81.2.69.142', '2a00:1450:4001:800::200e', '127.0.0.1', '::1', 'fe80::1'];

  it('refuses, at registration, every address of the ranges issue 26 found open, naming what each is', async () => {
    const guard = new TargetGuard({ allowPrivateTargets: false, resolve: resolver({}), hostAddresses: globalHost });
    for (const [address, what] of [...ISSUE_26_GAPS, ...ALWAYS_REFUSED]) {
      await assert.rejects(guard.checkRegistration(`https://${hostOf(address)}/in`), refused(`${what}`), address);
      await assert.rejects(guard.checkRegistration(`https://${hostOf(address)}/in`), refused('not a public address'), address);
    }
  });

  it('refuses a name that resolves to any of them, naming the name and the address', async () => {
    const table = Object.fromEntries([...ISSUE_26_GAPS, ...ALWAYS_REFUSED].map(([address], i) => [`n${i}.example`, ['8.8.8.8', address]]));
    const guard = new TargetGuard({ allowPrivateTargets: false, resolve: resolver(table), hostAddresses: globalHost });
    for (const [name, [, address]] of Object.entries(table)) {
      await assert.rejects(guard.checkRegistration(`https://${name}/in`), refused(`${name} resolves to ${address}, which is`), name);
    }
  });

  it('accepts global unicast addresses, and the IPv4-mapped, NAT64 and 6to4 forms of one', async () => {
    const guard = new TargetGuard({
      allowPrivateTargets: false,
      resolve: resolver({ 'hooks.example': [...PUBLIC_ADDRESSES] }),
      hostAddresses: globalHost,
    });
    for (const address of PUBLIC_ADDRESSES) {
      const url = `https://${hostOf(address)}/in`;
      assert.equal(await guard.checkRegistration(url), new URL(url).toString(), address);
    }
    assert.equal(await guard.checkRegistration('https://hooks.example/in'), 'https://hooks.example/in');
  });

  it("refuses this host's own global addresses and its gateway, in any form, by address or by name", async () => {
    const guard = new TargetGuard({
      allowPrivateTargets: false,
      resolve: resolver({ 'self.example': ['81.2.69.142'], 'self6.example': ['2a00:1450:4001:800::200e'], 'gw.example': ['8.8.4.4'] }),
      hostAddresses: async () => [...(await globalHost()), '8.8.4.4'],
    });
    const own = [
      '81.2.69.142',
      '::ffff:81.2.69.142',
      '64:ff9b::5102:458e',
      '2002:5102:458e::1',
      '2a00:1450:4001:800::200e',
      '2a00:1450:4001:0800:0:0:0:200e',
      '8.8.4.4',
    ];
    for (const address of own) {
      await assert.rejects(
        guard.checkRegistration(`https://${hostOf(address)}/in`),
        refused('an address of this host or its gateway'),
        address,
      );
    }
    for (const name of ['self.example', 'self6.example', 'gw.example']) {
      await assert.rejects(guard.checkRegistration(`https://${name}/in`), refused(`${name} resolves to`), name);
    }
    // Its neighbours are other hosts.
    assert.equal(await guard.checkRegistration('https://81.2.69.143/in'), 'https://81.2.69.143/in');
  });

  it("reads this host's addresses at every check, and refuses every target when they cannot be read", async () => {
    let addresses = ['8.8.8.8'];
    const guard = new TargetGuard({ allowPrivateTargets: false, hostAddresses: async () => addresses });
    await assert.rejects(guard.addressesFor(new URL('https://8.8.8.8/in')), /address of this host/);
    addresses = ['1.1.1.1'];
    assert.equal((await guard.addressesFor(new URL('https://8.8.8.8/in'))).length, 1, 'an address given up is a target again');
    const blind = new TargetGuard({
      allowPrivateTargets: false,
      hostAddresses: async () => {
        throw new Error('uv_interface_addresses');
      },
    });
    await assert.rejects(blind.checkRegistration('https://8.8.8.8/in'), refused('could not be listed'));
  });

  it("with the opt-out, admits this host's own addresses and every non-public range, over http too", async () => {
    const guard = new TargetGuard({ allowPrivateTargets: true, resolve: resolver({}), hostAddresses: globalHost });
    for (const address of ['81.2.69.142', '64:ff9b::7f00:1', '2001:db8::1', '192.0.2.1', '127.0.0.1']) {
      const url = `http://${hostOf(address)}:9000/in`;
      assert.equal(await guard.checkRegistration(url), new URL(url).toString(), address);
    }
    await assert.rejects(guard.checkRegistration('http://8.8.8.8/in'), refused('use https'));
  });

  it('refuses at registration: private targets, http, credentials, other schemes, unresolvable names', async () => {
    const guard = new TargetGuard({
      allowPrivateTargets: false,
      resolve: resolver({
        'hooks.example': ['93.184.216.34'],
        'inside.example': ['93.184.216.34', '10.0.0.5'],
        localhost: ['127.0.0.1', '::1'],
      }),
    });
    assert.equal(await guard.checkRegistration('https://hooks.example/in#frag'), 'https://hooks.example/in');
    await assert.rejects(guard.checkRegistration('http://hooks.example/in'), refused('use https'));
    await assert.rejects(
      guard.checkRegistration('https://127.0.0.1/in'),
      refused(
        '127.0.0.1 is loopback, not a public address (loopback, private and other non-public targets are allowed only when the operator sets UGS_WEBHOOK_ALLOW_PRIVATE_TARGETS=true)',
      ),
    );
    await assert.rejects(guard.checkRegistration('https://[::1]/in'), refused('::1 is loopback'));
    await assert.rejects(
      guard.checkRegistration('https://[::ffff:127.0.0.1]/in'),
      refused('::ffff:7f00:1 is the IPv4-mapped form of 127.0.0.1, which is loopback'),
    );
    await assert.rejects(
      guard.checkRegistration('https://localhost:8443/in'),
      refused('localhost resolves to 127.0.0.1, which is loopback'),
    );
    // The URL parser turns these spellings into 127.0.0.1 before the guard sees the host.
    for (const spelled of ['https://2130706433/in', 'https://0x7f.1/in', 'https://0177.0.0.1/in', 'https://127.1/in']) {
      await assert.rejects(guard.checkRegistration(spelled), refused('127.0.0.1 is loopback'), spelled);
    }
    await assert.rejects(
      guard.checkRegistration('https://inside.example/in'),
      refused('inside.example resolves to 10.0.0.5, which is private'),
      'one private address of several is enough',
    );
    await assert.rejects(guard.checkRegistration('https://user:pass@hooks.example/in'), refused('credentials'));
    await assert.rejects(guard.checkRegistration('ftp://hooks.example/in'), refused('https URL'));
    await assert.rejects(guard.checkRegistration('not a url'), refused('absolute URL'));
    await assert.rejects(guard.checkRegistration('https://nowhere.example/in'), refused('does not resolve'));
  });

  it('allows loopback and private targets, over http or https, when the operator allows them; http to a public address still not', async () => {
    const guard = new TargetGuard({
      allowPrivateTargets: true,
      resolve: resolver({ 'hooks.example': ['93.184.216.34'], localhost: ['127.0.0.1', '::1'] }),
    });
    assert.equal(await guard.checkRegistration('http://localhost:9000/in'), 'http://localhost:9000/in');
    assert.equal(await guard.checkRegistration('http://127.0.0.1:9000/in'), 'http://127.0.0.1:9000/in');
    assert.equal(await guard.checkRegistration('https://[::1]:9000/in'), 'https://[::1]:9000/in');
    await assert.rejects(guard.checkRegistration('http://hooks.example/in'), refused('use https'));
    await assert.rejects(guard.checkRegistration('http://u:p@localhost/in'), refused('credentials'));
  });
});
