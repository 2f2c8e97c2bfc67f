import assert from 'node:assert/strict';
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { SQLITE_FILE } from '../../src/store/open-store.js';
import { ApiClient } from '../helpers/http-client.js';
import { assertOneLineFailure, Sandbox, stopServer } from './cli-support.js';

/**
 * A data dir that held a store but has lost its database file (deleted, or
 * replaced by an empty one) is refused at start: quietly creating a new,
 * empty store there would look like every group and key had vanished. Making
 * a new store there takes `ugs migrate --create`. A fresh data dir needs nothing.
 */
describe('a data dir whose database file is missing', () => {
  const sandbox = new Sandbox();
  after(() => sandbox.cleanup());

  /** A data dir holding a store with one key and one group; the server stopped. */
  async function usedDataDir(): Promise<{ dir: string; key: string }> {
    const dir = sandbox.dir('ugs-missing');
    const server = await sandbox.serve(dir);
    const { key } = await sandbox.createKey(dir);
    assert.equal((await new ApiClient(server.url, key).getOrCreate({ user_group_id: 'kept', name: 'Kept' })).status, 200);
    assert.equal(await stopServer(server), 0, server.output());
    return { dir, key };
  }

  function removeDatabase(dir: string): void {
    for (const name of readdirSync(dir).filter((n) => n.startsWith(SQLITE_FILE))) rmSync(join(dir, name));
  }

  it('is refused by every command in one line, exit 1, and no empty database is created', async () => {
    const { dir } = await usedDataDir();
    removeDatabase(dir);
    for (const command of [['migrate'], ['keys', 'list'], ['serve']]) {
      const result = await sandbox.ugs(dir, command);
      assertOneLineFailure(result, [join(dir, SQLITE_FILE), 'ugs migrate --create']);
      assert.equal(result.code, 1);
      assert.equal(existsSync(join(dir, SQLITE_FILE)), false, `${command.join(' ')} created a database`);
    }
  });

  it('is refused when an empty file stands in its place', async () => {
    const { dir } = await usedDataDir();
    removeDatabase(dir);
    writeFileSync(join(dir, SQLITE_FILE), '');
    const result = await sandbox.ugs(dir, ['serve']);
    assertOneLineFailure(result, [join(dir, SQLITE_FILE), 'ugs migrate --create']);
  });

  it('gets a new, empty store with `ugs migrate --create`, which then serves', async () => {
    const { dir, key } = await usedDataDir();
    removeDatabase(dir);
    const created = await sandbox.ugs(dir, ['migrate', '--create']);
    assert.equal(created.code, 0, created.stderr);
    assert.ok(existsSync(join(dir, SQLITE_FILE)));

    const server = await sandbox.serve(dir);
    const old = await new ApiClient(server.url, key).getOrCreate({ user_group_id: 'kept' });
    assert.equal(old.status, 401, 'a new store: the old key is not in it');
    const { key: fresh } = await sandbox.createKey(dir);
    const group = await new ApiClient(server.url, fresh).getOrCreate({ user_group_id: 'kept', name: 'Kept again' });
    assert.equal(group.json.new_user_group, true, group.text);
    assert.equal(await stopServer(server), 0, server.output());

    const again = await sandbox.ugs(dir, ['migrate']);
    assert.equal(again.code, 0, `the new store is this dir's store from now on: ${again.stderr}`);
  });

  it('is no obstacle for a fresh data dir, existing or not: `ugs serve` starts in one command', async () => {
    for (const dir of [sandbox.dir('ugs-fresh'), join(sandbox.dir('ugs-fresh'), 'not', 'there', 'yet')]) {
      const server = await sandbox.serve(dir);
      assert.equal((await sandbox.createKey(dir)).key.startsWith('ugsk_'), true);
      assert.equal(await stopServer(server), 0, server.output());
      const restarted = await sandbox.serve(dir);
      assert.equal(await stopServer(restarted), 0, restarted.output());
    }
  });
});
