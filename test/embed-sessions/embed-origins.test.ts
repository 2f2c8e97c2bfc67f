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
  it('accepts https origins with or without a port, and http://localhost with or without one, as given', () => {
    const origins = [
      'https://app.example.com',
      'https://app.example.com:8443',
      'https://xn--r8jz45g.jp',
      'http://localhost',
      'http://localhost:3000',
    ];
    assert.deepEqual(checkOrigins(origins), origins);
    assert.deepEqual(checkOrigins([]), []);
  });

  it('accepts ten origins and refuses eleven', () => {
    const ten = Array.from({ length: 10 }, (_, i) => `https://a${i}.example.com`);
    assert.deepEqual(checkOrigins(ten), ten);
    refused([...ten, 'https://b.example.com'], /at most 10/);
  });

  it('refuses http for anything but localhost', () => {
    for (const origin of [
      'http://app.example.com',
      'http://127.0.0.1:3000',
      'http://[::1]:3000',
      'http://localhost.example.com',
      'http://LOCALHOST',
    ])
      refused([origin], /https/);
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
