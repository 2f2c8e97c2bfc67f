import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pgSslOptions } from '../../src/embed/pg-ssl-options.js';

const CA = '-----BEGIN CERTIFICATE-----\nMIIB…\n-----END CERTIFICATE-----\n';

describe('pgSslOptions: a data source’s TLS mode as node-postgres’s ssl option', () => {
  it('disable: plain; require: encrypted, the server unchecked', () => {
    assert.equal(pgSslOptions({ mode: 'disable' }), false);
    assert.equal(pgSslOptions({ mode: 'disable', ca: CA }), false);
    assert.deepEqual(pgSslOptions({ mode: 'require' }), { rejectUnauthorized: false });
  });

  it('verify-ca: the chain to ca checked, not the name; verify-full: both', () => {
    const verifyCa = pgSslOptions({ mode: 'verify-ca', ca: CA });
    assert.ok(verifyCa);
    assert.equal(verifyCa.ca, CA);
    assert.equal(verifyCa.rejectUnauthorized, true);
    assert.equal(verifyCa.checkServerIdentity?.('db.example.com', {} as never), undefined);
    assert.deepEqual(pgSslOptions({ mode: 'verify-full', ca: CA }), { ca: CA, rejectUnauthorized: true });
  });

  it('without ca, the system’s roots: no ca key at all (an undefined one would replace them)', () => {
    assert.deepEqual(pgSslOptions({ mode: 'verify-full' }), { rejectUnauthorized: true });
    assert.ok(!('ca' in (pgSslOptions({ mode: 'verify-ca' }) as object)));
  });
});
