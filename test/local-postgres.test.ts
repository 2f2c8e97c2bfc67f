import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { freePort } from './helpers/embedded-postgres.js';
import { makeTempDir } from './helpers/temp-dir.js';

const SCRIPT = fileURLToPath(new URL('./local-postgres.js', import.meta.url));

/** `npm run postgres` as a child process: resolves with the DATABASE_URL it prints and a stop function. */
async function startLocalPostgres(dir: string, port: number) {
  const child = spawn(process.execPath, [SCRIPT, '--dir', dir, '--port', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (c: Buffer) => {
      output += c.toString();
      const match = /^DATABASE_URL=(\S+) npm start$/m.exec(output);
      if (match?.[1]) resolve(match[1]);
    });
    child.on('exit', (code) => reject(new Error(`exited with ${code} before printing DATABASE_URL:\n${output}`)));
  });
  return {
    url,
    async stop(): Promise<number | null> {
      child.kill('SIGTERM');
      const [code] = await once(child, 'exit');
      return code as number | null;
    },
  };
}

async function query(url: string, sql: string): Promise<pg.QueryResult> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

describe('npm run postgres', { timeout: 120_000 }, () => {
  it('runs a real PostgreSQL on loopback, prints its DATABASE_URL, keeps its data across runs and stops on SIGTERM with 0', async () => {
    const dir = makeTempDir('ugs-local-pg');
    const port = await freePort();
    try {
      const first = await startLocalPostgres(dir.path, port);
      assert.match(first.url, new RegExp(`^postgres://postgres:[0-9a-f]+@127\\.0\\.0\\.1:${port}/postgres$`));
      await query(first.url, 'CREATE TABLE kept (n int); INSERT INTO kept VALUES (42)');
      assert.equal(await first.stop(), 0);

      const second = await startLocalPostgres(dir.path, port);
      assert.equal(second.url, first.url, 'the same password and port on the second run');
      assert.deepEqual((await query(second.url, 'SELECT n FROM kept')).rows, [{ n: 42 }]);
      assert.equal(await second.stop(), 0);
    } finally {
      dir.remove();
    }
  });
});
