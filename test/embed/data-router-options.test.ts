import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createDataRouter, type DataRouterOptions } from 'user-group-service/embed';
import { resolveDataRouterOptions } from '../../src/embed/data-router-options.js';

const valid: DataRouterOptions = { serviceUrl: 'https://ugs.example.com/prefix/', apiKey: 'ugsk_x' };

describe('createDataRouter options', () => {
  it('defaults: Customer, 100 pools of 10 connections, idle close after 10 s, answers at most 5 s old, 5 s to connect', () => {
    const resolved = resolveDataRouterOptions(valid);
    assert.equal(resolved.base.href, 'https://ugs.example.com/prefix/');
    assert.deepEqual(
      { ...resolved, base: undefined, apiKey: undefined },
      {
        base: undefined,
        apiKey: undefined,
        environment: 'Customer',
        maxPools: 100,
        maxConnectionsPerPool: 10,
        idleTimeoutMs: 10_000,
        refreshMs: 5_000,
        connectTimeoutMs: 5_000,
      },
    );
  });

  it('a value that cannot work is a TypeError at creation, not a refusal on every run', () => {
    const wrong: [Partial<DataRouterOptions>, RegExp][] = [
      [{ serviceUrl: 'ugs.example.com' }, /serviceUrl must be an absolute http\(s\) URL/],
      [{ serviceUrl: 'ftp://ugs.example.com' }, /serviceUrl/],
      [{ apiKey: '' }, /apiKey/],
      [{ apiKey: undefined }, /apiKey is required/],
      [{ environment: 'Production' as never }, /environment must be "Customer" or "Testing"/],
      [{ maxPools: 0 }, /maxPools must be an integer of at least 1/],
      [{ maxConnectionsPerPool: 1.5 }, /maxConnectionsPerPool/],
      [{ idleTimeoutMs: 0 }, /idleTimeoutMs/],
      [{ refreshMs: -1 }, /refreshMs must be an integer of at least 0/],
      [{ connectTimeoutMs: 0 }, /connectTimeoutMs/],
    ];
    for (const [options, message] of wrong) assert.throws(() => createDataRouter({ ...valid, ...options }), { name: 'TypeError', message });
  });
});
