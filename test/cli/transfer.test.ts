import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { ApiClient } from '../helpers/http-client.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { startTestServer, type TestServerOptions } from '../helpers/test-server.js';

const SECRET = randomBytes(32).toString('hex');

interface Fixture {
  keys: { customer: string; testing: string; revoked: string };
  groups: { id: string; key: 'customer' | 'testing' }[];
}

/** What a caller sees of every group: the GET answer, and the PUT answer (which adds api_environment_tag). */
async function observe(url: string, fixture: Fixture): Promise<unknown[]> {
  const seen: unknown[] = [];
  for (const { id, key } of fixture.groups) {
    const api = new ApiClient(url, fixture.keys[key]);
    const got = await api.getOrCreate({ user_group_id: id });
    assert.equal(got.status, 200, got.text);
    assert.equal(got.json.new_user_group, false, `${id} exists`);
    seen.push(got.json, (await api.update({ user_group_id: id })).json);
  }
  const revoked = await new ApiClient(url, fixture.keys.revoked).getOrCreate({ user_group_id: 'x' });
  seen.push(revoked.status);
  return seen;
}

async function withServer<T>(options: TestServerOptions, body: (url: string) => Promise<T>): Promise<T> {
  const server = await startTestServer({ secret: SECRET, ...options });
  try {
    return await body(server.url);
  } finally {
    await server.close();
  }
}

function ugs(args: string[], env: Record<string, string>) {
  return runCli(args, { UGS_SECRET: SECRET, ...env }).then((r) => {
    assert.equal(r.code, 0, r.stderr);
    return r;
  });
}

/** Export lines without the header's timestamp, for comparing two exports. */
function comparable(file: string): string[] {
  return readFileSync(file, 'utf8').trim().split('\n').map((line) => line.replace(/"exported_at":"[^"]+"/, ''));
}

describe('moving a store: SQLite -> PostgreSQL -> SQLite', () => {
  const dirs = Array.from({ length: 4 }, () => makeTempDir('ugs-transfer'));
  const [source, work, target, files] = dirs as [ReturnType<typeof makeTempDir>, ReturnType<typeof makeTempDir>, ReturnType<typeof makeTempDir>, ReturnType<typeof makeTempDir>];
  let database: TestDatabase | undefined;
  after(async () => {
    await database?.drop();
    for (const dir of dirs) dir.remove();
  });

  it('keeps team_ids, tokens, properties, environments and key validity, identical through the API', async () => {
    const fixture: Fixture = { keys: { customer: '', testing: '', revoked: '' }, groups: [] };
    const original = await withServer({ dataDir: source.path, kind: 'sqlite' }, async (url) => {
      const server = { url };
      const { key: customer } = await ugsKey(source.path, ['--environment', 'Customer']);
      const { key: testing } = await ugsKey(source.path, ['--environment', 'Testing', '--read-only']);
      const { key: revoked, id } = await ugsKey(source.path, []);
      await ugs(['keys', 'revoke', id], { UGS_DATA_DIR: source.path });
      fixture.keys = { customer, testing, revoked };
      const writerForTesting = await ugsKey(source.path, ['--environment', 'Testing']);
      for (let i = 0; i < 30; i++) {
        const env = i % 3 === 0 ? 'testing' : 'customer';
        const api = new ApiClient(server.url, env === 'testing' ? writerForTesting.key : customer);
        const created = await api.getOrCreate({
          user_group_id: i % 10 === 0 ? 'shared-id' + (env === 'testing' ? '' : i) : `group-${i}`,
          name: `Group ${i} ✓`,
          mapping: { '40': `source-${i}`, '41': i },
          ...(i % 2 === 0 && { properties: { plan: i % 4 === 0 ? 'pro' : 'free', nested: { seats: i, tags: ['a', 'ü'] } } }),
        });
        assert.equal(created.status, 200, created.text);
        if (i % 5 === 0) assert.equal((await api.rotate(created.json.user_group.token)).status, 200);
        fixture.groups.push({ id: created.json.user_group.provided_id, key: env });
      }
      return observe(server.url, fixture);
    });

    const first = join(files.path, 'from-sqlite.jsonl');
    await ugs(['export', '--output', first], { UGS_DATA_DIR: source.path });

    database = await createTestDatabase();
    const imported = await ugs(['import', first], { UGS_DATA_DIR: work.path, DATABASE_URL: database.url });
    assert.match(imported.stdout, /Imported 30 user groups, 4 API keys and \d+ audit records/);
    // Export before observing: observing updates groups (PUT), which moves updated_at.
    const second = join(files.path, 'from-postgres.jsonl');
    await ugs(['export', '--output', second], { UGS_DATA_DIR: work.path, DATABASE_URL: database.url });
    assert.deepEqual(comparable(second), comparable(first), 'the PostgreSQL export equals the SQLite one');
    assert.deepEqual(await withServer({ postgres: database, dataDir: work.path }, (url) => observe(url, fixture)), original, 'PostgreSQL answers as SQLite did');

    await ugs(['import', second], { UGS_DATA_DIR: target.path });
    await withServer({ dataDir: target.path, kind: 'sqlite' }, async (url) => {
      assert.deepEqual(await observe(url, fixture), original, 'back on SQLite, nothing changed');
      const fresh = await new ApiClient(url, fixture.keys.customer).getOrCreate({ user_group_id: 'after-move', name: 'After' });
      const answers = original.filter((o): o is { user_group: { team_id: number } } => typeof o === 'object' && o !== null && 'user_group' in o);
      const highest = Math.max(...answers.map((o) => o.user_group.team_id));
      assert.ok(fresh.json.user_group.team_id > highest, 'new groups never reuse an imported team_id');
    });
  });

  it('refuses a non-empty store, another server secret and a truncated file', async () => {
    const file = join(files.path, 'from-sqlite.jsonl');
    const nonEmpty = await runCli(['import', file], { UGS_SECRET: SECRET, UGS_DATA_DIR: target.path });
    assert.notEqual(nonEmpty.code, 0);
    assert.match(nonEmpty.stderr, /empty store/);

    const other = makeTempDir('ugs-transfer');
    dirs.push(other);
    const wrongSecret = await runCli(['import', file], { UGS_SECRET: randomBytes(32).toString('hex'), UGS_DATA_DIR: other.path });
    assert.notEqual(wrongSecret.code, 0);
    assert.match(wrongSecret.stderr, /different server secret/);

    const lines = readFileSync(file, 'utf8').trim().split('\n');
    const truncated = join(files.path, 'truncated.jsonl');
    await import('node:fs').then((fs) => fs.writeFileSync(truncated, lines.slice(0, -3).join('\n')));
    const fresh = makeTempDir('ugs-transfer');
    dirs.push(fresh);
    const cut = await runCli(['import', truncated], { UGS_SECRET: SECRET, UGS_DATA_DIR: fresh.path });
    assert.notEqual(cut.code, 0);
    assert.match(cut.stderr, /truncated/);
    const list = await runCli(['keys', 'list', '--json'], { UGS_SECRET: SECRET, UGS_DATA_DIR: fresh.path });
    assert.deepEqual(JSON.parse(list.stdout), [], 'a refused import writes nothing');
  });
});

async function ugsKey(dataDir: string, args: string[]): Promise<{ key: string; id: string }> {
  const result = await ugs(['keys', 'create', ...args], { UGS_DATA_DIR: dataDir });
  const key = result.stdout.trim().split('\n').at(-1)!;
  const id = /\b(key_[0-9a-f]{16})\b/.exec(result.stdout)![1]!;
  return { key, id };
}
