import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { runCli } from '../helpers/cli.js';
import { ApiClient } from '../helpers/http-client.js';
import { build } from '../helpers/build.js';
import { Sandbox, STACK_LINE, stopServer, waitForOutput } from './cli-support.js';

/** `ugs signing-keys list --json`, one entry. */
interface SigningKeyView {
  environment: 'Customer' | 'Testing';
  kid: string;
  algorithm: string;
  state: string;
  created_at: string;
  signs_from: string;
  signs_until: string | null;
  published_until: string | null;
}

/** A retired key stays published this long after it stopped signing: the longest session (24 h) and 60 s of clock tolerance. */
const PUBLISHED_AFTER_MS = (86_400 + 60) * 1000;

const mint = (api: ApiClient, body: unknown) => api.call('POST', body, { path: '/api/embed_sessions' });

async function verifyWithJose(url: string, token: string): Promise<void> {
  await jwtVerify(token, createRemoteJWKSet(new URL('/.well-known/jwks.json', url)), {
    algorithms: ['ES256'],
    issuer: 'user-group-service',
    audience: 'embedded-dashboards',
    typ: 'embed+jwt',
  });
}

/** Polls `check` until it holds, for at most `boundMs`; returns its last value. */
async function eventually<T>(what: string, probe: () => Promise<T>, check: (value: T) => boolean, boundMs = 45_000): Promise<T> {
  const deadline = Date.now() + boundMs;
  for (;;) {
    const value = await probe();
    if (check(value)) return value;
    if (Date.now() > deadline) assert.fail(`gave up waiting for ${what}; last: ${JSON.stringify(value)}`);
    await sleep(250);
  }
}

