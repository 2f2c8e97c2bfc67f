import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { mountUnavailable, readOnlyView, type Mount } from '../helpers/mounts.js';
import { createTestDatabase } from '../helpers/postgres.js';
import { assertOneLineFailure, Sandbox } from './cli-support.js';

const skip = mountUnavailable();

/**
 * A data dir the service may not write (seen through a read-only bind mount,
 * since the tests run as root and root ignores permissions): start-up is one
 * line naming the folder and exit 1, never a stack trace.
 */
describe('a read-only data dir at start', { skip }, () => {
  const sandbox = new Sandbox();
  const mounts: Mount[] = [];
  after(async () => {
    for (const mount of mounts) mount.remove();
    await sandbox.cleanup();
  });

  function readOnly(dir: string): string {
    const view = readOnlyView(dir) as Mount;
    mounts.push(view);
    return view.path;
  }

  it('holding a store: `ugs serve` and `ugs migrate` fail in one line, exit 1', async () => {
    const dir = sandbox.dir('ugs-ro-used');
    assert.equal((await sandbox.ugs(dir, ['migrate'])).code, 0);
    const view = readOnly(dir);
    for (const command of [['serve'], ['migrate']]) {
      const result = await sandbox.ugs(view, command);
      assertOneLineFailure(result, [view, /read-only/]);
      assert.equal(result.code, 1);
    }
  });

  it('fresh and empty: `ugs serve` fails in one line, exit 1', async () => {
    const view = readOnly(sandbox.dir('ugs-ro-fresh'));
    const result = await sandbox.ugs(view, ['serve']);
    assertOneLineFailure(result, [view, /read-only/]);
    assert.equal(result.code, 1);
  });

  it('PostgreSQL, a fresh database: the server secret cannot be written, one line naming it, exit 1', async () => {
    const database = await createTestDatabase();
    try {
      const view = readOnly(sandbox.dir('ugs-ro-postgres'));
      for (const command of [['keys', 'create'], ['serve']]) {
        const result = await sandbox.ugs(view, command, { DATABASE_URL: database.url });
        assertOneLineFailure(result, [`${view}/server-secret`, 'UGS_SECRET', 'EROFS']);
        assert.equal(result.code, 1);
      }
    } finally {
      await database.drop();
    }
  });
});
