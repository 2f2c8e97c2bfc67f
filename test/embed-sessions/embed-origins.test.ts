import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkOrigins } from '../../src/embed-sessions/embed-session.js';
import { ServiceError } from '../../src/kernel/errors.js';

const refused = (origins: string[], mentions: RegExp) =>
  assert.throws(
    () => checkOrigins(origins),
    (error) => error instanceof ServiceError && error.code === 'invalid_request' && mentions.test(error.message),
    JSON.stringify(origins),
  );

describe('checkOrigins (claim org)', () => {
  it('accepts https origins with a DNS name or IP literal host, with or without a port, and http ones of a loopback host, as given', () => {
    const origins = [
      'https://app.example.com',
      'https://app.example.com:8443',
      'https://xn--r8jz45g.jp',
      'https://intranet',
      'https://a-b.c-d.example',
      `https://${'a'.repeat(63)}.example`,
      'https://app.example.com:1',
      'https://app.example.com:65535',
      'https://192.0.2.10',
      'https://[2001:db8::1]:8443',
      'http://localhost',
      'http://localhost:3000',
      'http://127.0.0.1:3000',
      'http://127.8.9.10',
      'http://[::1]:3000',
    ];
    for (const some of [origins.slice(0, 8), origins.slice(8)]) assert.deepEqual(checkOrigins(some), some);
    assert.deepEqual(checkOrigins([]), []);
  });

  it('accepts ten origins and refuses eleven', () => {
    const ten = Array.from({ length: 10 }, (_, i) => `https://a${i}.example.com`);
    assert.deepEqual(checkOrigins(ten), ten);
    refused([...ten, 'https://b.example.com'], /at most 10/);
  });

  it('refuses http for anything but a loopback host', () => {
    for (const origin of [
      'http://app.example.com',
      'http://10.0.0.1:3000',
      'http://0.0.0.0:3000',
      'http://[::]:3000',
      'http://[::ffff:7f00:1]',
      'http://localhost.example.com',
      'http://app.localhost',
    ])
      refused([origin], /https/);
  });

  it('refuses what a CSP source list reads as a wildcard, a keyword, a second directive or no host at all: only DNS names and IP literals', () => {
    for (const origin of [
      'https://*',
      'https://*.com',
      'https://*.example.com',
      'https://a.example;sandbox',
      'https://a.example;',
      "https://'self'",
      "https://'none'",
      'https://"a".example',
      'https://{a}.example',
      'https://a_b.example',
      'https://a!b.example',
      'https://a$b.example',
      'https://a&b.example',
      'https://a=b.example',
      'https://a+b.example',
      'https://a,b.example',
      'https://a~b.example',
      'https://-a.example',
      'https://a-.example',
      'https://a..example',
      'https://.example',
      'https://example.com.',
      `https://${'a'.repeat(64)}.example`,
      `https://${Array.from({ length: 64 }, () => 'abc').join('.')}`,
    ])
      refused([origin], /host/);
  });

  it('refuses port 0 (the URL parser takes ports 0 to 65535; a browser never sends 0)', () => {
    for (const origin of ['http://localhost:0', 'https://app.example.com:0', 'http://127.0.0.1:0']) refused([origin], /port/);
  });

  it('refuses what is not written exactly as a browser sends an origin: a path, a trailing slash, upper case, a default port, credentials', () => {
    for (const origin of [
      'https://app.example.com/',
      'https://app.example.com/dashboards',
      'https://APP.example.com',
      'https://app.example.com:443',
      'https://user@app.example.com',
      'https://app.example.com?x=1',
      'https://例え.jp',
      'http://LOCALHOST',
      'http://127.1:3000',
      'https://[2001:DB8::1]',
    ]) {
      refused([origin], /origin/);
    }
  });

  it('refuses what is not an origin at all, naming the entry', () => {
    for (const origin of ['', 'app.example.com', 'null', 'javascript:alert(1)', 'ftp://files.example.com', 'http://localhost:99999'])
      refused([origin], /"origins" entry/);
    refused(['https://ok.example.com', 'nope'], /"nope"/);
  });
});
