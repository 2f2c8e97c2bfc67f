import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { DataSourceCache } from '../../src/embed/data-source-cache.js';
import type { RoutedDataSource } from '../../src/embed/data-source-credentials.js';

/** The router's memory of the service's answers, on a clock the test moves, with answers the test releases. */

const source = (id: string, version: number): RoutedDataSource => ({
  id,
  environment: 'Customer',
  kind: 'postgresql',
  version,
  postgres: null,
});

interface Asked {
  id: string;
  answer(value: RoutedDataSource | null): void;
  fail(error: Error): void;
}

describe('DataSourceCache: answers no older than refreshMs, one request for concurrent runs', () => {
  let asked: Asked[];
  let changes: [string, number | null][];
  const cache = (refreshMs: number, maxEntries = 100) =>
    new DataSourceCache(
      (id) =>
        new Promise((resolve, reject) => {
          asked.push({ id, answer: resolve, fail: reject });
        }),
      refreshMs,
      maxEntries,
      (id, answer) => changes.push([id, answer?.version ?? null]),
    );
  const settle = () => new Promise((resolve) => setImmediate(resolve));

  beforeEach(() => {
    asked = [];
    changes = [];
    mock.timers.enable({ apis: ['Date'], now: 1_000_000 });
  });
  afterEach(() => mock.timers.reset());

  it('concurrent callers share one request; within refreshMs nobody asks again; after it, the next caller does', async () => {
    const sources = cache(5_000);
    const calls = [sources.current('a'), sources.current('a'), sources.current('a')];
    assert.equal(asked.length, 1);
    asked[0]!.answer(source('a', 1));
    for (const answer of await Promise.all(calls)) assert.equal(answer?.version, 1);
    mock.timers.tick(5_000);
    assert.equal((await sources.current('a'))?.version, 1, 'refreshMs old: still fresh enough');
    assert.equal(asked.length, 1);
    mock.timers.tick(1);
    const later = sources.current('a');
    assert.equal(asked.length, 2, 'older than refreshMs: asked again');
    asked[1]!.answer(source('a', 2));
    assert.equal((await later)?.version, 2);
    assert.deepEqual(changes, [
      ['a', 1],
      ['a', 2],
    ]);
  });

  it('a caller never joins a request sent more than refreshMs before it began: the bound holds while the service is slow', async () => {
    const sources = cache(1_000);
    const first = sources.current('a');
    mock.timers.tick(1_001);
    const second = sources.current('a');
    assert.equal(asked.length, 2, 'the first request is too old to vouch for the second caller');
    asked[1]!.answer(source('a', 2));
    assert.equal((await second)?.version, 2);
    // The older request answers last, with what was true when it was sent: it replaces nothing.
    asked[0]!.answer(source('a', 1));
    assert.equal((await first)?.version, 2, 'its caller gets the newer answer');
    assert.equal((await sources.current('a'))?.version, 2);
    assert.deepEqual(changes, [['a', 2]]);
  });

  it('an absent data source (null) is remembered for refreshMs too', async () => {
    const sources = cache(1_000);
    const call = sources.current('gone');
    asked[0]!.answer(null);
    assert.equal(await call, null);
    assert.equal(await sources.current('gone'), null);
    assert.equal(asked.length, 1);
    assert.deepEqual(changes, [['gone', null]]);
  });

  it('fails closed: a failed request keeps nothing, its callers get the error, and an answer older than refreshMs is never used', async () => {
    const sources = cache(1_000);
    const first = sources.current('a');
    asked[0]!.answer(source('a', 1));
    await first;
    mock.timers.tick(1_001);
    const failing = sources.current('a');
    asked[1]!.fail(new Error('HTTP 503'));
    await assert.rejects(failing, /HTTP 503/);
    const retried = sources.current('a');
    assert.equal(asked.length, 3, 'the next caller asks again, rather than taking the stale answer');
    asked[2]!.answer(source('a', 1));
    assert.equal((await retried)?.version, 1);
  });

  it('forget(): the next caller asks, however fresh the answer', async () => {
    const sources = cache(60_000);
    const first = sources.current('a');
    asked[0]!.answer(source('a', 1));
    await first;
    sources.forget('a');
    const next = sources.current('a');
    assert.equal(asked.length, 2);
    asked[1]!.answer(source('a', 1));
    await next;
  });

  it('remembers at most maxEntries data sources, forgetting the least recently used first', async () => {
    const sources = cache(60_000, 2);
    for (const id of ['a', 'b']) {
      const call = sources.current(id);
      asked.at(-1)!.answer(source(id, 1));
      await call;
    }
    await sources.current('a');
    const c = sources.current('c');
    asked.at(-1)!.answer(source('c', 1));
    await c;
    assert.equal(asked.length, 3);
    await sources.current('a');
    assert.equal(asked.length, 3, 'a was used more recently than b: kept');
    const b = sources.current('b');
    assert.equal(asked.length, 4, 'b was forgotten');
    asked.at(-1)!.answer(source('b', 1));
    await b;
    await settle();
  });
});
