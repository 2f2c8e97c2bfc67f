import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { importJWK, jwtVerify, SignJWT } from 'jose';
import { ServiceError } from '../../src/kernel/errors.js';
import { createSigningKeyring, loadSigningKeyring, SigningKeys } from '../../src/signing-keys/signing-keys.js';
import { createTokenCipher } from '../../src/secrets/token-cipher.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const MAX_AGE_SECONDS = 300;
/** A retired key stays published this long after it stopped signing: the longest session (24 h) and 60 s of clock tolerance. */
const PUBLISHED_AFTER_MS = (86_400 + 60) * 1000;
const cipher = createTokenCipher('s'.repeat(32));

describe('SigningKeys on a real SQLite store', () => {
  const dirs: ReturnType<typeof makeTempDir>[] = [];
  const stores: SqliteStore[] = [];
  after(async () => {
    for (const store of stores) await store.close();
    for (const dir of dirs) dir.remove();
  });

  async function openStore(path?: string): Promise<SqliteStore> {
    if (path === undefined) {
      const dir = makeTempDir('ugs-signing-keys');
      dirs.push(dir);
      path = join(dir.path, 'store.sqlite');
    }
    const { store } = await SqliteStore.open({ path });
    stores.push(store);
    return store;
  }

  /** A process's SigningKeys whose clock the test moves. */
  function keysOn(store: SqliteStore, clock: { now: Date }): SigningKeys {
    return new SigningKeys({
      environment: 'Customer',
      store: store.signingKeys,
      settings: store.settings,
      cipher,
      algorithm: 'EdDSA',
      jwksMaxAgeSeconds: MAX_AGE_SECONDS,
      now: () => clock.now,
    });
  }

  async function verifies(keys: SigningKeys, signer: SigningKeys): Promise<void> {
    const active = signer.active();
    const token = await new SignJWT({ sub: 'x' }).setProtectedHeader({ alg: active.algorithm, kid: active.kid }).sign(active.privateKey);
    const jwk = keys.jwks().keys.find((k) => k.kid === active.kid);
    assert.ok(jwk, `kid ${active.kid} is published`);
    await jwtVerify(token, await importJWK(jwk, active.algorithm));
  }

  it('creates the first key on first load, active at once, published without its private half', async () => {
    const store = await openStore();
    const clock = { now: new Date('2026-03-01T00:00:00.000Z') };
    const keys = keysOn(store, clock);
    await keys.load();
    const stored = await store.signingKeys.listSigningKeys('Customer');
    assert.equal(stored.length, 1);
    assert.deepEqual([stored[0]!.generation, stored[0]!.activatesAt], [1, clock.now.toISOString()]);
    assert.equal(keys.active().kid, stored[0]!.kid);
    const { keys: published } = keys.jwks();
    assert.deepEqual(
      published.map((k) => [k.kid, k.alg, k.use, k.kty, k.crv]),
      [[stored[0]!.kid, 'EdDSA', 'sig', 'OKP', 'Ed25519']],
    );
    assert.equal('d' in published[0]!, false, 'no private part in the JWKS');
    assert.ok(!stored[0]!.privateKeyCiphertext.toString('latin1').includes('PRIVATE KEY'), 'the private key is sealed at rest');
    await verifies(keys, keys);

    await keys.load();
    assert.equal((await store.signingKeys.listSigningKeys('Customer')).length, 1, 'a second load creates nothing');
  });

  it('rotation publishes the new key at once, signs with it only after the JWKS max-age, and drops expired keys on the next rotation', async () => {
    const store = await openStore();
    const clock = { now: new Date('2026-03-01T00:00:00.000Z') };
    const keys = keysOn(store, clock);
    await keys.load();
    const firstKid = keys.active().kid;

    clock.now = new Date('2026-03-02T00:00:00.000Z');
    const rotated = await keys.rotate();
    const takesOver = Date.parse('2026-03-02T00:00:00.000Z') + MAX_AGE_SECONDS * 1000;
    assert.equal(rotated.state, 'pending');
    assert.equal(rotated.key.generation, 2);
    assert.equal(rotated.key.activatesAt, new Date(takesOver).toISOString());
    assert.deepEqual(
      keys.jwks().keys.map((k) => k.kid),
      [firstKid, rotated.key.kid],
      'both published from the moment of rotation',
    );
    assert.equal(keys.active().kid, firstKid, 'the old key still signs');

    // Another process sharing the store learns the new key on its next refresh.
    const other = keysOn(store, clock);
    await other.load();
    assert.deepEqual(
      other.jwks().keys.map((k) => k.kid),
      [firstKid, rotated.key.kid],
    );

    clock.now = new Date(takesOver - 1);
    assert.equal(keys.active().kid, firstKid);
    clock.now = new Date(takesOver);
    assert.equal(keys.active().kid, rotated.key.kid, 'the new key signs once the max-age has passed');
    assert.equal(other.active().kid, rotated.key.kid, 'every process switches at the same instant, without a reread');
    assert.ok(keys.verificationKey(firstKid), 'the old key still verifies its tokens');
    await verifies(other, keys);

    clock.now = new Date(takesOver + PUBLISHED_AFTER_MS - 1);
    assert.deepEqual(
      keys.jwks().keys.map((k) => k.kid),
      [firstKid, rotated.key.kid],
    );
    clock.now = new Date(takesOver + PUBLISHED_AFTER_MS);
    assert.deepEqual(
      keys.jwks().keys.map((k) => k.kid),
      [rotated.key.kid],
      'gone from the JWKS once its last token expired',
    );
    assert.equal(keys.verificationKey(firstKid), undefined);
    assert.equal((await store.signingKeys.listSigningKeys('Customer')).length, 2, 'still stored until the next rotation');

    const third = await keys.rotate();
    assert.deepEqual(
      (await store.signingKeys.listSigningKeys('Customer')).map((k) => k.kid),
      [rotated.key.kid, third.key.kid],
      'the expired key is deleted',
    );
    assert.equal(third.key.generation, 3);
  });

  it('concurrent first loads by two processes on one store create exactly one key', async () => {
    const first = await openStore();
    const path = join(dirs.at(-1)!.path, 'store.sqlite');
    const second = await openStore(path);
    const clock = { now: new Date('2026-03-01T00:00:00.000Z') };
    const a = keysOn(first, clock);
    const b = keysOn(second, clock);
    const c = keysOn(first, clock);
    await Promise.all([a.load(), b.load(), c.load()]);
    assert.equal((await first.signingKeys.listSigningKeys('Customer')).length, 1);
    assert.equal(a.active().kid, b.active().kid);
    assert.equal(c.active().kid, b.active().kid);
  });

  it('concurrent rotations by two processes both land, one generation each', async () => {
    const first = await openStore();
    const second = await openStore(join(dirs.at(-1)!.path, 'store.sqlite'));
    const clock = { now: new Date('2026-03-01T00:00:00.000Z') };
    const a = keysOn(first, clock);
    const b = keysOn(second, clock);
    await a.load();
    await b.load();
    const [ra, rb] = await Promise.all([a.rotate(), b.rotate()]);
    assert.notEqual(ra.key.kid, rb.key.kid);
    assert.deepEqual(
      (await first.signingKeys.listSigningKeys('Customer')).map((k) => k.generation),
      [1, 2, 3],
    );
  });

  it('says "unavailable" (retry shortly) rather than signing with nothing when no key is active yet', async () => {
    const store = await openStore();
    const clock = { now: new Date('2026-03-01T00:00:00.000Z') };
    const keys = keysOn(store, clock);
    await keys.load();
    const early = keysOn(store, { now: new Date('2026-02-28T00:00:00.000Z') });
    await early.refresh();
    assert.throws(
      () => early.active(),
      (error) => error instanceof ServiceError && error.code === 'unavailable',
    );
  });

  it('a rotation run with a shorter max-age (the CLI) waits for the one the last serving process promised', async () => {
    const store = await openStore();
    const clock = { now: new Date('2026-05-01T00:00:00.000Z') };
    const server = new SigningKeys({
      environment: 'Customer',
      store: store.signingKeys,
      settings: store.settings,
      cipher,
      algorithm: 'EdDSA',
      jwksMaxAgeSeconds: 3600,
      now: () => clock.now,
    });
    await server.load({ serving: true });
    const cli = new SigningKeys({
      environment: 'Customer',
      store: store.signingKeys,
      settings: store.settings,
      cipher,
      algorithm: 'EdDSA',
      jwksMaxAgeSeconds: 60,
      now: () => clock.now,
    });
    await cli.load();
    const phase = await cli.rotate();
    assert.equal(phase.key.activatesAt, new Date(clock.now.getTime() + 3600 * 1000).toISOString());
  });

  it('a max-age shortened between two rotations never schedules a key before the one already waiting: one key is active at a time', async () => {
    const store = await openStore();
    const clock = { now: new Date('2026-06-01T00:00:00.000Z') };
    const long = new SigningKeys({
      environment: 'Customer',
      store: store.signingKeys,
      settings: store.settings,
      cipher,
      algorithm: 'EdDSA',
      jwksMaxAgeSeconds: 600,
      now: () => clock.now,
    });
    await long.load();
    const first = await long.rotate();
    const short = new SigningKeys({
      environment: 'Customer',
      store: store.signingKeys,
      settings: store.settings,
      cipher,
      algorithm: 'EdDSA',
      jwksMaxAgeSeconds: 60,
      now: () => clock.now,
    });
    const second = await short.rotate();
    assert.ok(second.key.activatesAt > first.key.activatesAt, `${second.key.activatesAt} after ${first.key.activatesAt}`);
    for (const offset of [0, 61, 601, 602, 3600].map((s) => s * 1000)) {
      clock.now = new Date(Date.parse('2026-06-01T00:00:00.000Z') + offset);
      await short.refresh();
      assert.equal(short.timeline().filter((p) => p.state === 'active').length, 1, `one active key at +${offset / 1000} s`);
    }
  });

  it("gives each environment its own keys: one first key each, rotated apart, neither verifying the other's tokens", async () => {
    const store = await openStore();
    const clock = { now: new Date('2026-07-01T00:00:00.000Z') };
    const ring = createSigningKeyring({
      store: store.signingKeys,
      settings: store.settings,
      cipher,
      algorithm: 'EdDSA',
      jwksMaxAgeSeconds: MAX_AGE_SECONDS,
      now: () => clock.now,
    });
    await loadSigningKeyring(ring);
    const customer = ring.Customer.active();
    const testing = ring.Testing.active();
    assert.notEqual(customer.kid, testing.kid);
    assert.deepEqual(
      ring.Customer.jwks().keys.map((k) => k.kid),
      [customer.kid],
    );
    assert.deepEqual(
      ring.Testing.jwks().keys.map((k) => k.kid),
      [testing.kid],
    );
    assert.equal(ring.Customer.verificationKey(testing.kid), undefined, 'a Testing kid is no Customer key');
    assert.equal(ring.Testing.verificationKey(customer.kid), undefined, 'and the other way');

    const rotated = await ring.Testing.rotate();
    assert.equal(rotated.key.environment, 'Testing');
    assert.equal(rotated.key.generation, 2);
    assert.deepEqual(
      ring.Testing.jwks().keys.map((k) => k.kid),
      [testing.kid, rotated.key.kid],
    );
    await ring.Customer.refresh();
    assert.deepEqual(
      ring.Customer.jwks().keys.map((k) => k.kid),
      [customer.kid],
      'a Testing rotation publishes nothing for Customer',
    );
    assert.deepEqual(
      (await store.signingKeys.listSigningKeys('Customer')).map((k) => k.generation),
      [1],
    );
  });
});
