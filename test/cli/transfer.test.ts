import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { runCli } from '../helpers/cli.js';
import { ApiClient } from '../helpers/http-client.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { build, suiteTeardown, type BuildOptions, type Teardown } from '../helpers/build.js';
import { errorLines } from './cli-support.js';

const SECRET = randomBytes(32).toString('hex');

interface Fixture {
  keys: { customer: string; testing: string; revoked: string };
  groups: { id: string; key: 'customer' | 'testing' }[];
}

/** An answer as the store shapes it: an error's request id differs on every call by design. */
function withoutRequestId(body: { error?: { request_id?: string } }): unknown {
  if (body.error) delete body.error.request_id;
  return body;
}

/** What a caller sees of every group: the GET answer, and the PUT answer (which adds api_environment_tag). */
async function observe(url: string, fixture: Fixture): Promise<unknown[]> {
  const seen: unknown[] = [];
  for (const { id, key } of fixture.groups) {
    const api = new ApiClient(url, fixture.keys[key]);
    const got = await api.getOrCreate({ user_group_id: id });
    assert.equal(got.status, 200, got.text);
    assert.equal(got.json.new_user_group, false, `${id} exists`);
    seen.push(got.json, withoutRequestId((await api.update({ user_group_id: id })).json));
  }
  const revoked = await new ApiClient(url, fixture.keys.revoked).getOrCreate({ user_group_id: 'x' });
  seen.push(revoked.status);
  return seen;
}

async function withServer<T>(t: Teardown, options: BuildOptions, body: (url: string) => Promise<T>): Promise<T> {
  const server = await build(t, { secret: SECRET, ...options, apiKey: false });
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
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => line.replace(/"exported_at":"[^"]+"/, ''));
}

