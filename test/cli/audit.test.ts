import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { ApiClient } from '../helpers/http-client.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { build } from '../helpers/build.js';

describe('ugs audit', () => {
  const dir = makeTempDir('ugs-audit');
  const env = { UGS_DATA_DIR: dir.path, UGS_SECRET: randomBytes(32).toString('hex') };
  after(() => dir.remove());

  it('lists every write made through the API and the CLI, with the acting key, client address and field names, never a secret', async (t) => {
    const created = await runCli(['keys', 'create', '--name', 'auditor'], env);
    const key = created.stdout.trim().split('\n').at(-1)!;
    const keyId = /\b(key_[0-9a-f]{16})\b/.exec(created.stdout)![1]!;

    const server = await build(t, { dataDir: dir.path, secret: env.UGS_SECRET, kind: 'sqlite', apiKey: false });
    const secrets = [key];
    let teamId = 0;
    try {
      const api = new ApiClient(server.url, key);
      const group = (await api.getOrCreate({ user_group_id: 'acme', name: 'Acme', properties: { plan: 'pro' } })).json.user_group;
      teamId = group.team_id;
      secrets.push(group.token);
      await api.getOrCreate({ user_group_id: 'acme' }); // a read: not audited
      await api.update({ user_group_id: 'acme', mapping: { '1': 2 }, properties: null });
      secrets.push((await api.rotate(group.token)).json.user_group.token);
      await api.update({ user_group_id: 'missing', name: 'x' }); // a 404: changes nothing, not audited
      await api.getOrCreate({ user_group_id: 'other', name: 'Other' });
    } finally {
      await server.close();
    }
    await runCli(['keys', 'revoke', keyId], env);

    const all = await runCli(['audit', '--json'], env);
    assert.equal(all.code, 0, all.stderr);
    const records = JSON.parse(all.stdout) as {
      action: string;
      key_id: string;
      team_id: number | null;
      fields: string[];
      user_group_id: string | null;
      client_address: string | null;
    }[];
    // Newest first, as the console's activity page shows them.
    assert.deepEqual(
      records.map((r) => [r.action, r.key_id, r.user_group_id, r.fields.join(','), r.client_address]),
      [
        ['api_key.revoked', keyId, null, 'revoked_at', null],
        ['user_group.created', keyId, 'other', 'name', '127.0.0.1'],
        ['user_group.token_rotated', keyId, 'acme', 'token', '127.0.0.1'],
        ['user_group.updated', keyId, 'acme', 'mapping,properties', '127.0.0.1'],
        ['user_group.created', keyId, 'acme', 'name,properties', '127.0.0.1'],
        ['api_key.created', keyId, null, 'environment,access,name', null],
      ],
    );

    const byTeam = JSON.parse((await runCli(['audit', '--group', String(teamId), '--json'], env)).stdout) as unknown[];
    const byId = JSON.parse((await runCli(['audit', '--group', 'acme', '--json'], env)).stdout) as unknown[];
    assert.equal(byTeam.length, 3);
    assert.deepEqual(byId, byTeam);
    const future = await runCli(['audit', '--since', '2999-01-01'], env);
    assert.match(future.stdout, /No audit records match/);
    const table = await runCli(['audit'], env);
    assert.match(table.stdout, /^ID\s+AT\s+ACTION.*\sCLIENT\s+WEBHOOK$/m);
    assert.match(table.stdout, /user_group\.created\s.*\s127\.0\.0\.1$/m);

    for (const output of [all.stdout, table.stdout]) {
      for (const secret of secrets) assert.equal(output.includes(secret), false, 'a secret reached the audit output');
    }
  });

  it(
    'pages beyond any limit: a full page says how to get the next (--before), and --all follows the cursor past 1000',
    { timeout: 180_000 },
    async (t) => {
      const paging = makeTempDir('ugs-audit-pages');
      const pagingEnv = { UGS_DATA_DIR: paging.path, UGS_SECRET: env.UGS_SECRET };
      try {
        const server = await build(t, { dataDir: paging.path, secret: env.UGS_SECRET, kind: 'sqlite', apiKey: false });
        const total = 1234;
        try {
          for (let i = 0; i < total; i += 1)
            await server.services.apiKeys.create({ environment: 'Customer', access: 'read-only', name: `k${i}` });
        } finally {
          await server.close();
        }
        type Row = { id: number; action: string };
        const first = await runCli(['audit', '--json'], pagingEnv);
        assert.equal(first.code, 0, first.stderr);
        const page = JSON.parse(first.stdout) as Row[];
        assert.equal(page.length, 100, 'the newest 100 by default');
        assert.ok(
          page.every((r, i) => i === 0 || r.id < page[i - 1]!.id),
          'newest first',
        );
        const hint = /ugs audit --before (\d+)/.exec(first.stderr);
        assert.equal(hint?.[1], String(page.at(-1)!.id), `no cursor to the next page on stderr:\n${first.stderr}`);

        const next = JSON.parse((await runCli(['audit', '--json', '--limit', '50', '--before', hint[1]], pagingEnv)).stdout) as Row[];
        assert.deepEqual(
          next.map((r) => r.id),
          [...Array(50).keys()].map((i) => page.at(-1)!.id - 1 - i),
        );

        const all = await runCli(['audit', '--json', '--all'], pagingEnv);
        assert.equal(all.code, 0, all.stderr);
        const every = JSON.parse(all.stdout) as Row[];
        assert.equal(every.length, total);
        assert.equal(new Set(every.map((r) => r.id)).size, total);
        assert.doesNotMatch(all.stderr, /--before/, 'nothing left to page');

        const last = await runCli(['audit', '--json', '--limit', String(total)], pagingEnv);
        assert.equal((JSON.parse(last.stdout) as Row[]).length, total);
        assert.doesNotMatch(last.stderr, /--before/, 'a page holding the rest has no next page');
      } finally {
        paging.remove();
      }
    },
  );

  it('refuses a --limit or --before that is not a positive whole number in one line', async () => {
    for (const args of [
      ['--limit', '0'],
      ['--limit', 'ten'],
      ['--before', '-3'],
      ['--before', '1.5'],
    ]) {
      const result = await runCli(['audit', ...args], env);
      assert.equal(result.code, 1, args.join(' '));
      assert.match(result.stderr, new RegExp(`^ugs: ${args[0]} must be a positive whole number`));
      assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
    }
  });

  it('refuses a --since that is not a time in one line', async () => {
    const result = await runCli(['audit', '--since', 'yesterday-ish'], env);
    assert.notEqual(result.code, 0);
    assert.match(result.stderr, /--since/);
    assert.equal(result.stderr.trim().split('\n').length, 1);
  });
});
