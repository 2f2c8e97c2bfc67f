import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/platform/config.js';
import { trustedProxyCheck } from '../../src/platform/http/trusted-proxies.js';

const base = { UGS_DATA_DIR: '/tmp/ugs-config-test' };

describe('settings', () => {
  it('bound connections by default: 100 per client address, idle keep-alive 10 s, headers 10 s, whole request 30 s', () => {
    const { http } = loadConfig(base);
    assert.deepEqual(
      [http.maxConnections, http.maxConnectionsPerAddress, http.keepAliveTimeoutMs, http.headersTimeoutMs, http.requestTimeoutMs],
      [10_000, 100, 10_000, 10_000, 30_000],
    );
    assert.equal(loadConfig({ ...base, UGS_MAX_CONNECTIONS_PER_ADDRESS: '7' }).http.maxConnectionsPerAddress, 7);
    assert.throws(
      () => loadConfig({ ...base, UGS_MAX_CONNECTIONS_PER_ADDRESS: '0' }),
      /^ConfigError: Invalid UGS_MAX_CONNECTIONS_PER_ADDRESS="0"/,
    );
  });

  describe('UGS_TRUST_PROXY', () => {
    it('is off by default, and when empty or false', () => {
      for (const value of [undefined, '', 'false']) assert.deepEqual(loadConfig({ ...base, UGS_TRUST_PROXY: value }).trustedProxies, []);
    });

    it('takes addresses, CIDRs of either family and the names loopback, linklocal, uniquelocal', () => {
      const { trustedProxies } = loadConfig({ ...base, UGS_TRUST_PROXY: ' 10.0.0.0/8, 192.0.2.7 ,2001:db8::/32,loopback,uniquelocal' });
      assert.deepEqual(trustedProxies, ['10.0.0.0/8', '192.0.2.7', '2001:db8::/32', 'loopback', 'uniquelocal']);
      const trusted = trustedProxyCheck(trustedProxies);
      for (const address of ['10.1.2.3', '::ffff:10.1.2.3', '192.0.2.7', '2001:db8::1', '127.0.0.5', '::1', '192.168.1.1', 'fd12::1'])
        assert.ok(trusted(address), address);
      for (const address of ['192.0.2.8', '11.0.0.1', '2001:db9::1', 'fe80::1', '', undefined])
        assert.equal(trusted(address), false, String(address));
    });

    for (const [value, reason] of [
      ['true', /would trust any address/],
      ['2', /hop count would trust any address/],
      ['10.0.0.0/33', /"10.0.0.0\/33" is not an IP address/],
      ['10.0.0.0/8,proxy.internal', /"proxy.internal" is not an IP address/],
      ['10.0.0.0/8,', /"" is not/],
    ] as const) {
      it(`refuses ${value} with one line saying why`, () => {
        assert.throws(
          () => loadConfig({ ...base, UGS_TRUST_PROXY: value }),
          (error: Error) =>
            error instanceof ConfigError &&
            error.message.startsWith(`Invalid UGS_TRUST_PROXY=${JSON.stringify(value)}: `) &&
            reason.test(error.message),
        );
      });
    }
  });

  it('webhooks: Standard Webhooks schedule, 15 s timeout, disabled after 5 days, 1 s poll, private targets refused, by default', () => {
    const { webhooks } = loadConfig(base);
    assert.deepEqual(webhooks, {
      timeoutMs: 15_000,
      retryScheduleMs: [0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
      disableAfterMs: 120 * 3_600_000,
      pollMs: 1000,
      allowPrivateTargets: false,
    });
    const set = loadConfig({
      ...base,
      UGS_WEBHOOK_RETRY_SCHEDULE_SECONDS: ' 0, 1 ,1',
      UGS_WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      UGS_WEBHOOK_TIMEOUT_SECONDS: '2',
    }).webhooks;
    assert.deepEqual([set.retryScheduleMs, set.allowPrivateTargets, set.timeoutMs], [[0, 1000, 1000], true, 2000]);
    for (const [name, value] of [
      ['UGS_WEBHOOK_RETRY_SCHEDULE_SECONDS', '0,5m'],
      ['UGS_WEBHOOK_RETRY_SCHEDULE_SECONDS', ','],
      ['UGS_WEBHOOK_ALLOW_PRIVATE_TARGETS', 'yes'],
      ['UGS_WEBHOOK_TIMEOUT_SECONDS', '0'],
    ] as const) {
      assert.throws(
        () => loadConfig({ ...base, [name]: value }),
        (error: Error) => error instanceof ConfigError && error.message.startsWith(`Invalid ${name}=${JSON.stringify(value)}: `),
      );
    }
  });

  it("embed tokens: each environment its own issuer and audience, Customer's as before; Testing's may not equal Customer's", () => {
    const { embed } = loadConfig(base);
    assert.deepEqual(
      [embed.issuer, embed.audience, embed.testingIssuer, embed.testingAudience],
      ['user-group-service', 'embedded-dashboards', 'user-group-service-testing', 'embedded-dashboards-testing'],
    );
    const set = loadConfig({
      ...base,
      UGS_EMBED_ISSUER: 'https://ugs.example.com',
      UGS_EMBED_TESTING_ISSUER: 'https://ugs.example.com/testing',
      UGS_EMBED_TESTING_AUDIENCE: 'bi-staging',
    }).embed;
    assert.deepEqual(
      [set.issuer, set.testingIssuer, set.audience, set.testingAudience],
      ['https://ugs.example.com', 'https://ugs.example.com/testing', 'embedded-dashboards', 'bi-staging'],
    );
    for (const [env, named] of [
      [{ UGS_EMBED_TESTING_ISSUER: 'user-group-service' }, 'UGS_EMBED_TESTING_ISSUER and UGS_EMBED_ISSUER are both "user-group-service"'],
      [{ UGS_EMBED_ISSUER: 'ugs', UGS_EMBED_TESTING_ISSUER: 'ugs' }, 'UGS_EMBED_TESTING_ISSUER and UGS_EMBED_ISSUER are both "ugs"'],
      [
        { UGS_EMBED_AUDIENCE: 'embedded-dashboards-testing' },
        'UGS_EMBED_TESTING_AUDIENCE and UGS_EMBED_AUDIENCE are both "embedded-dashboards-testing"',
      ],
    ] as const) {
      assert.throws(
        () => loadConfig({ ...base, ...env }),
        (error: Error) =>
          error instanceof ConfigError &&
          error.message.startsWith(`${named}: Testing embed tokens must name another`) &&
          !error.message.includes('\n'),
      );
    }
  });
});
