import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { ApiClient } from '../helpers/http-client.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

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

async function allSealedUnderCurrent(server: TestServer): Promise<boolean> {
  const rows = await server.services.store.listUserGroupsAfter(0, 10_000);
  return rows.every((row) => server.services.cipher.isCurrent(row.tokenCiphertext));
}

describe('ugs secret rotate', () => {
  const dirs: ReturnType<typeof makeTempDir>[] = [];
  after(() => dirs.forEach((d) => d.remove()));

  it('data dir: rotates under a running server with no failed read, and the old secret is no longer needed', async () => {
    const dir = makeTempDir('ugs-rotate');
    dirs.push(dir);
    const server = await startTestServer({ dataDir: dir.path, kind: 'sqlite', secretPollMs: 100 });
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
      const rotation = await runCli(['secret', 'rotate', '--grace-ms', '500'], { UGS_DATA_DIR: dir.path });
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
    const after = await startTestServer({ dataDir: dir.path, kind: 'sqlite' });
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

  it('environment: replicas run UGS_SECRET=new with UGS_PREVIOUS_SECRET=old, rotate, then drop the old secret', async () => {
    const dir = makeTempDir('ugs-rotate');
    dirs.push(dir);
    const oldSecret = randomBytes(32).toString('hex');
    const newSecret = randomBytes(32).toString('hex');

    const before = await startTestServer({ dataDir: dir.path, secret: oldSecret, kind: 'sqlite' });
    const api0 = await before.client();
    const groups = await seed(api0, 'env', 30);
    await before.app.close();
    await before.services.close();

    const refused = await runCli(['keys', 'list'], { UGS_DATA_DIR: dir.path, UGS_SECRET: newSecret });
    assert.notEqual(refused.code, 0, 'the new secret alone cannot read tokens sealed under the old one');

    const rolling = await startTestServer({ dataDir: dir.path, secret: newSecret, previousSecret: oldSecret, kind: 'sqlite' });
    try {
      const api = await rolling.client();
      groups.push(...(await seed(api, 'env-during', 5)));
      let rotating = true;
      const reader = keepReading(api, groups, () => !rotating);
      const rotation = await runCli(['secret', 'rotate'], { UGS_DATA_DIR: dir.path, UGS_SECRET: newSecret, UGS_PREVIOUS_SECRET: oldSecret });
      rotating = false;
      assert.equal(rotation.code, 0, rotation.stderr);
      assert.match(rotation.stdout, /Re-encrypted 30 of 35/);
      assert.deepEqual((await reader).bad, []);
      assert.ok(await allSealedUnderCurrent(rolling));
    } finally {
      await rolling.app.close();
      await rolling.services.close();
    }

    const after = await startTestServer({ dataDir: dir.path, secret: newSecret, kind: 'sqlite' });
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

  it('refuses UGS_PREVIOUS_SECRET without UGS_SECRET in one line', async () => {
    const dir = makeTempDir('ugs-rotate');
    dirs.push(dir);
    const result = await runCli(['secret', 'rotate'], { UGS_DATA_DIR: dir.path, UGS_PREVIOUS_SECRET: randomBytes(32).toString('hex') });
    assert.notEqual(result.code, 0);
    assert.match(result.stderr, /UGS_PREVIOUS_SECRET is set without UGS_SECRET/);
  });
});