describe('moving a store: SQLite -> PostgreSQL -> SQLite', () => {
  const dirs = Array.from({ length: 4 }, () => makeTempDir('ugs-transfer'));
  const [source, work, target, files] = dirs as [
    ReturnType<typeof makeTempDir>,
    ReturnType<typeof makeTempDir>,
    ReturnType<typeof makeTempDir>,
    ReturnType<typeof makeTempDir>,
  ];
  let database: TestDatabase | undefined;
  after(async () => {
    await database?.drop();
    for (const dir of dirs) dir.remove();
  });

  it('keeps team_ids, tokens, properties, environments and key validity, identical through the API', async (t) => {
    const fixture: Fixture = { keys: { customer: '', testing: '', revoked: '' }, groups: [] };
    const original = await withServer(t, { dataDir: source.path, kind: 'sqlite' }, async (url) => {
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
    assert.match(
      imported.stdout,
      /Imported 0 group tags, 30 user groups, 4 API keys, 0 data sources, 0 Metabase settings and \d+ audit records/,
    );
    // Export before observing: observing updates groups (PUT), which moves updated_at.
    const second = join(files.path, 'from-postgres.jsonl');
    await ugs(['export', '--output', second], { UGS_DATA_DIR: work.path, DATABASE_URL: database.url });
    assert.deepEqual(comparable(second), comparable(first), 'the PostgreSQL export equals the SQLite one');
    assert.deepEqual(
      await withServer(t, { postgres: database, dataDir: work.path }, (url) => observe(url, fixture)),
      original,
      'PostgreSQL answers as SQLite did',
    );

    await ugs(['import', second], { UGS_DATA_DIR: target.path });
    await withServer(t, { dataDir: target.path, kind: 'sqlite' }, async (url) => {
      assert.deepEqual(await observe(url, fixture), original, 'back on SQLite, nothing changed');
      const fresh = await new ApiClient(url, fixture.keys.customer).getOrCreate({ user_group_id: 'after-move', name: 'After' });
      const answers = original.filter(
        (o): o is { user_group: { team_id: number } } => typeof o === 'object' && o !== null && 'user_group' in o,
      );
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
    assert.deepEqual(readdirSync(fresh.path), [], 'a refused import writes nothing');
  });
});

async function ugsKey(dataDir: string, args: string[]): Promise<{ key: string; id: string }> {
  const result = await ugs(['keys', 'create', ...args], { UGS_DATA_DIR: dataDir });
  const key = result.stdout.trim().split('\n').at(-1)!;
  const id = /\b(key_[0-9a-f]{16})\b/.exec(result.stdout)![1]!;
  return { key, id };
}

/**
 * A failed import leaves the target exactly as it was: a fresh data dir stays
 * empty (no store file, no secret file, no fingerprint), a fresh PostgreSQL
 * database has no tables, and the same import then succeeds with the right secret.
 */
describe('a failed import leaves the target as it was', () => {
  const GROUPS = 600;
  const dirs: ReturnType<typeof makeTempDir>[] = [];
  const dir = () => {
    const made = makeTempDir('ugs-import');
    dirs.push(made);
    return made.path;
  };
  const databases: TestDatabase[] = [];
  let exportLines: string[];
  let files: string;
  after(async () => {
    for (const database of databases) await database.drop();
    for (const made of dirs) made.remove();
  });

  const suite = suiteTeardown();
  before(async () => {
    const source = dir();
    files = dir();
    // More groups than one import batch (500), so a fault near the end comes after a batch was written.
    const server = await build(suite, { dataDir: source, secret: SECRET, kind: 'sqlite', apiKey: false });
    try {
      const { record } = await server.services.apiKeys.create({ environment: 'Customer', access: 'read-write' });
      const writer = { keyId: record.id, environment: 'Customer', access: 'read-write' } as const;
      await Promise.all(
        Array.from({ length: GROUPS }, (_, i) => server.services.userGroups.getOrCreate(writer, { userGroupId: `g${i}`, name: `G${i}` })),
      );
    } finally {
      await server.close();
    }
    const file = join(files, 'export.jsonl');
    await ugs(['export', '--output', file], { UGS_DATA_DIR: source });
    exportLines = readFileSync(file, 'utf8').trim().split('\n');
    assert.equal(JSON.parse(exportLines[3]!).type, 'user_group');
  });

  const write = (name: string, lines: string[]) => {
    const path = join(files, name);
    writeFileSync(path, `${lines.join('\n')}\n`);
    return path;
  };
  /** Line 4 (a group) replaced by something that is not JSON. */
  const badLine = () =>
    write(
      'bad-line.jsonl',
      exportLines.map((line, i) => (i === 3 ? '{"type":"user_group",' : line)),
    );
  /** Line 2's group again after the last group, with the trailer's count raised so only the duplicate is wrong. */
  const duplicate = () => {
    const groups = exportLines.filter((line) => JSON.parse(line).type === 'user_group').length;
    const lines = [
      ...exportLines.slice(0, 1 + groups),
      exportLines[1]!.replace(/"team_id":\d+/, '"team_id":99999'),
      ...exportLines.slice(1 + groups),
    ];
    const end = JSON.parse(lines.at(-1)!);
    lines[lines.length - 1] = JSON.stringify({ ...end, user_groups: end.user_groups + 1 });
    return { file: write('duplicate.jsonl', lines), line: groups + 2, providedId: JSON.parse(exportLines[1]!).provided_id as string };
  };
  const good = () => write('good.jsonl', exportLines);
  const wrongSecret = randomBytes(32).toString('hex');

  const failures = () => {
    const twice = duplicate();
    return [
      { what: 'another server secret', file: good(), env: { UGS_SECRET: wrongSecret }, message: /different server secret/ },
      {
        what: 'a line that is not JSON half way',
        file: badLine(),
        env: { UGS_SECRET: SECRET },
        message: /^ugs: Line 4 of the export: not JSON/,
      },
      {
        what: 'a duplicate user group',
        file: twice.file,
        env: { UGS_SECRET: SECRET },
        message: new RegExp(`^ugs: Line ${twice.line} of the export: .*"${twice.providedId}".*line 2`),
      },
    ];
  };

  it('SQLite: a fresh data dir stays empty after each failure, then the right import succeeds', async () => {
    const target = dir();
    for (const { what, file, env, message } of failures()) {
      const result = await runCli(['import', file], { ...env, UGS_DATA_DIR: target });
      assert.notEqual(result.code, 0, `${what}: ${result.stdout}`);
      assert.match(errorLines(result.stderr).join('\n'), message, what);
      assert.deepEqual(readdirSync(target), [], `${what}: no store file, no secret file left behind`);
    }
    const imported = await runCli(['import', good()], { UGS_SECRET: SECRET, UGS_DATA_DIR: target });
    assert.equal(imported.code, 0, imported.stderr);
    assert.match(imported.stdout, /Imported 0 group tags, 600 user groups, 1 API keys/);
    // The data dir names the store it now holds, so losing the database later is noticed, not recreated empty.
    assert.deepEqual(readdirSync(target).sort(), ['user-groups.sqlite', 'user-groups.store-id']);
  });

  it('SQLite: without the source secret (no UGS_SECRET, no secret file) nothing is generated or created', async () => {
    const parent = dir();
    const target = join(parent, 'not-yet');
    const result = await runCli(['import', good()], { UGS_SECRET: '', UGS_DATA_DIR: target });
    assert.notEqual(result.code, 0);
    assert.match(result.stderr, /UGS_SECRET/);
    assert.equal(existsSync(target), false, 'the data dir was not even created');
  });

  it('SQLite: an existing empty store keeps its files and stays empty', async () => {
    const target = dir();
    assert.equal((await runCli(['migrate'], { UGS_SECRET: SECRET, UGS_DATA_DIR: target })).code, 0);
    const before = readdirSync(target).sort();
    for (const { what, file, env } of failures().slice(1)) {
      const result = await runCli(['import', file], { ...env, UGS_DATA_DIR: target });
      assert.notEqual(result.code, 0, what);
      assert.deepEqual(readdirSync(target).sort(), before, what);
      const listed = await ugs(['keys', 'list', '--json'], { UGS_DATA_DIR: target });
      assert.deepEqual(JSON.parse(listed.stdout), [], what);
    }
    assert.equal((await runCli(['import', good()], { UGS_SECRET: SECRET, UGS_DATA_DIR: target })).code, 0);
  });

  it('PostgreSQL: a fresh database stays empty (not even a table) after each failure, then the right import succeeds', async () => {
    const database = await createTestDatabase();
    databases.push(database);
    const tables = async () => {
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        return (await client.query("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'")).rows.map(
          (r) => r.table_name,
        );
      } finally {
        await client.end();
      }
    };
    for (const { what, file, env, message } of failures()) {
      const result = await runCli(['import', file], { ...env, UGS_DATA_DIR: dir(), DATABASE_URL: database.url });
      assert.notEqual(result.code, 0, `${what}: ${result.stdout}`);
      assert.match(errorLines(result.stderr).join('\n'), message, what);
      assert.deepEqual(await tables(), [], what);
    }
    const imported = await runCli(['import', good()], { UGS_SECRET: SECRET, UGS_DATA_DIR: dir(), DATABASE_URL: database.url });
    assert.equal(imported.code, 0, imported.stderr);
    assert.match(imported.stdout, /Imported 0 group tags, 600 user groups/);
  });
});
