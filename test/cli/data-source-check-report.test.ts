import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { printCheck } from '../../src/cli/data-source-check-report.js';
import type { ConnectionCheckResult } from '../../src/data-sources/connection-check.js';

function printed(result: ConnectionCheckResult): { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  printCheck(result, { log: (line: string) => out.push(line), error: (line: string) => err.push(line) });
  return { out, err };
}

const CONNECTED: ConnectionCheckResult = {
  reachable: true,
  authenticated: true,
  serverVersion: '17.2',
  superuser: false,
  bypassRls: false,
  tls: true,
  failure: null,
  durationMs: 12.4,
};

describe('ugs data-sources check, as printed', () => {
  it('one aligned line per category, no warning for a role row policies bind', () => {
    assert.deepEqual(printed(CONNECTED), {
      out: [
        'reachable       yes',
        'authenticated   yes',
        'server version  17.2',
        'superuser       no',
        'bypass RLS      no',
        'TLS             yes',
        'failure         none',
        'took            12 ms',
      ],
      err: [],
    });
  });

  it('says what it could not learn, and warns on stderr of a superuser or BYPASSRLS role', () => {
    const failed = printed({
      ...CONNECTED,
      authenticated: false,
      serverVersion: null,
      superuser: null,
      bypassRls: null,
      failure: 'authentication_failed',
    });
    assert.deepEqual(failed.out.slice(1, 7), [
      'authenticated   no',
      'server version  unknown',
      'superuser       unknown',
      'bypass RLS      unknown',
      'TLS             yes',
      'failure         authentication_failed',
    ]);
    assert.deepEqual(failed.err, []);
    assert.match(printed({ ...CONNECTED, bypassRls: true }).err.join(), /BYPASSRLS: row policies do not bind it/);
    assert.match(printed({ ...CONNECTED, superuser: true }).err.join(), /a superuser: row policies do not bind it/);
  });
});
