import assert from 'node:assert/strict';
import { createHook } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { defaultConfig } from '../../src/platform/config.js';
import { createLogger } from '../../src/platform/http/logger.js';
import { startServing } from '../../src/app/serving.js';
import { openCore, type CoreConfig } from '../../src/app/core.js';
import { createTestDatabase, testStoreKind, type TestDatabase } from '../helpers/postgres.js';
import { makeTempDir } from '../helpers/temp-dir.js';

type Background = 'interval' | 'timer' | 'file watcher';

/**
 * Records the timers and file watchers created from now on; `live()` names
 * those still scheduled or open. Timers that already fired, and ones cleared,
 * are gone: their async resource is destroyed.
 */
function watchBackground(): { live(): Background[]; stop(): void } {
  const resources = new Map<number, { type: string; resource: { _repeat?: number | null } }>();
  const hook = createHook({
    init(asyncId, type, _trigger, resource) {
      if (type === 'Timeout' || type === 'FSEVENTWRAP') resources.set(asyncId, { type, resource: resource as { _repeat?: number | null } });
    },
    destroy(asyncId) {
      resources.delete(asyncId);
    },
  }).enable();
  return {
    live: () =>
      [...resources.values()].map(({ type, resource }) =>
        type === 'FSEVENTWRAP' ? 'file watcher' : typeof resource._repeat === 'number' ? 'interval' : 'timer',
      ),
    stop: () => hook.disable(),
  };
}

describe('the composition root', () => {
  const kind = testStoreKind();
  let database: TestDatabase | undefined;
  const dataDir = makeTempDir('ugs-core');
  const secret = randomBytes(32).toString('hex');
  const config = (): CoreConfig => ({ dataDir: dataDir.path, secret, postgres: database?.config, keyCacheTtlMs: 1000 });

  before(async () => {
    if (kind === 'postgres') database = await createTestDatabase();
  });
  after(async () => {
    await database?.drop();
    dataDir.remove();
  });

  it(`opens the core (${kind}) with nothing in the background: no poller, no file watcher, so a one-shot command ends with its work`, async () => {
    const background = watchBackground();
    try {
      const core = await openCore(config());
      await core.apiKeys.create({ environment: 'Customer', access: 'read-write' });
      await core.apiKeys.list();
      await nextTurn();
      // A connection pool may hold an idle connection's timeout; nothing repeats, nothing watches.
      assert.deepEqual(
        background.live().filter((kind) => kind !== 'timer'),
        [],
      );
      await core.close();
      await nextTurn();
      assert.deepEqual(background.live(), []);
    } finally {
      background.stop();
    }
  });

  it('starts the pollers and the worker only when serving, and stops every one of them on close', async () => {
    const background = watchBackground();
    try {
      const core = await openCore(config());
      const defaults = defaultConfig();
      const serving = await startServing(core, { ...defaults, port: 0, host: '127.0.0.1', logger: createLogger('silent') });
      await nextTurn();
      // The signing keys' refresh, the server secret's watch, the webhook worker's poll (SQLite: the file's watch too).
      assert.ok(
        background.live().filter((kind) => kind === 'interval').length >= 2,
        `intervals while serving: ${background.live().join(', ')}`,
      );
      if (kind === 'sqlite') assert.ok(background.live().includes('file watcher'));
      await serving.close();
      await core.close();
      await nextTurn();
      assert.deepEqual(
        background.live().filter((kind) => kind !== 'timer'),
        [],
      );
    } finally {
      background.stop();
    }
  });
});
