import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Principal } from '../../src/kernel/principal.js';
import { buildForSuite } from '../helpers/build.js';
import { assertOneLineFailure, lines, Sandbox, STORE_LINE } from './cli-support.js';

const WRITER: Principal = { keyId: 'test', environment: 'Customer', access: 'read-write' };

interface ViewerView {
  viewer_id: string;
  first_seen_at: string;
  last_seen_at: string;
  sessions: number;
}

describe('ugs viewers', () => {
  const sandbox = new Sandbox();
  const dir = sandbox.dir('ugs-viewers');
  const env = { UGS_SECRET: randomBytes(32).toString('hex') };
  const server = buildForSuite({ dataDir: dir, secret: env.UGS_SECRET, kind: 'sqlite', apiKey: false });
  const ugs = (args: string[]) => sandbox.ugs(dir, args, env);
  /** Mints in the running server's process, as the API would; `viewer` names who views. */
  const mint = async (group: string, viewer?: string) => {
    const minted = await server.services.embedSessions.mint(WRITER, { userGroupId: group, ...(viewer && { viewer: { id: viewer } }) });
    await sleep(2); // distinct last-seen times: equal ones order by id
    return minted.token;
  };
  const active = async (token: string) => (await server.services.embedSessions.introspect(WRITER, token)).active;

  before(async () => {
    // The server and the CLI on one SQLite store, as `ugs` beside a running `ugs serve`.
    for (const [id, name] of [
      ['acme', 'Acme'],
      ['globex', 'Globex'],
      ['crowd', 'Crowd'],
    ])
      await server.services.userGroups.getOrCreate(WRITER, { userGroupId: id!, name });
  });

  after(async () => {
    await sandbox.cleanup();
  });

  it('lists what was flushed, most recently seen first, as a table and as JSON; --limit keeps the newest and says more exist', async () => {
    for (const viewer of ['ana', 'bo', 'ana', 'cy']) await mint('acme', viewer);
    await mint('acme');
    await server.services.embedSessions.flushActivity();
    await mint('acme', 'dan'); // not flushed yet: not listed

    const json = await ugs(['viewers', 'list', '--group', 'acme', '--json']);
    assert.equal(json.code, 0, json.stderr);
    const listed = JSON.parse(json.stdout) as ViewerView[];
    assert.deepEqual(
      listed.map((v) => [v.viewer_id, v.sessions]),
      [
        ['cy', 1],
        ['ana', 2],
        ['bo', 1],
      ],
    );
    const fromService = await server.services.viewers.list(WRITER, 'acme', {});
    assert.deepEqual(
      listed,
      fromService.viewers.map((v) => ({
        viewer_id: v.viewerId,
        first_seen_at: v.firstSeenAt,
        last_seen_at: v.lastSeenAt,
        sessions: v.sessions,
      })),
    );
    assert.match(json.stderr, STORE_LINE);

    const table = await ugs(['viewers', 'list', '--group', 'acme']);
    assert.equal(table.code, 0, table.stderr);
    const [header, ...rows] = lines(table.stdout);
    assert.match(header!, /^VIEWER\s+FIRST SEEN\s+LAST SEEN\s+SESSIONS$/);
    const ana = listed[1]!;
    assert.deepEqual(
      rows.map((r) => r.split(/\s+/)),
      listed.map((v) => [v.viewer_id, v.first_seen_at, v.last_seen_at, String(v.sessions)]),
    );
    assert.ok(ana.first_seen_at < ana.last_seen_at, "ana's first session came before her last");

    const limited = await ugs(['viewers', 'list', '--group', 'acme', '--limit', '2', '--json']);
    assert.deepEqual(
      (JSON.parse(limited.stdout) as ViewerView[]).map((v) => v.viewer_id),
      ['cy', 'ana'],
    );
    assert.match(limited.stderr, /^ugs: more viewers were seen in acme: leave out --limit/m);
    const exact = await ugs(['viewers', 'list', '--group', 'acme', '--limit', '3']);
    assert.equal(lines(exact.stdout).length, 4);
    assert.doesNotMatch(exact.stderr, /more viewers/);

    await server.services.embedSessions.flushActivity();
    const flushed = JSON.parse((await ugs(['viewers', 'list', '--group', 'acme', '--json'])).stdout) as ViewerView[];
    assert.deepEqual(flushed[0]?.viewer_id, 'dan', 'listed once flushed');
    assert.match((await ugs(['viewers', 'list', '--group', 'globex'])).stdout, /^No viewers seen in globex yet/);
    assert.match((await ugs(['viewers', 'list', '--help'])).stdout, /UGS_ACTIVITY_FLUSH_MS/);
  });

  it('follows the pages past the largest one (1000 viewers)', { timeout: 120_000 }, async () => {
    const count = 1003;
    for (let i = 0; i < count; i++)
      await server.services.embedSessions.mint(WRITER, { userGroupId: 'crowd', viewer: { id: `v${String(i).padStart(4, '0')}` } });
    await server.services.embedSessions.flushActivity();
    const result = await ugs(['viewers', 'list', '--group', 'crowd', '--json']);
    assert.equal(result.code, 0, result.stderr);
    const listed = JSON.parse(result.stdout) as ViewerView[];
    assert.equal(new Set(listed.map((v) => v.viewer_id)).size, count, 'each viewer once');
    const expected = [...listed].sort((a, b) =>
      a.last_seen_at === b.last_seen_at ? (a.viewer_id < b.viewer_id ? -1 : 1) : a.last_seen_at > b.last_seen_at ? -1 : 1,
    );
    assert.deepEqual(listed, expected, 'most recently seen first, ties by id');
  });

  it("revoke ends the viewer's earlier sessions in every group at once, leaves others, audits it under cli; later sessions work", async () => {
    const inAcme = await mint('acme', 'leaver');
    const inGlobex = await mint('globex', 'leaver');
    const stayer = await mint('acme', 'stayer');
    const anonymous = await mint('acme');

    const result = await ugs(['viewers', 'revoke', 'leaver']);
    assert.equal(result.code, 0, result.stderr);
    const at = /minted up to (\S+) in every group of the Customer environment/.exec(result.stdout)?.[1];
    assert.ok(at, result.stdout);

    assert.equal(await active(inAcme), false);
    assert.equal(await active(inGlobex), false);
    assert.equal(await active(stayer), true);
    assert.equal(await active(anonymous), true);
    assert.equal(await active(await mint('acme', 'leaver')), true, 'a session minted after the command returned works');

    const records = await server.services.audit.listAuditRecords({ limit: 10_000 });
    const record = records.find((r) => r.action === 'viewer.sessions_revoked');
    assert.deepEqual([record?.viewerId, record?.keyId, record?.environment, record?.at], ['leaver', 'cli', 'Customer', at]);

    // Testing's viewer of the same id is another person: ending it leaves Customer's sessions alone.
    const later = await mint('acme', 'leaver');
    assert.equal((await ugs(['viewers', 'revoke', 'leaver', '--environment', 'Testing'])).code, 0);
    assert.equal(await active(later), true);
  });

  it('refuses in one line, exit 1: a missing group, a group of the other environment, a viewer id out of bounds or not in NFC, a bad --limit', async () => {
    assertOneLineFailure(await ugs(['viewers', 'list', '--group', 'nobody']), [/^ugs: No user group .*"nobody".*Customer/m]);
    assertOneLineFailure(await ugs(['viewers', 'list', '--group', 'acme', '--environment', 'Testing']), [/"acme".*Testing/]);
    assertOneLineFailure(await ugs(['viewers', 'revoke', 'x'.repeat(256)]), ['1 to 255 characters']);
    assertOneLineFailure(await ugs(['viewers', 'revoke', 'tab\there']), ['control characters']);
    assertOneLineFailure(await ugs(['viewers', 'revoke', 'cafe\u0301']), ['Unicode NFC', "id.normalize('NFC')"]);
    assertOneLineFailure(await ugs(['viewers', 'list', '--group', 'acme', '--limit', '0']), ['--limit must be a positive whole number']);
  });

  it('names the missing --group in one line and a pointer to --help, not the whole help (issue 43)', async () => {
    const result = await ugs(['viewers', 'list']);
    assert.deepEqual(
      [result.code, result.stdout, result.stderr],
      [1, '', "error: required option '--group <user_group_id>' not specified\n(add --help for the options)\n"],
    );
  });
});
