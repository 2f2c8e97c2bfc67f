import assert from 'node:assert/strict';
import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { build } from '../../helpers/build.js';
import { rawRequest, type RawResponse } from '../../helpers/http-client.js';
import { mountTmpfs, mountUnavailable, type Mount } from '../../helpers/mounts.js';
import { testStoreKind } from '../../helpers/postgres.js';
import { assertError } from './assert-error.js';

const skip = (testStoreKind() === 'postgres' && 'about the SQLite file: runs in the SQLite pass') || mountUnavailable();

/** Fills the file system holding `path` with one file until it refuses (ENOSPC). */
function fill(path: string): void {
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(16 * 1024);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    closeSync(fd);
  }
}

/**
 * The data dir on a small tmpfs that the test fills up: SQLite's writes then
 * fail with a real ENOSPC (SQLITE_FULL). The service answers 503 with
 * Retry-After, never 500, reports not ready, says so once in its log, and
 * recovers by itself once there is room again.
 */
describe('a full disk under a running server', { skip }, () => {
  it('answers writes 503 unavailable with Retry-After, /readyz 503, logs one error line; all well again once space is freed', async (t) => {
    const server = await build(t, { kind: 'sqlite', dataDir: mountTmpfs(2 * 1024 * 1024) as Mount });
    const { api } = server;
    assert.equal((await api.getOrCreate({ user_group_id: 'before', name: 'Before' })).status, 200);
    const filler = join(server.dataDir, 'filler');
    fill(filler);

    let refused: RawResponse | undefined;
    for (let i = 0; i < 200 && !refused; i++) {
      const answer = await api.getOrCreate({
        user_group_id: `while-full-${i}`,
        name: 'x'.repeat(200),
        properties: { pad: 'y'.repeat(4000) },
      });
      assert.ok(answer.status === 200 || answer.status === 503, `never anything but 200 or 503: ${answer.status} ${answer.text}`);
      if (answer.status === 503) refused = answer;
    }
    assert.ok(refused, 'a write was refused once the disk was full');
    assert.match(assertError(refused, 503, 'unavailable'), /disk|space|full/i);
    assert.ok(refused.headers['retry-after'], 'Retry-After');
    assertError(await api.getOrCreate({ user_group_id: 'one-more', name: 'x', properties: { pad: 'y'.repeat(4000) } }), 503, 'unavailable');
    assertError(await rawRequest(server.url, { method: 'GET', path: '/readyz' }), 503, 'unavailable');
    assert.equal((await api.getOrCreate({ user_group_id: 'before' })).status, 200, 'reads still work');

    const lines = server.logs
      .join('')
      .split('\n')
      .filter((line) => line.includes('"level":50'));
    assert.equal(lines.length, 1, `one error line, not one per request:\n${lines.join('\n')}`);
    assert.match(lines[0]!, /full/i);

    rmSync(filler);
    let ready = await rawRequest(server.url, { method: 'GET', path: '/readyz' });
    for (let waited = 0; ready.status !== 200 && waited < 10_000; waited += 100) {
      await sleep(100);
      ready = await rawRequest(server.url, { method: 'GET', path: '/readyz' });
    }
    assert.equal(ready.status, 200, ready.text);
    assert.equal((await api.getOrCreate({ user_group_id: 'after', name: 'After' })).status, 200);
  });
});
