import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runCli, type CliResult } from '../helpers/cli.js';
import { createTokenCipher } from '../../src/secrets/token-cipher.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { ApiClient } from '../helpers/http-client.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { build, type Teardown, type TestApp } from '../helpers/build.js';
import { webhookSecretSealContext } from '../../src/webhooks/webhook.js';
import { dataSourcePasswordSealContext } from '../../src/data-sources/data-source.js';
import { metabaseSecretSealContext } from '../../src/metabase/metabase-settings.js';
import { errorLines } from './cli-support.js';

interface Known {
  id: string;
  token: string;
}

/** Reads every known group through the API until `done`; returns how many reads failed or changed. */
async function keepReading(api: ApiClient, groups: Known[], done: () => boolean): Promise<{ reads: number; bad: string[] }> {
  const result = { reads: 0, bad: [] as string[] };
  while (!done()) {
    for (const g of groups) {
      const res = await api.getOrCreate({ user_group_id: g.id });
      result.reads++;
      if (res.status !== 200 || res.json.user_group.token !== g.token) result.bad.push(`${g.id}: ${res.status} ${res.text.slice(0, 200)}`);
    }
  }
  return result;
}

async function seed(api: ApiClient, prefix: string, count: number): Promise<Known[]> {
  const groups: Known[] = [];
  for (let i = 0; i < count; i++) {
    const res = await api.getOrCreate({ user_group_id: `${prefix}-${i}`, name: `G${i}` });
    groups.push({ id: `${prefix}-${i}`, token: res.json.user_group.token });
  }
  return groups;
}

async function allSealedUnderCurrent(server: TestApp): Promise<boolean> {
  const rows = await server.services.secretRotation.tokenReseal.listUserGroupsAfter(0, 10_000);
  return rows.every((row) => server.services.cipher.isCurrent(row.tokenCiphertext));
}

