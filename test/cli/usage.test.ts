import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Principal } from '../../src/kernel/principal.js';
import { buildForSuite } from '../helpers/build.js';
import { assertOneLineFailure, lines, Sandbox, STORE_LINE } from './cli-support.js';

const WRITER: Principal = { keyId: 'test', environment: 'Customer', access: 'read-write' };
const DAY = 86_400_000;

describe('ugs usage', () => {
  const sandbox = new Sandbox();
  const dir = sandbox.dir('ugs-usage');
  const env = { UGS_SECRET: randomBytes(32).toString('hex') };
  const server = buildForSuite({ dataDir: dir, secret: env.UGS_SECRET, kind: 'sqlite', apiKey: false });
  const ugs = (args: string[]) => sandbox.ugs(dir, args, env);
  /** Mints (and renews) in the running server's process, as the API would. */
  const mint = async (group: string, viewer?: string, renewals = 0) => {
    const { token } = await server.services.embedSessions.mint(WRITER, { userGroupId: group, ...(viewer && { viewer: { id: viewer } }) });
    for (let i = 0; i < renewals; i++) await server.services.embedSessions.renew(WRITER, token);
  };

  before(async () => {
    // The server and the CLI on one SQLite store, as `ugs` beside a running `ugs serve`.
    for (const [id, name] of [
      ['acme', 'Acme'],
      ['globex', 'Globex'],
      ['idle', 'Idle'],
    ])
      await server.services.userGroups.getOrCreate(WRITER, { userGroupId: id!, name });
  });

  after(async () => {
    await sandbox.cleanup();
  });

  it('ranks the groups by sessions as a table and as JSON, with what was flushed; --group shows one group per day', async () => {
    await mint('acme', 'ana', 2);
    await mint('acme', 'bo');
    await mint('acme', 'ana');
    await mint('globex', undefined, 1);
    await server.services.embedSessions.flushActivity();
    await mint('globex'); // not flushed yet: not counted

    const json = await ugs(['usage', '--json']);
    assert.equal(json.code, 0, json.stderr);
    const ranked = JSON.parse(json.stdout) as { user_group_id: string; sessions: number; renewals: number; viewers: number }[];
    assert.deepEqual(
      ranked.map((g) => [g.user_group_id, g.sessions, g.renewals, g.viewers]),
      [
        ['acme', 3, 2, 2],
        ['globex', 1, 1, 0],
      ],
    );
    assert.match(json.stderr, STORE_LINE);
    const table = await ugs(['usage']);
    assert.equal(table.code, 0, table.stderr);
    const [header, ...rows] = lines(table.stdout);
    assert.match(header!, /^GROUP\s+NAME\s+SESSIONS\s+RENEWALS\s+VIEWERS\s+LAST SESSION$/);
    assert.deepEqual(
      rows.map((r) => r.split(/\s+/).slice(0, 5)),
      [
        ['acme', 'Acme', '3', '2', '2'],
        ['globex', 'Globex', '1', '1', '0'],
      ],
    );
    assert.deepEqual(
      (JSON.parse((await ugs(['usage', '--limit', '1', '--json'])).stdout) as { user_group_id: string }[]).map((g) => g.user_group_id),
      ['acme'],
    );

    const perDay = await ugs(['usage', '--group', 'acme', '--days', '3']);
    assert.equal(perDay.code, 0, perDay.stderr);
    const today = Math.floor(Date.now() / DAY) * DAY;
    const day = (offset: number) => new Date(today + offset * DAY).toISOString().slice(0, 10);
    assert.deepEqual(
      lines(perDay.stdout).map((l) => l.split(/\s+/)),
      [
        ['DAY', 'SESSIONS', 'RENEWALS', 'VIEWERS'],
        [day(-2), '0', '0', '0'],
        [day(-1), '0', '0', '0'],
        [day(0), '3', '2', '2'],
      ],
    );
    const days = JSON.parse((await ugs(['usage', '--group', 'idle', '--json'])).stdout) as { start: string; sessions: number }[];
    assert.equal(days.length, 30, 'the last 30 days by default, zeros included');
    assert.ok(days.every((d) => d.sessions === 0));
    assert.match((await ugs(['usage', '--environment', 'Testing'])).stdout, /^No embed sessions counted in the Testing environment/);
  });

  it('refuses in one line, exit 1: a missing group, a group of the other environment, --days or --limit out of bounds', async () => {
    assertOneLineFailure(await ugs(['usage', '--group', 'nobody']), [/^ugs: No user group .*"nobody".*Customer/m]);
    assertOneLineFailure(await ugs(['usage', '--group', 'acme', '--environment', 'Testing']), [/"acme".*Testing/]);
    assertOneLineFailure(await ugs(['usage', '--days', '91']), ['--days must be a whole number from 1 to 90']);
    assertOneLineFailure(await ugs(['usage', '--days', '0']), ['--days must be a whole number from 1 to 90']);
    assertOneLineFailure(await ugs(['usage', '--limit', '101']), ['--limit must be a whole number from 1 to 100']);
  });
});