describe('ugs signing-keys and embed keys', () => {
  const sandbox = new Sandbox();
  after(() => sandbox.cleanup());

  async function listKeys(dir: string, environment?: 'Customer' | 'Testing'): Promise<SigningKeyView[]> {
    const result = await sandbox.ugs(dir, ['signing-keys', 'list', '--json', ...(environment ? ['--environment', environment] : [])]);
    assert.equal(result.code, 0, result.stderr);
    return JSON.parse(result.stdout) as SigningKeyView[];
  }

  /** The start-time warnings about the signing algorithm in a server's log: one per environment whose key differs. */
  function algorithmWarnings(output: string): { environment: string; signing: string; configured: string; msg: string }[] {
    return output
      .split('\n')
      .filter((line) => line.includes('"level":40') && line.includes('UGS_EMBED_ALGORITHM is'))
      .map((line) => JSON.parse(line) as { environment: string; signing: string; configured: string; msg: string });
  }

  it('keeps the keys of a store made with EdDSA after the default became ES256, and says once per environment at start how to move', async () => {
    const dir = sandbox.dir();
    const made = await sandbox.serve(dir, { UGS_EMBED_ALGORITHM: 'EdDSA' });
    assert.deepEqual(algorithmWarnings(made.output()), [], 'a store signing with the configured algorithm is not warned about');
    assert.equal(await stopServer(made), 0, made.output());

    const upgraded = await sandbox.serve(dir);
    const warnings = algorithmWarnings(upgraded.output());
    assert.deepEqual(
      warnings.map((w) => [w.environment, w.signing, w.configured]),
      [
        ['Customer', 'EdDSA', 'ES256'],
        ['Testing', 'EdDSA', 'ES256'],
      ],
      upgraded.output(),
    );
    assert.match(warnings[0]!.msg, /`ugs signing-keys rotate --environment Customer` moves to it/);
    assert.match(warnings[0]!.msg, /\/\.well-known\/jwks\.json\?alg=ES256\)$/);
    assert.match(warnings[1]!.msg, /\/\.well-known\/jwks-testing\.json\?alg=ES256\)$/);
    assert.equal(await stopServer(upgraded), 0, upgraded.output());
    assert.deepEqual(
      (await listKeys(dir)).map((k) => k.algorithm),
      ['EdDSA', 'EdDSA'],
      'the upgrade changes no key',
    );

    // UGS_WORKERS: the primary says it; its workers, which start on the same store, do not repeat it.
    const workers = await sandbox.serve(dir, { UGS_WORKERS: '2' });
    await waitForOutput(workers, '"msg":"all workers listening"');
    assert.deepEqual(
      algorithmWarnings(workers.output()).map((w) => w.environment),
      ['Customer', 'Testing'],
      workers.output(),
    );
    assert.equal(await stopServer(workers), 0, workers.output());

    const pinned = await sandbox.serve(dir, { UGS_EMBED_ALGORITHM: 'EdDSA' });
    assert.deepEqual(algorithmWarnings(pinned.output()), [], pinned.output());
    assert.equal(await stopServer(pinned), 0, pinned.output());
  });

  it('lists one active key per environment after the first start, then rotate publishes a pending one in each and says when it signs', async () => {
    const dir = sandbox.dir();
    assert.equal((await sandbox.ugs(dir, ['migrate'])).code, 0, 'the first start makes the store and its signing key');
    const table = await sandbox.ugs(dir, ['signing-keys', 'list']);
    assert.equal(table.code, 0, table.stderr);
    const firsts = await listKeys(dir);
    assert.deepEqual(
      firsts.map((k) => k.environment),
      ['Customer', 'Testing'],
    );
    assert.equal((await listKeys(dir)).length, 2, 'listing again creates nothing');
    for (const first of firsts) {
      assert.deepEqual([first.algorithm, first.state, first.signs_until, first.published_until], ['ES256', 'active', null, null]);
      assert.ok(
        new RegExp(`${first.environment}\\s.*${first.kid}.*\\bactive\\b`).test(table.stdout),
        `the table shows each key with its environment:\n${table.stdout}`,
      );
      assert.ok(!/PRIVATE|"d"/.test(table.stdout + JSON.stringify(first)), 'no private key material');
    }
    assert.deepEqual(await listKeys(dir, 'Testing'), [firsts[1]], "--environment lists one environment's keys");

    const rotatedAt = Date.now();
    const rotated = await sandbox.ugs(dir, ['signing-keys', 'rotate']);
    assert.equal(rotated.code, 0, rotated.stderr);
    for (const [i, environment] of (['Customer', 'Testing'] as const).entries()) {
      const keys = await listKeys(dir, environment);
      assert.deepEqual(
        keys.map((k) => [k.kid === firsts[i]!.kid, k.state]),
        [
          [true, 'active'],
          [false, 'pending'],
        ],
        environment,
      );
      const [old, next] = keys as [SigningKeyView, SigningKeyView];
      assert.ok(
        rotated.stdout.includes(`${environment} signing key ${next.kid}`),
        `rotate names each new kid with its environment:\n${rotated.stdout}`,
      );
      assert.ok(rotated.stdout.includes(next.signs_from), `rotate says when it signs:\n${rotated.stdout}`);
      const waits = Date.parse(next.signs_from) - rotatedAt;
      assert.ok(waits > 290_000 && waits <= 300_000 + 60_000, `signs after the JWKS max-age (300 s), not ${waits} ms`);
      assert.equal(old.signs_until, next.signs_from);
      assert.equal(old.published_until, new Date(Date.parse(next.signs_from) + PUBLISHED_AFTER_MS).toISOString());
    }

    const testingOnly = await sandbox.ugs(dir, ['signing-keys', 'rotate', '--environment', 'Testing']);
    assert.equal(testingOnly.code, 0, testingOnly.stderr);
    assert.deepEqual(
      [(await listKeys(dir, 'Customer')).length, (await listKeys(dir, 'Testing')).length],
      [2, 3],
      '--environment rotates that environment only',
    );
    assert.ok(!testingOnly.stdout.includes('Customer'), testingOnly.stdout);
    const refused = await sandbox.ugs(dir, ['signing-keys', 'rotate', '--environment', 'Production']);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /argument 'Production' is invalid/);
  });

  it('a running server publishes a key rotated by the CLI within its refresh interval, and tokens minted before still verify', async () => {
    const dir = sandbox.dir();
    const { key } = await sandbox.createKey(dir);
    const server = await sandbox.serve(dir);
    try {
      const api = new ApiClient(server.url, key);
      await api.getOrCreate({ user_group_id: 'rot-g', name: 'Rotating keys' });
      const before = (await mint(api, { user_group_id: 'rot-g' })).json.embed_session.token;
      const oldKid = decodeProtectedHeader(before).kid;
      const jwksBefore = (await api.call('GET', undefined, { path: '/.well-known/jwks.json' })).json.keys;
      assert.deepEqual(
        jwksBefore.map((k: { kid: string }) => k.kid),
        [oldKid],
      );

      assert.equal((await sandbox.ugs(dir, ['signing-keys', 'rotate'])).code, 0);
      const newKid = (await listKeys(dir, 'Customer'))[1]!.kid;
      const published = await eventually(
        'the server to publish the rotated key',
        async () => (await api.call('GET', undefined, { path: '/.well-known/jwks.json' })).json.keys.map((k: { kid: string }) => k.kid),
        (kids: string[]) => kids.length === 2,
      );
      assert.deepEqual(published, [oldKid, newKid]);
      await verifyWithJose(server.url, before);
      const after = (await mint(api, { user_group_id: 'rot-g' })).json.embed_session.token;
      assert.equal(decodeProtectedHeader(after).kid, oldKid, 'the pending key does not sign yet');
      await verifyWithJose(server.url, after);
      assert.equal((await api.call('POST', { token: before }, { path: '/api/embed_sessions/introspect' })).json.active, true);
      const rotations = (await api.call('GET', undefined, { path: '/api/events?limit=100' })).json.events.filter(
        (e: { type: string }) => e.type === 'signing_key.rotated',
      );
      assert.deepEqual(
        rotations.map((e: { data: unknown }) => e.data),
        [{ api_environment_tag: 'Customer', signing_key_id: newKid, activates_at: (await listKeys(dir, 'Customer'))[1]!.signs_from }],
        "each environment's rotation is an event of that environment only, naming the kid only; the first key was none",
      );
    } finally {
      assert.equal(await stopServer(server), 0, server.output());
    }
  });

  it('keys create --access embed makes a key that mints but reads no group; --read-only still works; --read-only with --access is refused', async () => {
    const dir = sandbox.dir();
    const embed = await sandbox.createKey(dir, ['--access', 'embed', '--name', 'page backend']);
    assert.match(embed.result.stdout, /\bembed\b/);
    const reader = await sandbox.createKey(dir, ['--read-only']);
    const writer = await sandbox.createKey(dir, ['--access', 'read-write']);
    const { keys } = await sandbox.listKeys(dir);
    assert.deepEqual(
      [embed.id, reader.id, writer.id].map((id) => keys.find((k) => k.id === id)?.access),
      ['embed', 'read-only', 'read-write'],
    );
    // A usage error: commander's one-line error first, then a pointer to --help (showHelpAfterError).
    for (const [args, error] of [
      [['--read-only', '--access', 'embed'], /^error: option '--read-only' cannot be used with option '--access/],
      [['--access', 'read-only', '--read-only'], /^error: option '--read-only' cannot be used with option '--access/],
      [['--access', 'admin'], /^error: option '--access <access>' argument 'admin' is invalid/],
    ] as const) {
      const refused = await sandbox.ugs(dir, ['keys', 'create', ...args]);
      assert.notEqual(refused.code, 0, refused.stdout);
      assert.match(refused.stderr, error);
      assert.ok(!refused.stderr.includes(STACK_LINE) && !/ugsk_/.test(refused.stdout + refused.stderr), refused.stderr);
    }
    assert.equal((await sandbox.listKeys(dir)).keys.length, 3, 'the refused commands created nothing');

    const server = await sandbox.serve(dir);
    try {
      await new ApiClient(server.url, writer.key).getOrCreate({ user_group_id: 'e-g', name: 'E' });
      const api = new ApiClient(server.url, embed.key);
      const minted = await mint(api, { user_group_id: 'e-g' });
      assert.equal(minted.status, 201, minted.text);
      await verifyWithJose(server.url, minted.json.embed_session.token);
      assert.equal((await api.getOrCreate({ user_group_id: 'e-g' })).status, 403);
    } finally {
      assert.equal(await stopServer(server), 0, server.output());
    }
  });

  it('server secret rotation re-seals the signing keys: with the previous secret gone, the same key still signs tokens jose verifies', async () => {
    const dir = sandbox.dir();
    const { key } = await sandbox.createKey(dir);
    const [before] = await listKeys(dir, 'Customer');
    const rotation = await sandbox.ugs(dir, ['secret', 'rotate']);
    assert.equal(rotation.code, 0, rotation.stderr);

    const server = await sandbox.serve(dir);
    try {
      const api = new ApiClient(server.url, key);
      await api.getOrCreate({ user_group_id: 'after-secret', name: 'After' });
      const minted = await mint(api, { user_group_id: 'after-secret' });
      assert.equal(minted.status, 201, minted.text);
      assert.equal(decodeProtectedHeader(minted.json.embed_session.token).kid, before!.kid, 'the key itself did not change');
      await verifyWithJose(server.url, minted.json.embed_session.token);
    } finally {
      assert.equal(await stopServer(server), 0, server.output());
    }
    assert.deepEqual(
      (await listKeys(dir, 'Customer')).map((k) => k.kid),
      [before!.kid],
    );
  });

  it('a server running through a server secret rotation mints and verifies right after it, having signed nothing before', async (t) => {
    const dir = sandbox.dir();
    const running = await build(t, { dataDir: dir, kind: 'sqlite', secretPollMs: 100, apiKey: false });
    try {
      const api = await running.client();
      await api.getOrCreate({ user_group_id: 'through', name: 'Through' });
      const rotation = await runCli(['secret', 'rotate', '--grace-ms', '20000'], { UGS_SECRET: '', UGS_DATA_DIR: dir });
      assert.equal(rotation.code, 0, rotation.stderr);
      assert.equal(existsSync(join(dir, 'server-secret.previous')), false, 'the previous secret is gone');
      const minted = await mint(api, { user_group_id: 'through' });
      assert.equal(minted.status, 201, minted.text);
      await verifyWithJose(running.url, minted.json.embed_session.token);
      const stored = [
        ...(await running.services.secretRotation.signingKeyReseal.listSigningKeys('Customer')),
        ...(await running.services.secretRotation.signingKeyReseal.listSigningKeys('Testing')),
      ];
      assert.equal(stored.length, 2, 'one key per environment');
      assert.ok(
        stored.every((k) => running.services.cipher.isCurrent(k.privateKeyCiphertext)),
        'every signing key is sealed under the new secret',
      );
    } finally {
      await running.close();
    }
  });
});
