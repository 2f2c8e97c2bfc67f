import assert from 'node:assert/strict';
import { copyFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { SQLITE_FILE } from '../../../src/store/open-store.js';
import { build, type TestApp } from '../../helpers/build.js';
import { rawRequest, type ApiClient } from '../../helpers/http-client.js';
import { testStoreKind } from '../../helpers/postgres.js';
import { assertError } from './assert-error.js';

const skip = testStoreKind() === 'postgres' && 'about the SQLite file: runs in the SQLite pass';

/** The server's error-level log lines (pino level 50) that mention `pattern`. */
function errorLines(server: TestApp, pattern: RegExp): string[] {
  return server.logs
    .join('')
    .split('\n')
    .filter((line) => line.includes('"level":50') && pattern.test(line));
}

/** Repeats `call` until it answers `status`, for at most `boundMs`; the last answer. */
async function until(status: number, call: () => ReturnType<ApiClient['getOrCreate']>, boundMs = 10_000) {
  let answer = await call();
  for (let waited = 0; answer.status !== status && waited < boundMs; waited += 50) {
    await sleep(50);
    answer = await call();
  }
  return answer;
}

/**
 * The SQLite file removed or replaced under a running server: the open
 * connection would go on reading and writing a file nobody will ever open
 * again, so everything acknowledged from then on would be lost at the next
 * restart. The server refuses instead, says why once, and reports not ready.
 */
describe('the SQLite database file deleted under a running server', { skip }, () => {
  for (const [how, remove] of [
    ['deleted', (path: string) => rmSync(path)],
    [
      'replaced by a copy',
      (path: string) => {
        copyFileSync(path, `${path}.copy`);
        renameSync(`${path}.copy`, path);
      },
    ],
  ] as const) {
    it(`${how}: the next write answers 503 unavailable, /readyz 503, reads follow, one error line`, async (t) => {
      const server = await build(t, { kind: 'sqlite' });
      const { api } = server;
      const created = await api.getOrCreate({ user_group_id: 'before', name: 'Before' });
      assert.equal(created.status, 200, created.text);
      assert.equal((await rawRequest(server.url, { method: 'GET', path: '/readyz' })).status, 200);

      remove(join(server.dataDir, SQLITE_FILE));

      const write = await api.getOrCreate({ user_group_id: 'after', name: 'After' });
      const message = assertError(write, 503, 'unavailable');
      assert.match(message, /database file/i);
      assert.ok(write.headers['retry-after'], 'a Retry-After header');
      assertError(await api.update({ user_group_id: 'before', name: 'Renamed' }), 503, 'unavailable');
      assertError(await rawRequest(server.url, { method: 'GET', path: '/readyz' }), 503, 'unavailable');
      // Reads learn of it from a watcher, not a check per request.
      assertError(await until(503, () => api.getOrCreate({ user_group_id: 'before' })), 503, 'unavailable');
      assertError(await api.getOrCreate({ user_group_id: 'before' }), 503, 'unavailable');

      const lines = errorLines(server, /user-groups\.sqlite/);
      assert.equal(lines.length, 1, `one error line, not one per request:\n${lines.join('\n')}`);
      assert.match(lines[0]!, new RegExp(server.dataDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')), 'it names the file');
    });
  }
});
