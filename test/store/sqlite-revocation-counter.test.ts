import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import type Database from 'better-sqlite3';
import { RevocationCounter } from '../../src/store/sqlite/revocation-counter.js';
import SqliteDatabase from 'better-sqlite3';

describe('SQLite revocation counter', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ugs-revocation-counter-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  function open(name: string): {
    served: Database.Database;
    cli: Database.Database;
    counter: RevocationCounter;
    cliCounter: RevocationCounter;
  } {
    const path = join(dir, name);
    const served = new SqliteDatabase(path);
    served.pragma('journal_mode = WAL');
    served.exec('CREATE TABLE settings (name TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT');
    const cli = new SqliteDatabase(path);
    return { served, cli, counter: new RevocationCounter(served, () => true), cliCounter: new RevocationCounter(cli, () => true) };
  }

  it("moves when another connection revokes, from the next turn on: one turn's requests share one read", async () => {
    const { served, cli, counter, cliCounter } = open('other.db');
    const before = counter.epoch();
    cli.transaction(() => cliCounter.recordRevocation())();
    assert.equal(counter.epoch(), before, 'the same turn answers as of its first read');
    await nextTurn();
    assert.notEqual(counter.epoch(), before, 'the next turn sees the revocation');
    served.close();
    cli.close();
  });

  it("moves at once for this connection's own revocation, within the turn", () => {
    const { served, cli, counter } = open('own.db');
    const before = counter.epoch();
    served.transaction(() => counter.recordRevocation())();
    assert.notEqual(counter.epoch(), before);
    served.close();
    cli.close();
  });
});
