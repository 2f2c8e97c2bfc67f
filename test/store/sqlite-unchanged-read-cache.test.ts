import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { UnchangedReadCache } from '../../src/store/sqlite/unchanged-read-cache.js';
import { makeTempDir } from '../helpers/temp-dir.js';

describe('SQLite read cache kept while nothing is written', () => {
  const dir = makeTempDir('ugs-read-cache');
  after(() => dir.remove());

  function open(name: string, maxValues = 10) {
    const path = join(dir.path, name);
    const served = new SqliteDatabase(path);
    served.pragma('journal_mode = WAL');
    served.exec('CREATE TABLE t (x INTEGER)');
    const other = new SqliteDatabase(path);
    return { served, other, cache: new UnchangedReadCache<{ x: number }>(served, maxValues) };
  }

  it('keeps values until another connection commits, whatever it wrote', () => {
    const { served, other, cache } = open('other.db');
    cache.unchanged();
    cache.keep('a', { x: 1 });
    cache.unchanged();
    assert.deepEqual(cache.get('a'), { x: 1 }, 'nothing written: kept');
    other.prepare('INSERT INTO t VALUES (1)').run();
    cache.unchanged();
    assert.equal(cache.get('a'), undefined, "another connection's commit forgets it");
    served.close();
    other.close();
  });

  it("forgets at once on this connection's own write, and on one rolled back too", () => {
    const { served, other, cache } = open('own.db');
    cache.unchanged();
    cache.keep('a', { x: 1 });
    served.prepare('INSERT INTO t VALUES (1)').run();
    cache.unchanged();
    assert.equal(cache.get('a'), undefined, 'its own write');
    cache.keep('a', { x: 1 });
    assert.throws(() =>
      served.transaction(() => {
        served.prepare('INSERT INTO t VALUES (2)').run();
        throw new Error('rolled back');
      })(),
    );
    cache.unchanged();
    assert.equal(cache.get('a'), undefined, 'a write rolled back may have been read meanwhile: forgotten as well');
    served.prepare('UPDATE t SET x = 0 WHERE 0').run();
    cache.keep('b', { x: 2 });
    cache.unchanged();
    assert.deepEqual(cache.get('b'), { x: 2 }, 'a statement that changed no row changes nothing');
    served.close();
    other.close();
  });

  it('keeps at most its number of values, the oldest read going first, each frozen', () => {
    const { served, other, cache } = open('bounded.db', 2);
    cache.unchanged();
    const first = cache.keep('a', { x: 1 });
    cache.keep('b', { x: 2 });
    cache.keep('c', { x: 3 });
    assert.deepEqual(
      ['a', 'b', 'c'].map((key) => cache.get(key)?.x),
      [undefined, 2, 3],
    );
    assert.throws(() => {
      first.x = 5;
    }, TypeError);
    served.close();
    other.close();
  });
});
