import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import jsonwebtoken from 'jsonwebtoken';
import { build } from '../helpers/build.js';
import { runCli } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { assertOneLineFailure, errorLines, lines } from './cli-support.js';

const KEY = '7e57ab1e' + '0123456789abcdef'.repeat(3) + 'feedface';
const OTHER_KEY = 'c1c1c1c1' + 'fedcba9876543210'.repeat(3) + '0d0d0d0d';

describe('ugs metabase', () => {
  it('configures with the key from an environment variable or stdin, shows never the key, mints a URL Metabase would open, removes', async (t) => {
    const dir = makeTempDir('ugs-cli-metabase');
    t.after(() => dir.remove());
    const server = await build(t, { dataDir: dir.path, kind: 'sqlite' });
    assert.equal((await server.api.getOrCreate({ user_group_id: 'acme', name: 'Acme', properties: { region: 'eu' } })).status, 200);
    const ugs = (args: string[], env: Record<string, string> = {}, stdin?: string) =>
      runCli(['metabase', ...args], { UGS_DATA_DIR: server.dataDir, UGS_SECRET: '', ...env }, stdin);

    assertOneLineFailure(await ugs(['show']), ['not configured']);
    assertOneLineFailure(await ugs(['configure', '--site-url', 'https://mb.example.com']), ['--secret-key-stdin or --secret-key-env']);
    assertOneLineFailure(await ugs(['configure', '--site-url', 'https://mb.example.com', '--secret-key-env', KEY]), ['the NAME']);
    assertOneLineFailure(await ugs(['configure', '--site-url', 'https://mb.example.com', '--secret-key-stdin'], {}, '\n'), [
      'empty secret key',
    ]);
    const upper = await ugs(['configure', '--site-url', 'https://mb.example.com', '--secret-key-stdin'], {}, KEY.toUpperCase());
    assertOneLineFailure(upper, ['64 lowercase hexadecimal']);
    assert.ok(!upper.stderr.includes(KEY.toUpperCase()), 'the refused key is not echoed');

    const fromEnv = await ugs(['configure', '--site-url', 'https://mb.example.com/', '--secret-key-env', 'MB_KEY'], { MB_KEY: KEY });
    assert.equal(fromEnv.code, 0, fromEnv.stderr);
    assert.deepEqual(lines(fromEnv.stdout), ['Metabase for Customer: https://mb.example.com, secret key set, tokens live at most 3600 s.']);
    const fromStdin = await ugs(
      ['configure', '--site-url', 'https://mb.example.com', '--secret-key-stdin', '--max-expires-in', '900', '--json'],
      {},
      `${OTHER_KEY}\n`,
    );
    assert.equal(fromStdin.code, 0, fromStdin.stderr);
    const json = JSON.parse(fromStdin.stdout) as Record<string, unknown>;
    assert.deepEqual([json.site_url, json.secret_key_set, json.max_expires_in], ['https://mb.example.com', true, 900]);
    const shown = await ugs(['show']);
    assert.match(lines(shown.stdout)[0]!, /^Metabase for Customer: https:\/\/mb\.example\.com, secret key set, tokens live at most 900 s/);
    assert.deepEqual(JSON.parse((await ugs(['show', '--json'])).stdout), json);
    assertOneLineFailure(await ugs(['show', '--environment', 'Testing']), ['not configured for the Testing environment']);

    const minted = await ugs([
      ...['mint', '--group', 'acme', '--dashboard', '12'],
      ...['--param', 'tenant=user_group_id', '--param', 'region=property:region', '--param', 'seller=viewer:seller'],
      ...['--viewer', 'ann', '--viewer-attribute', 'seller=S-7', '--expires-in', '120'],
    ]);
    assert.equal(minted.code, 0, minted.stderr);
    const [url] = lines(minted.stdout);
    const token = /^https:\/\/mb\.example\.com\/embed\/dashboard\/([^#]+)#bordered=true&titled=true$/.exec(url!)?.[1];
    assert.ok(token, url);
    const payload = jsonwebtoken.verify(token, OTHER_KEY, { algorithms: ['HS256'] }) as Record<string, unknown>;
    assert.deepEqual([payload.resource, payload.params], [{ dashboard: 12 }, { tenant: 'acme', region: 'eu', seller: 'S-7' }]);
    assert.match(errorLines(minted.stderr).join('\n'), /valid until .*"tenant":"acme"/);
    const entity = await ugs([
      'mint',
      '--group',
      'acme',
      '--question',
      'xBLdW9FsgRuB2HGhWiBa_',
      '--param',
      'tenant=user_group_id',
      '--json',
    ]);
    assert.equal(entity.code, 0, entity.stderr);
    assert.deepEqual((JSON.parse(entity.stdout) as { resource: unknown }).resource, { question: 'xBLdW9FsgRuB2HGhWiBa_' });

    assertOneLineFailure(await ugs(['mint', '--group', 'acme', '--param', 'tenant=user_group_id']), ['--dashboard ID or --question ID']);
    assertOneLineFailure(await ugs(['mint', '--group', 'acme', '--dashboard', '1', '--param', 'tenant']), ['NAME=VALUE']);
    assertOneLineFailure(await ugs(['mint', '--group', 'acme', '--dashboard', '1', '--param', 'r=property:nope']), ['no property "nope"']);
    assertOneLineFailure(await ugs(['mint', '--group', 'nobody', '--dashboard', '1', '--param', 't=user_group_id']), ['nobody']);
    assertOneLineFailure(await ugs(['mint', '--group', 'acme', '--dashboard', '1']), ['at least one parameter to the group']);

    const audit = await server.services.audit.listAuditRecords({ environment: 'Customer', limit: 100 });
    const mints = audit.filter((r) => r.action === 'metabase.token_minted');
    assert.deepEqual(
      mints.map((r) => [r.keyId, r.viewerId ?? null, r.fields]),
      [
        [
          'cli',
          'ann',
          [
            'resource.dashboard=12',
            'params.tenant=user_group_id',
            'params.region=property:region',
            'params.seller=viewer:seller',
            'expires_in=120',
          ],
        ],
        ['cli', null, ['resource.question=xBLdW9FsgRuB2HGhWiBa_', 'params.tenant=user_group_id', 'expires_in=600']],
      ],
    );

    const removed = await ugs(['remove']);
    assert.equal(removed.code, 0, removed.stderr);
    assert.match(removed.stdout, /Tokens already handed out live until they expire/);
    assertOneLineFailure(await ugs(['remove']), ['not configured']);
    for (const result of [fromEnv, fromStdin, shown, minted, removed])
      for (const key of [KEY, OTHER_KEY]) assert.ok(!(result.stdout + result.stderr).includes(key), 'no key printed');
  });
});
