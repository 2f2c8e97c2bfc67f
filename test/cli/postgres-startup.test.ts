import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createTestDatabase } from '../helpers/postgres.js';
import { assertOneLineFailure, lines, Sandbox } from './cli-support.js';
import { migrationHistory } from '../../src/store/migrations/index.js';

/** Start-up against PostgreSQL: unreachable or mistyped settings are one clear line, never a stack or a password. */
describe('ugs with DATABASE_URL', () => {
  const sandbox = new Sandbox();
  after(() => sandbox.cleanup());

  // Independent runs: side by side (`ugs serve` as a child process; the in-process runs take turns).
  describe('an unreachable PostgreSQL', { concurrency: true }, () => {
    const password = 'p4ssw0rd';
    const unreachable = `postgres://u:${password}@127.0.0.1:1/db`;
    for (const command of [['serve'], ['migrate'], ['keys', 'list']]) {
      it(`stops \`ugs ${command.join(' ')}\` with one line that names PostgreSQL and hides the password`, async () => {
        const result = await sandbox.ugs(sandbox.dir(), command, { DATABASE_URL: unreachable });
        assertOneLineFailure(result, ['PostgreSQL', '127.0.0.1:1']);
        assert.match(result.stderr, /^ugs: /);
        assert.ok(!result.stderr.includes(password), `the password is printed:\n${result.stderr}`);
        assert.equal(result.stdout, '');
      });
    }

    it('stops with one line, without the password, when PostgreSQL refuses the password', async () => {
      const database = await createTestDatabase();
      try {
        const wrong = new URL(database.url);
        wrong.password = 'wr0ng-pa55word';
        const result = await sandbox.ugs(sandbox.dir(), ['migrate'], { DATABASE_URL: wrong.toString() });
        assertOneLineFailure(result, ['PostgreSQL']);
        assert.ok(!result.stderr.includes('wr0ng-pa55word'), result.stderr);
        assert.ok(!result.stderr.includes(new URL(database.url).password), result.stderr);
      } finally {
        await database.drop();
      }
    });

    it('does not generate a server secret into the data dir when the store cannot be opened', async () => {
      const dir = sandbox.dir();
      const result = await sandbox.ugs(dir, ['migrate'], { DATABASE_URL: unreachable });
      assert.notEqual(result.code, 0);
      assert.ok(!existsSync(join(dir, 'server-secret')));
    });
  });

  describe('bad PostgreSQL settings', { concurrency: true }, () => {
    const url = 'mysql://x';
    for (const command of [['serve'], ['migrate'], ['keys', 'create']]) {
      it(`refuses DATABASE_URL=${url} for \`ugs ${command.join(' ')}\` without echoing it`, async () => {
        const result = await sandbox.ugs(sandbox.dir(), command, { DATABASE_URL: url });
        assertOneLineFailure(result, ['DATABASE_URL']);
        assert.ok(!result.stderr.includes(url), `the URL is echoed:\n${result.stderr}`);
        assert.doesNotMatch(result.stdout, /ugsk_/);
      });
    }

    it('does not echo a mistyped URL that carries a password', async () => {
      const result = await sandbox.ugs(sandbox.dir(), ['serve'], { DATABASE_URL: 'postgress://admin:hunter2-secret@db:5432/app' });
      assertOneLineFailure(result, ['DATABASE_URL']);
      assert.ok(!result.stderr.includes('hunter2-secret'), result.stderr);
    });

    for (const value of ['0', 'abc', '-3', '1001']) {
      it(`refuses UGS_PG_POOL_SIZE=${value} in one line naming it`, async () => {
        for (const command of [['serve'], ['migrate']]) {
          const result = await sandbox.ugs(sandbox.dir(), command, {
            DATABASE_URL: 'postgres://u:p@127.0.0.1:1/db',
            UGS_PG_POOL_SIZE: value,
          });
          assertOneLineFailure(result, ['UGS_PG_POOL_SIZE', value]);
        }
      });
    }

    for (const [name, value] of [
      ['UGS_PG_STATEMENT_TIMEOUT_MS', '50'],
      ['UGS_PG_CONNECT_TIMEOUT_MS', 'soon'],
    ] as const) {
      it(`refuses ${name}=${value} in one line naming it`, async () => {
        const result = await sandbox.ugs(sandbox.dir(), ['serve'], { DATABASE_URL: 'postgres://u:p@127.0.0.1:1/db', [name]: value });
        assertOneLineFailure(result, [name]);
      });
    }
  });

  it('`ugs migrate` applies the migrations to a fresh database, then reports it up to date', async () => {
    const database = await createTestDatabase();
    try {
      const env = { DATABASE_URL: database.url, UGS_SECRET: randomBytes(32).toString('hex') };
      const dir = sandbox.dir();
      const first = await sandbox.ugs(dir, ['migrate'], env);
      assert.equal(first.code, 0, first.stderr);
      assert.equal(lines(first.stdout).join('\n'), `Applied: ${Object.keys(migrationHistory).join(', ')}`);
      const second = await sandbox.ugs(dir, ['migrate'], env);
      assert.equal(second.code, 0, second.stderr);
      assert.equal(lines(second.stdout).join('\n'), 'The store is up to date.');
      assert.ok(!existsSync(join(dir, 'user-groups.sqlite')), 'no SQLite file is made when DATABASE_URL is set');
    } finally {
      await database.drop();
    }
  });
});
