import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { ServiceError } from '../../src/kernel/errors.js';
import { GroupCommit } from '../../src/store/sqlite/group-commit.js';
import { makeTempDir } from '../helpers/temp-dir.js';

function openCounting(path: string) {
  const db = new SqliteDatabase(path);
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, v TEXT UNIQUE)');
  let commits = 0;
  const exec = db.exec.bind(db);
  db.exec = (sql: string) => {
    if (sql === 'COMMIT') commits++;
    return exec(sql);
  };
  return { db, commits: () => commits };
}

describe('SQLite group commit', () => {
  it('commits a burst of concurrent writes in one transaction, answering each only after the commit', async () => {
    const dir = makeTempDir('ugs-gc');
    const { db, commits } = openCounting(join(dir.path, 'g.sqlite'));
    try {
      const group = new GroupCommit(db);
      const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
      const results = await Promise.all(Array.from({ length: 100 }, (_, i) => group.run(() => insert.run(`v${i}`).changes)));
      assert.deepEqual(results, Array(100).fill(1));
      assert.equal(commits(), 1, 'one COMMIT for the burst');
      assert.equal(db.inTransaction, false);
      const reader = new SqliteDatabase(join(dir.path, 'g.sqlite'), { readonly: true });
      assert.equal(
        reader.prepare<[], { n: number }>('SELECT count(*) AS n FROM t').get()!.n,
        100,
        'committed, visible to another connection',
      );
      reader.close();
    } finally {
      db.close();
      dir.remove();
    }
  });

  it("rolls back all of a failing write's statements and rejects only it; its neighbours in the batch commit", async () => {
    const dir = makeTempDir('ugs-gc');
    const { db } = openCounting(join(dir.path, 'g.sqlite'));
    try {
      const group = new GroupCommit(db);
      const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
      const outcomes = await Promise.allSettled([
        group.run(() => insert.run('a')),
        group.run(() => {
          insert.run('b');
          insert.run('a'); // violates UNIQUE: the write's first insert must vanish with it
        }),
        group.run(() => {
          insert.run('d');
          throw new Error('a write that fails after its first statement');
        }),
        group.run(() => insert.run('c')),
      ]);
      assert.deepEqual(
        outcomes.map((o) => o.status),
        ['fulfilled', 'rejected', 'rejected', 'fulfilled'],
      );
      assert.deepEqual(
        db
          .prepare('SELECT v FROM t ORDER BY v')
          .all()
          .map((r) => (r as { v: string }).v),
        ['a', 'c'],
      );
    } finally {
      db.close();
      dir.remove();
    }
  });

  it('rejects every write of a batch whose commit fails, and keeps working after', async () => {
    const dir = makeTempDir('ugs-gc');
    const { db } = openCounting(join(dir.path, 'g.sqlite'));
    try {
      const group = new GroupCommit(db);
      const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
      const exec = db.exec.bind(db);
      let failNextCommit = true;
      db.exec = (sql: string) => {
        if (sql === 'COMMIT' && failNextCommit) {
          failNextCommit = false;
          throw new Error('disk I/O error');
        }
        return exec(sql);
      };
      const outcomes = await Promise.allSettled([group.run(() => insert.run('x')), group.run(() => insert.run('y'))]);
      assert.deepEqual(
        outcomes.map((o) => o.status),
        ['rejected', 'rejected'],
      );
      assert.equal(db.prepare<[], { n: number }>('SELECT count(*) AS n FROM t').get()!.n, 0, 'nothing of the failed batch remains');
      await group.run(() => insert.run('z'));
      assert.equal(db.prepare<[], { n: number }>('SELECT count(*) AS n FROM t').get()!.n, 1);
    } finally {
      db.close();
      dir.remove();
    }
  });

  it("waits for another process's write lock on a timer, not in SQLite's busy handler: the event loop keeps running", async () => {
    const dir = makeTempDir('ugs-gc');
    const path = join(dir.path, 'g.sqlite');
    const { db, commits } = openCounting(path);
    const other = new SqliteDatabase(path);
    try {
      const group = new GroupCommit(db, 5000);
      const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
      other.exec('BEGIN IMMEDIATE');
      let ticks = 0;
      const ticker = setInterval(() => ticks++, 5);
      const first = group.run(() => insert.run('first').changes);
      await new Promise((resolve) => setTimeout(resolve, 300));
      // Arrives while the first write waits: it joins the same transaction.
      const second = group.run(() => insert.run('second').changes);
      // Generous waits: on a loaded machine 5 ms timers run late, but a blocked loop runs none at all.
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.ok(ticks >= 5, `timers ran while the lock was held elsewhere (${ticks} ticks)`);
      other.exec('COMMIT');
      assert.deepEqual(await Promise.all([first, second]), [1, 1]);
      clearInterval(ticker);
      assert.equal(commits(), 1, 'both writes in one COMMIT');
      assert.equal(db.pragma('busy_timeout', { simple: true }), 5000, 'the busy timeout is restored');
    } finally {
      other.close();
      db.close();
      dir.remove();
    }
  });

  it('fails pending writes as unavailable when the lock stays taken past the busy timeout, and works once it is free', async () => {
    const dir = makeTempDir('ugs-gc');
    const path = join(dir.path, 'g.sqlite');
    const { db } = openCounting(path);
    const other = new SqliteDatabase(path);
    try {
      const group = new GroupCommit(db, 150);
      const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
      other.exec('BEGIN IMMEDIATE');
      await assert.rejects(
        group.run(() => insert.run('late')),
        (error: unknown) => error instanceof ServiceError && error.code === 'unavailable' && error.details.retryAfterSeconds === 1,
      );
      other.exec('ROLLBACK');
      assert.equal(await group.run(() => insert.run('later').changes), 1);
      assert.deepEqual(
        db
          .prepare('SELECT v FROM t')
          .all()
          .map((r) => (r as { v: string }).v),
        ['later'],
      );
    } finally {
      other.close();
      db.close();
      dir.remove();
    }
  });
});
