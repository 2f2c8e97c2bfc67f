import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { postgresSslOptions } from '../../../src/data-sources/check/postgres-ssl-options.js';

const CA = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

describe('pg ssl options for a TLS mode', () => {
  it('disable: no TLS; require: encrypted, the server not verified', () => {
    assert.equal(postgresSslOptions({ mode: 'disable' }, 'db.example'), false);
    assert.deepEqual(postgresSslOptions({ mode: 'require', ca: CA }, 'db.example'), {
      servername: 'db.example',
      rejectUnauthorized: false,
    });
  });

  it('verify-ca: the chain verified against the CA given, the name not', () => {
    const options = postgresSslOptions({ mode: 'verify-ca', ca: CA }, 'db.example');
    assert.ok(options);
    assert.equal(options.rejectUnauthorized, true);
    assert.equal(options.ca, CA);
    assert.equal(options.servername, 'db.example');
    assert.equal(options.checkServerIdentity?.('db.example', {} as never), undefined);
  });

  it('verify-full: the chain and the name; the system roots when no CA is given', () => {
    assert.deepEqual(postgresSslOptions({ mode: 'verify-full', ca: CA }, 'db.example'), {
      servername: 'db.example',
      ca: CA,
      rejectUnauthorized: true,
    });
    assert.deepEqual(postgresSslOptions({ mode: 'verify-full' }, 'db.example'), { servername: 'db.example', rejectUnauthorized: true });
  });

  it('sends no address as SNI (RFC 6066): an address given as the host is checked as the address connected to', () => {
    for (const host of ['10.0.0.5', '::1']) {
      const options = postgresSslOptions({ mode: 'verify-full' }, host);
      assert.ok(options);
      assert.equal('servername' in options, false, host);
    }
  });
});
