import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ServiceError } from '../../src/domain/errors.js';
import { isPrivateAddress, TargetGuard } from '../../src/webhooks/target-guard.js';

const refused = (fragment: string) => (error: unknown) => error instanceof ServiceError && error.code === 'invalid_request' && error.message.includes(fragment);

/** A resolver that answers from a table, so names of other networks are tested without any DNS or traffic. */
function resolver(table: Record<string, string[]>) {
  return async (hostname: string) => {
    const addresses = table[hostname];
    if (!addresses) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

describe('webhook target guard', () => {
  it('classifies loopback, private, link-local, shared, unspecified, multicast and IPv4-mapped addresses as private', () => {
    const privateOnes = [
      '127.0.0.1', '127.255.255.254', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0',
      '224.0.0.1', '255.255.255.255', '::1', '::', 'fc00::1', 'fd12:3456::1', 'fe80::1', 'ff02::1',
      '::ffff:127.0.0.1', '::ffff:10.0.0.1', '::127.0.0.1', '::7f00:1', '::ffff:a9fe:a9fe', '0:0:0:0:0:ffff:192.168.0.1', 'not-an-address',
    ];
    const publicOnes = ['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2001:4860:4860::8888', '::ffff:8.8.8.8'];
    for (const address of privateOnes) assert.equal(isPrivateAddress(address), true, address);
    for (const address of publicOnes) assert.equal(isPrivateAddress(address), false, address);
  });

  it('refuses at registration: private targets, http, credentials, other schemes, unresolvable names', async () => {
    const guard = new TargetGuard({ allowPrivateTargets: false, resolve: resolver({ 'hooks.example': ['93.184.216.34'], 'inside.example': ['93.184.216.34', '10.0.0.5'], localhost: ['127.0.0.1', '::1'] }) });
    assert.equal(await guard.checkRegistration('https://hooks.example/in#frag'), 'https://hooks.example/in');
    await assert.rejects(guard.checkRegistration('http://hooks.example/in'), refused('use https'));
    await assert.rejects(guard.checkRegistration('https://127.0.0.1/in'), refused('private address'));
    await assert.rejects(guard.checkRegistration('https://[::1]/in'), refused('private address'));
    await assert.rejects(guard.checkRegistration('https://[::ffff:127.0.0.1]/in'), refused('private address'));
    await assert.rejects(guard.checkRegistration('https://localhost:8443/in'), refused('private address'));
    await assert.rejects(guard.checkRegistration('https://inside.example/in'), refused('private address'), 'one private address of several is enough');
    await assert.rejects(guard.checkRegistration('https://user:pass@hooks.example/in'), refused('credentials'));
    await assert.rejects(guard.checkRegistration('ftp://hooks.example/in'), refused('https URL'));
    await assert.rejects(guard.checkRegistration('not a url'), refused('absolute URL'));
    await assert.rejects(guard.checkRegistration('https://nowhere.example/in'), refused('does not resolve'));
  });

  it('allows loopback and private targets, over http or https, when the operator allows them; http to a public address still not', async () => {
    const guard = new TargetGuard({ allowPrivateTargets: true, resolve: resolver({ 'hooks.example': ['93.184.216.34'], localhost: ['127.0.0.1', '::1'] }) });
    assert.equal(await guard.checkRegistration('http://localhost:9000/in'), 'http://localhost:9000/in');
    assert.equal(await guard.checkRegistration('http://127.0.0.1:9000/in'), 'http://127.0.0.1:9000/in');
    assert.equal(await guard.checkRegistration('https://[::1]:9000/in'), 'https://[::1]:9000/in');
    await assert.rejects(guard.checkRegistration('http://hooks.example/in'), refused('use https'));
    await assert.rejects(guard.checkRegistration('http://u:p@localhost/in'), refused('credentials'));
  });
});