describe('ugs secret rotate', () => {
  const dirs: ReturnType<typeof makeTempDir>[] = [];
  after(() => dirs.forEach((d) => d.remove()));

  it('data dir: rotates under a running server with no failed read, and the old secret is no longer needed', async (t) => {
    const dir = makeTempDir('ugs-rotate');
    dirs.push(dir);
    const server = await build(t, { dataDir: dir.path, kind: 'sqlite', secretPollMs: 100, apiKey: false });
    const oldSecret = readFileSync(join(dir.path, 'server-secret'), 'utf8').trim();
    let groups: Known[] = [];
    try {
      const api = await server.client();
      groups = await seed(api, 'dir', 40);
      let rotating = true;
      const reader = keepReading(api, groups, () => !rotating);
      // Writes during the rotation: tokens sealed by the running server while it switches secrets.
      const writer = (async () => {
        const made: Known[] = [];
        for (let i = 0; rotating; i++) made.push(...(await seed(api, `during-${i}`, 1)));
        return made;
      })();
      const rotation = await runCli(['secret', 'rotate', '--grace-ms', '20000'], { UGS_DATA_DIR: dir.path });
      rotating = false;
      assert.equal(rotation.code, 0, rotation.stderr);
      assert.match(rotation.stdout, /Re-encrypted \d+ of \d+ user group tokens/);
      const { reads, bad } = await reader;
      assert.ok(reads >= groups.length, `reads went on during the rotation (${reads})`);
      const madeDuring = await writer;
      assert.ok(madeDuring.length > 0, 'groups were created during the rotation');
      groups.push(...madeDuring);
      assert.deepEqual(bad, [], 'every read during the rotation answered the same token');
      assert.ok(await allSealedUnderCurrent(server), 'every token is now sealed under the new secret');
    } finally {
      await server.app.close();
      await server.services.close();
    }

    const newSecret = readFileSync(join(dir.path, 'server-secret'), 'utf8').trim();
    assert.notEqual(newSecret, oldSecret);
    assert.equal(existsSync(join(dir.path, 'server-secret.previous')), false, 'the previous secret is deleted');

    // Only the new secret exists now, and it reads everything.
    const after = await build(t, { dataDir: dir.path, kind: 'sqlite', apiKey: false });
    try {
      const api = await after.client();
      for (const g of groups) assert.equal((await api.getOrCreate({ user_group_id: g.id })).json.user_group.token, g.token);
    } finally {
      await after.app.close();
      await after.services.close();
    }
    const withOld = await runCli(['keys', 'list'], { UGS_DATA_DIR: dir.path, UGS_SECRET: oldSecret });
    assert.notEqual(withOld.code, 0);
    assert.match(withOld.stderr, /not the one this store was created with/);
  });

  it('data dir: re-seals webhook signing secrets, current and previous, so they open once the old secret is gone', async (t) => {
    const dir = makeTempDir('ugs-rotate-hooks');
    dirs.push(dir);
    const server = await build(t, { dataDir: dir.path, kind: 'sqlite', webhooks: { allowPrivateTargets: true }, apiKey: false });
    const principal = { keyId: (await server.client()).keyId, environment: 'Customer' as const, access: 'read-write' as const };
    const { webhook, secret: previous } = await server.services.webhooks.create(principal, { url: 'http://127.0.0.1:9/hooks' });
    const { secret: current } = await server.services.webhooks.rotateSecret(principal, webhook.id);
    await server.app.close();
    await server.services.close();
    const rotation = await runCli(['secret', 'rotate', '--grace-ms', '20000'], { UGS_DATA_DIR: dir.path });
    assert.equal(rotation.code, 0, rotation.stderr);
    assert.equal(existsSync(join(dir.path, 'server-secret.previous')), false);
    const after = await build(t, { dataDir: dir.path, kind: 'sqlite', apiKey: false });
    try {
      const [stored] = await after.services.secretRotation.webhookReseal.listWebhookSecrets();
      const context = webhookSecretSealContext(webhook.id);
      assert.equal(after.services.cipher.open(stored!.secretCiphertext, context), current);
      assert.equal(after.services.cipher.open(stored!.previousSecretCiphertext!, context), previous);
    } finally {
      await after.app.close();
      await after.services.close();
    }
  });

  it('data dir: re-seals data source passwords, so they open once the old secret is gone', async (t) => {
    const dir = makeTempDir('ugs-rotate-sources');
    dirs.push(dir);
    const server = await build(t, { dataDir: dir.path, kind: 'sqlite', apiKey: false });
    const principal = { keyId: (await server.client()).keyId, environment: 'Customer' as const, access: 'read-write' as const };
    const connection = { host: '127.0.0.1', database: 'acme', user: 'reader', password: 'acme-password' };
    await server.services.dataSources.create(principal, { id: 'acme-db', name: 'Acme', kind: 'postgresql', connection });
    await server.services.dataSources.create(principal, {
      id: 'no-password',
      name: 'Trusted',
      kind: 'postgresql',
      connection: { ...connection, password: null },
    });
    const [before] = await server.services.secretRotation.dataSourceReseal.listDataSourcePasswords();
    await server.app.close();
    await server.services.close();
    const rotation = await runCli(['secret', 'rotate', '--grace-ms', '20000'], { UGS_DATA_DIR: dir.path });
    assert.equal(rotation.code, 0, rotation.stderr);
    const after = await build(t, { dataDir: dir.path, kind: 'sqlite', apiKey: false });
    try {
      const stored = await after.services.secretRotation.dataSourceReseal.listDataSourcePasswords();
      assert.deepEqual(
        stored.map((s) => s.id),
        ['acme-db'],
        'a data source without a password has nothing to re-seal',
      );
      assert.notDeepEqual(stored[0]!.passwordCiphertext, before!.passwordCiphertext);
      assert.equal(
        after.services.cipher.open(stored[0]!.passwordCiphertext, dataSourcePasswordSealContext('Customer', 'acme-db')),
        'acme-password',
      );
      const dashboard = { keyId: principal.keyId, environment: 'Customer' as const, access: 'dashboard' as const };
      const credentials = await after.services.dataSources.credentials(dashboard, 'acme-db');
      assert.equal(credentials.connection.password, 'acme-password');
      assert.equal(credentials.version, 1, 're-sealing is not a change of the data source: routers keep their pools');
    } finally {
      await after.app.close();
      await after.services.close();
    }
  });

  it("data dir: re-seals each environment's Metabase secret key, so mints sign with it once the old secret is gone", async (t) => {
    const dir = makeTempDir('ugs-rotate-metabase');
    dirs.push(dir);
    const keys = { Customer: 'ab01'.repeat(16), Testing: 'cd23'.repeat(16) } as const;
    const server = await build(t, { dataDir: dir.path, kind: 'sqlite', apiKey: false });
    const writer = (environment: 'Customer' | 'Testing') => ({ keyId: 'rotation-test', environment, access: 'read-write' }) as const;
    for (const environment of ['Customer', 'Testing'] as const)
      await server.services.metabase.configure(writer(environment), { siteUrl: 'https://mb.example.com', secretKey: keys[environment] });
    await server.services.userGroups.getOrCreate(writer('Customer'), { userGroupId: 'acme', name: 'Acme' });
    const before = await server.services.secretRotation.metabaseReseal.listMetabaseSecrets();
    const settingsBefore = await server.services.metabase.get(writer('Customer'));
    await server.app.close();
    await server.services.close();
    const rotation = await runCli(['secret', 'rotate', '--grace-ms', '20000'], { UGS_DATA_DIR: dir.path });
    assert.equal(rotation.code, 0, rotation.stderr);
    const after = await build(t, { dataDir: dir.path, kind: 'sqlite', apiKey: false });
    try {
      const stored = await after.services.secretRotation.metabaseReseal.listMetabaseSecrets();
      assert.deepEqual(
        stored.map((s) => s.environment),
        ['Customer', 'Testing'],
      );
      for (const [i, { environment, secretCiphertext }] of stored.entries()) {
        assert.notDeepEqual(secretCiphertext, before[i]!.secretCiphertext, `${environment}: sealed anew`);
        assert.equal(after.services.cipher.open(secretCiphertext, metabaseSecretSealContext(environment)), keys[environment]);
      }
      assert.deepEqual(await after.services.metabase.get(writer('Customer')), settingsBefore, 're-sealing is not a change of the settings');
      const minted = await after.services.metabase.mint(writer('Customer'), {
        userGroupId: 'acme',
        resource: { dashboard: 1 },
        params: { tenant: 'user_group_id' },
      });
      const [header, payload, signature] = minted.token.split('.');
      assert.equal(createHmac('sha256', keys.Customer).update(`${header}.${payload}`).digest('base64url'), signature);
    } finally {
      await after.app.close();
      await after.services.close();
    }
  });

  it('environment: replicas run UGS_SECRET=new with UGS_PREVIOUS_SECRET=old, rotate, then drop the old secret', async (t) => {
    const dir = makeTempDir('ugs-rotate');
    dirs.push(dir);
    const oldSecret = randomBytes(32).toString('hex');
    const newSecret = randomBytes(32).toString('hex');

    const before = await build(t, { dataDir: dir.path, secret: oldSecret, kind: 'sqlite', apiKey: false });
    const api0 = await before.client();
    const groups = await seed(api0, 'env', 30);
    await before.app.close();
    await before.services.close();

    const refused = await runCli(['keys', 'list'], { UGS_DATA_DIR: dir.path, UGS_SECRET: newSecret });
    assert.notEqual(refused.code, 0, 'the new secret alone cannot read tokens sealed under the old one');

    const rolling = await build(t, {
      dataDir: dir.path,
      secret: newSecret,
      previousSecret: oldSecret,
      kind: 'sqlite',
      secretPollMs: 100,
      apiKey: false,
    });
    try {
      const api = await rolling.client();
      groups.push(...(await seed(api, 'env-during', 5)));
      let rotating = true;
      const reader = keepReading(api, groups, () => !rotating);
      const rotation = await runCli(['secret', 'rotate'], {
        UGS_DATA_DIR: dir.path,
        UGS_SECRET: newSecret,
        UGS_PREVIOUS_SECRET: oldSecret,
      });
      rotating = false;
      assert.equal(rotation.code, 0, rotation.stderr);
      // Until the rotation, the rolling server sealed new tokens under the store's (old) secret too.
      assert.match(rotation.stdout, /Re-encrypted 35 of 35/);
      assert.deepEqual((await reader).bad, []);
      assert.ok(await allSealedUnderCurrent(rolling));
    } finally {
      await rolling.app.close();
      await rolling.services.close();
    }

    const after = await build(t, { dataDir: dir.path, secret: newSecret, kind: 'sqlite', apiKey: false });
    try {
      const api = await after.client();
      for (const g of groups) assert.equal((await api.getOrCreate({ user_group_id: g.id })).json.user_group.token, g.token);
    } finally {
      await after.app.close();
      await after.services.close();
    }
    const withOld = await runCli(['keys', 'list'], { UGS_DATA_DIR: dir.path, UGS_SECRET: oldSecret });
    assert.notEqual(withOld.code, 0, 'the old secret is no longer accepted');
  });

  /** Starts an in-process server on `dir` (following rotations every 100 ms) and stops it afterwards. */
  async function withServerOn<T>(
    t: Teardown,
    dir: string,
    secrets: { secret?: string; previousSecret?: string },
    body: (server: TestApp, api: ApiClient) => Promise<T>,
  ): Promise<T> {
    const server = await build(t, { dataDir: dir, kind: 'sqlite', secretPollMs: 100, ...secrets, apiKey: false });
    try {
      return await body(server, await server.client());
    } finally {
      await server.close();
    }
  }
  const rotate = (dir: string, env: Record<string, string>, grace = '20000') =>
    runCli(['secret', 'rotate', '--grace-ms', grace], { UGS_SECRET: '', UGS_DATA_DIR: dir, ...env });
  const oneLine = (result: CliResult) => errorLines(result.stderr);
  /** A store whose groups are sealed under `oldSecret`. */
  async function storeUnder(t: Teardown, oldSecret: string, count = 3): Promise<{ dir: string; groups: Known[] }> {
    const dir = makeTempDir('ugs-rotate');
    dirs.push(dir);
    const groups = await withServerOn(t, dir.path, { secret: oldSecret }, (_server, api) => seed(api, 'g', count));
    return { dir: dir.path, groups };
  }
  async function readsUnchanged(api: ApiClient, groups: Known[]): Promise<void> {
    for (const g of groups) {
      const res = await api.getOrCreate({ user_group_id: g.id });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.user_group.token, g.token);
    }
  }

  describe('the wrong order is refused with a clear error, or is safe', () => {
    it('refuses to rotate while a running server has only the old UGS_SECRET, naming it; reads go on', async (t) => {
      const [oldSecret, newSecret] = [randomBytes(32).toString('hex'), randomBytes(32).toString('hex')];
      const { dir, groups } = await storeUnder(t, oldSecret);
      await withServerOn(t, dir, { secret: oldSecret }, async (_server, api) => {
        const refused = await rotate(dir, { UGS_SECRET: newSecret, UGS_PREVIOUS_SECRET: oldSecret });
        assert.notEqual(refused.code, 0, refused.stdout);
        assert.equal(oneLine(refused).length, 1, refused.stderr);
        assert.match(refused.stderr, new RegExp(`pid ${process.pid}\\b.*does not have the new secret.*UGS_PREVIOUS_SECRET`));
        assert.ok(!refused.stderr.includes(newSecret) && !refused.stderr.includes(oldSecret), 'no secret in the error');
        await readsUnchanged(api, groups);
      });
      // The documented order then works.
      await withServerOn(t, dir, { secret: newSecret, previousSecret: oldSecret }, async (_server, api) => {
        const rotated = await rotate(dir, { UGS_SECRET: newSecret, UGS_PREVIOUS_SECRET: oldSecret });
        assert.equal(rotated.code, 0, rotated.stderr);
        await readsUnchanged(api, groups);
      });
    });

    it('during the rolling restart, groups a server with both secrets creates stay readable by one with only the old', async (t) => {
      const [oldSecret, newSecret] = [randomBytes(32).toString('hex'), randomBytes(32).toString('hex')];
      const { dir } = await storeUnder(t, oldSecret);
      await withServerOn(t, dir, { secret: oldSecret }, async (_notYet, oldOnly) => {
        await withServerOn(t, dir, { secret: newSecret, previousSecret: oldSecret }, async (_rolled, rolled) => {
          const made = await seed(rolled, 'rolled', 3);
          await readsUnchanged(oldOnly, made);
        });
      });
    });

    it('refuses UGS_SECRET and UGS_PREVIOUS_SECRET swapped, with servers running or not', async (t) => {
      const [oldSecret, newSecret] = [randomBytes(32).toString('hex'), randomBytes(32).toString('hex')];
      const { dir, groups } = await storeUnder(t, oldSecret);
      const swapped = { UGS_SECRET: oldSecret, UGS_PREVIOUS_SECRET: newSecret };
      await withServerOn(t, dir, { secret: newSecret, previousSecret: oldSecret }, async (_server, api) => {
        const refused = await rotate(dir, swapped);
        assert.notEqual(refused.code, 0, refused.stdout);
        assert.equal(oneLine(refused).length, 1, refused.stderr);
        assert.match(refused.stderr, /swapped/);
        await readsUnchanged(api, groups);
      });
      const offline = await rotate(dir, swapped);
      assert.notEqual(offline.code, 0, offline.stdout);
      assert.match(offline.stderr, /swapped/);
      // Nothing moved: the old secret alone still opens the store.
      assert.equal((await runCli(['migrate'], { UGS_DATA_DIR: dir, UGS_SECRET: oldSecret })).code, 0);
    });

    it('refuses to start without UGS_PREVIOUS_SECRET while a rotation is unfinished, and the rerun finishes it', async (t) => {
      const [oldSecret, newSecret] = [randomBytes(32).toString('hex'), randomBytes(32).toString('hex')];
      const { dir, groups } = await storeUnder(t, oldSecret);
      // A server slow to notice the rotation: the rotation gives up waiting for it and stays unfinished.
      const slow = await build(t, {
        dataDir: dir,
        kind: 'sqlite',
        secret: newSecret,
        previousSecret: oldSecret,
        secretPollMs: 600_000,
        apiKey: false,
      });
      try {
        const unfinished = await rotate(dir, { UGS_SECRET: newSecret, UGS_PREVIOUS_SECRET: oldSecret }, '300');
        assert.notEqual(unfinished.code, 0, unfinished.stdout);
        assert.match(unfinished.stderr, /has not switched.*run `ugs secret rotate` again/);
        const dropped = await runCli(['migrate'], { UGS_DATA_DIR: dir, UGS_SECRET: newSecret });
        assert.notEqual(dropped.code, 0, 'a server without the old secret would fail on tokens not yet re-encrypted');
        assert.match(dropped.stderr, /rotation.*unfinished.*UGS_PREVIOUS_SECRET/);
        await readsUnchanged(await slow.client(), groups);
      } finally {
        await slow.close();
      }
      const rerun = await rotate(dir, { UGS_SECRET: newSecret, UGS_PREVIOUS_SECRET: oldSecret });
      assert.equal(rerun.code, 0, rerun.stderr);
      await withServerOn(t, dir, { secret: newSecret }, (_server, api) => readsUnchanged(api, groups));
    });

    it('refuses a rotation a running server cannot follow: environment mode over a data-dir server, and the reverse', async (t) => {
      const dir = makeTempDir('ugs-rotate');
      dirs.push(dir);
      await withServerOn(t, dir.path, {}, async (_server, api) => {
        const groups = await seed(api, 'dd', 2);
        const fileSecret = readFileSync(join(dir.path, 'server-secret'), 'utf8').trim();
        const refused = await rotate(dir.path, { UGS_SECRET: randomBytes(32).toString('hex'), UGS_PREVIOUS_SECRET: fileSecret });
        assert.notEqual(refused.code, 0, refused.stdout);
        assert.match(refused.stderr, /data dir/);
        await readsUnchanged(api, groups);
      });
      const fileSecret = readFileSync(join(dir.path, 'server-secret'), 'utf8').trim();
      await withServerOn(t, dir.path, { secret: fileSecret }, async (_server, api) => {
        const groups = await seed(api, 'env', 2);
        const refused = await rotate(dir.path, {});
        assert.notEqual(refused.code, 0, refused.stdout);
        assert.match(refused.stderr, /UGS_SECRET/);
        await readsUnchanged(api, groups);
      });
    });

    it('a server gone without a clean stop blocks only until its record expires', async (t) => {
      const [oldSecret, newSecret] = [randomBytes(32).toString('hex'), randomBytes(32).toString('hex')];
      const { dir } = await storeUnder(t, oldSecret, 1);
      const { store } = await SqliteStore.open({ path: join(dir, 'user-groups.sqlite') });
      try {
        const oldOnly = createTokenCipher(oldSecret);
        const crashed = {
          pid: 999_999,
          host: 'gone',
          source: 'UGS_SECRET',
          dataDir: null,
          configured: oldOnly.secretCheck,
          known: [oldOnly.secretCheck],
          sealing: oldOnly.secretCheck,
          ttlMs: 30_000,
        };
        await store.settings.putSetting('secret_holder:crashed-recently', JSON.stringify({ ...crashed, seenAt: new Date().toISOString() }));
        const blocked = await rotate(dir, { UGS_SECRET: newSecret, UGS_PREVIOUS_SECRET: oldSecret });
        assert.notEqual(blocked.code, 0, blocked.stdout);
        assert.match(blocked.stderr, /pid 999999 on gone.*expires/);
        await store.settings.putSetting(
          'secret_holder:crashed-recently',
          JSON.stringify({ ...crashed, seenAt: new Date(Date.now() - 31_000).toISOString() }),
        );
      } finally {
        await store.close();
      }
      const rotated = await rotate(dir, { UGS_SECRET: newSecret, UGS_PREVIOUS_SECRET: oldSecret });
      assert.equal(rotated.code, 0, rotated.stderr);
    });

    it('a token under a secret the server does not have answers 503 unavailable with one log line, not 500', async (t) => {
      const secret = randomBytes(32).toString('hex');
      const { dir, groups } = await storeUnder(t, secret, 1);
      await withServerOn(t, dir, { secret }, async (server, api) => {
        const [row] = await server.services.secretRotation.tokenReseal.listUserGroupsAfter(0, 1);
        const foreign = createTokenCipher(randomBytes(32).toString('hex')).encrypt(groups[0]!.token, row!.environment, row!.providedId);
        assert.ok(await server.services.secretRotation.tokenReseal.replaceTokenCiphertext(row!.teamId, row!.tokenCiphertext, foreign));
        const before = server.logs.length;
        const res = await api.getOrCreate({ user_group_id: groups[0]!.id });
        assert.equal(res.status, 503, res.text);
        assert.equal(res.json.error.code, 'unavailable');
        const lines = server.logs.slice(before).filter((line) => /server secret/.test(line));
        assert.equal(lines.length, 1, server.logs.slice(before).join(''));
        assert.doesNotMatch(lines[0]!, /"level":50/, 'a warning, not an internal error');
      });
    });
  });

  it('refuses UGS_PREVIOUS_SECRET without UGS_SECRET in one line', async () => {
    const dir = makeTempDir('ugs-rotate');
    dirs.push(dir);
    const result = await runCli(['secret', 'rotate'], { UGS_DATA_DIR: dir.path, UGS_PREVIOUS_SECRET: randomBytes(32).toString('hex') });
    assert.notEqual(result.code, 0);
    assert.match(result.stderr, /UGS_PREVIOUS_SECRET is set without UGS_SECRET/);
  });
});
