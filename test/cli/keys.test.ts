import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { API_KEY, assertOneLineFailure, KEY_ID, lines, Sandbox, STACK_LINE } from './cli-support.js';

const KEY_VIEW_FIELDS = ['id', 'name', 'environment', 'access', 'created_at', 'last_used_at', 'revoked_at'];
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('ugs keys', () => {
  const sandbox = new Sandbox();
  after(() => sandbox.cleanup());

  describe('create', () => {
    it('prints the key as the last line, and defaults to a read-write Customer key', async () => {
      const dir = sandbox.dir();
      const { key, id, result } = await sandbox.createKey(dir);
      assert.match(key, API_KEY);
      assert.match(id, KEY_ID);
      assert.deepEqual(
        lines(result.stderr),
        [`ugs: store: SQLite in ${dir} (a new, empty store, created just now)`],
        'stderr names the store alone',
      );
      assert.equal(lines(result.stdout).at(-1), key, 'the key is the last non-empty line');
      assert.equal(result.stdout.split(key).length, 2, 'the key is printed exactly once');

      const { keys } = await sandbox.listKeys(dir);
      assert.equal(keys.length, 1);
      const [view] = keys;
      assert.deepEqual(Object.keys(view!).sort(), [...KEY_VIEW_FIELDS].sort());
      assert.equal(view!.id, id);
      assert.equal(view!.name, null);
      assert.equal(view!.environment, 'Customer');
      assert.equal(view!.access, 'read-write');
      assert.match(view!.created_at, ISO_TIME);
      assert.equal(view!.last_used_at, null);
      assert.equal(view!.revoked_at, null);
    });

    it('prints the key id on the line before the key, in the form `keys list` shows and `keys revoke` takes', async () => {
      const dir = sandbox.dir();
      const { key, result } = await sandbox.createKey(dir, ['--name', 'quick start']);
      const [idLine, keyLine] = lines(result.stdout).slice(-2);
      assert.equal(keyLine, key, 'the key stays the last line, so `KEY=$(ugs keys create | tail -n 1)` works');
      const id = /^Key id \(for `ugs keys list` and `ugs keys revoke`\): (\S+)$/.exec(idLine ?? '')?.[1];
      assert.ok(id, `no key id line before the key:\n${result.stdout}`);
      assert.match(id, KEY_ID);

      const table = await sandbox.ugs(dir, ['keys', 'list']);
      assert.equal(table.code, 0, table.stderr);
      assert.deepEqual(
        lines(table.stdout)
          .slice(1)
          .map((row) => row.split(/\s+/)[0]),
        [id],
        'the ID column shows the same id',
      );
      assert.deepEqual(
        (await sandbox.listKeys(dir)).keys.map((k) => k.id),
        [id],
      );

      const revoked = await sandbox.ugs(dir, ['keys', 'revoke', id]);
      assert.equal(revoked.code, 0, revoked.stderr);
      assert.equal(lines(revoked.stdout).join('\n'), `Revoked ${id}.`);
      assert.ok((await sandbox.listKeys(dir)).keys[0]?.revoked_at);
    });

    it('reflects --environment Testing, --read-only and --name in the list', async () => {
      const dir = sandbox.dir();
      const plain = await sandbox.createKey(dir);
      const special = await sandbox.createKey(dir, ['--environment', 'Testing', '--read-only', '--name', 'CI runner']);
      assert.match(special.result.stdout, /read-only/);
      assert.match(special.result.stdout, /Testing/);
      assert.notEqual(special.key, plain.key);
      assert.notEqual(special.id, plain.id);

      const { keys } = await sandbox.listKeys(dir);
      assert.equal(keys.length, 2);
      for (const view of keys) assert.deepEqual(Object.keys(view).sort(), [...KEY_VIEW_FIELDS].sort());
      const view = keys.find((k) => k.id === special.id);
      assert.ok(view, 'the new key is listed');
      assert.equal(view.name, 'CI runner');
      assert.equal(view.environment, 'Testing');
      assert.equal(view.access, 'read-only');
      assert.equal(view.revoked_at, null);
      const other = keys.find((k) => k.id === plain.id);
      assert.equal(other?.environment, 'Customer');
      assert.equal(other?.access, 'read-write');
    });

    it('refuses an unknown --environment with a message and creates nothing', async () => {
      const dir = sandbox.dir();
      const result = await sandbox.ugs(dir, ['keys', 'create', '--environment', 'Nope']);
      assert.notEqual(result.code, 0);
      assert.doesNotMatch(result.stdout, /ugsk_/, 'no key printed');
      assert.match(result.stderr, /Nope/);
      assert.match(result.stderr, /Customer/);
      assert.match(result.stderr, /Testing/);
      assert.ok(!result.stderr.includes(STACK_LINE), result.stderr);
      assert.deepEqual(readdirSync(dir), [], 'no store was made');
    });

    it('works from several processes at once on a fresh data dir', async () => {
      // The race is narrow: a few rounds of six processes, each on a fresh dir, show it often.
      for (let round = 1; round <= 3; round++) {
        const dir = sandbox.dir();
        const runs = [1, 2, 3, 4, 5, 6].map((n) => sandbox.ugsProcess(dir, ['keys', 'create', '--name', `parallel ${n}`]));
        const results = await Promise.all(runs);
        for (const result of results) {
          assert.equal(result.code, 0, `round ${round}: ${result.stderr}`);
          assert.match(lines(result.stdout).at(-1) ?? '', API_KEY);
        }
        const created = results.map((r) => /\b(key_[0-9a-f]{16})\b/.exec(r.stdout)?.[1]);
        const { keys } = await sandbox.listKeys(dir);
        assert.deepEqual(keys.map((k) => k.id).sort(), created.sort());
        const secret = readFileSync(join(dir, 'server-secret'), 'utf8').trim();
        assert.ok(secret.length >= 32, 'one secret was kept');
        const again = await sandbox.ugs(dir, ['migrate']);
        assert.equal(again.code, 0, `the store accepts the kept secret: ${again.stderr}`);
      }
    });

    it('never stores the key itself in the data dir', async () => {
      const dir = sandbox.dir();
      const { key } = await sandbox.createKey(dir);
      for (const file of readdirSync(dir)) {
        assert.ok(!readFileSync(join(dir, file)).includes(key), `${file} contains the key`);
      }
    });
  });

  describe('list', () => {
    it('says there are no keys yet on an empty store, and --json prints []', async () => {
      const dir = sandbox.dir();
      assert.equal((await sandbox.ugs(dir, ['migrate'])).code, 0, 'makes the empty store');
      const text = await sandbox.ugs(dir, ['keys', 'list']);
      assert.equal(text.code, 0, text.stderr);
      assert.match(text.stdout, /No API keys yet/);
      const { keys } = await sandbox.listKeys(dir);
      assert.deepEqual(keys, []);
    });

    it('shows a header row and each key id, never the key', async () => {
      const dir = sandbox.dir();
      const first = await sandbox.createKey(dir, ['--name', 'first']);
      const second = await sandbox.createKey(dir, ['--environment', 'Testing', '--read-only']);
      const result = await sandbox.ugs(dir, ['keys', 'list']);
      assert.equal(result.code, 0, result.stderr);
      const [header, ...rows] = lines(result.stdout);
      assert.match(header ?? '', /^ID\s+NAME\s+ENVIRONMENT\s+ACCESS\s+CREATED\s+LAST USED\s+REVOKED$/);
      assert.equal(rows.length, 2);
      const firstRow = rows.find((row) => row.startsWith(first.id));
      const secondRow = rows.find((row) => row.startsWith(second.id));
      assert.ok(firstRow, result.stdout);
      assert.ok(secondRow, result.stdout);
      assert.match(firstRow, /\bfirst\b.*\bCustomer\b.*\bread-write\b.*\bnever\b/);
      assert.match(secondRow, /\bTesting\b.*\bread-only\b.*\bnever\b/);
      for (const { key } of [first, second]) {
        assert.ok(!result.stdout.includes(key), 'the key is absent from the text list');
        assert.ok(!result.stdout.includes(key.slice('ugsk_'.length)), 'no part of the key after the prefix either');
      }
      assert.doesNotMatch(result.stdout, /ugsk_|hash/i);
    });

    it('--json never includes the key or its hash', async () => {
      const dir = sandbox.dir();
      const { key } = await sandbox.createKey(dir);
      const { result } = await sandbox.listKeys(dir);
      assert.ok(!result.stdout.includes(key));
      assert.doesNotMatch(result.stdout, /ugsk_|hash/i);
    });
  });

  describe('revoke', () => {
    it('sets revoked_at on that key only, and keeps the first time when repeated', async () => {
      const dir = sandbox.dir();
      const target = await sandbox.createKey(dir);
      const bystander = await sandbox.createKey(dir);
      const result = await sandbox.ugs(dir, ['keys', 'revoke', target.id]);
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, new RegExp(`Revoked ${target.id}`));

      const { keys } = await sandbox.listKeys(dir);
      const revoked = keys.find((k) => k.id === target.id);
      assert.match(revoked?.revoked_at ?? '', ISO_TIME);
      assert.ok(revoked!.revoked_at! >= revoked!.created_at);
      assert.equal(keys.find((k) => k.id === bystander.id)?.revoked_at, null);

      const again = await sandbox.ugs(dir, ['keys', 'revoke', target.id]);
      assert.equal(again.code, 0, again.stderr);
      const later = (await sandbox.listKeys(dir)).keys.find((k) => k.id === target.id);
      assert.equal(later?.revoked_at, revoked!.revoked_at);

      const text = await sandbox.ugs(dir, ['keys', 'list']);
      const row = lines(text.stdout).find((line) => line.startsWith(target.id));
      assert.ok(row?.includes(revoked!.revoked_at!), text.stdout);
    });

    it('fails in one line, without a stack trace, for an unknown id', async () => {
      const dir = sandbox.dir();
      await sandbox.createKey(dir);
      const result = await sandbox.ugs(dir, ['keys', 'revoke', 'key_0000000000000000']);
      assertOneLineFailure(result, ['key_0000000000000000']);
      assert.equal(result.stdout, '');
      const { keys } = await sandbox.listKeys(dir);
      assert.equal(keys[0]?.revoked_at, null, 'the existing key is untouched');
    });

    it('takes the full key to name it: revokes it and prints only its id, never the key', async () => {
      const dir = sandbox.dir();
      const target = await sandbox.createKey(dir);
      const bystander = await sandbox.createKey(dir);
      const result = await sandbox.ugs(dir, ['keys', 'revoke', target.key]);
      assert.equal(result.code, 0, result.stderr);
      assert.equal(lines(result.stdout).join('\n'), `Revoked ${target.id}.`);
      assertNoKeyEchoed(result, target.key);
      const { keys } = await sandbox.listKeys(dir);
      assert.match(keys.find((k) => k.id === target.id)?.revoked_at ?? '', ISO_TIME);
      assert.equal(keys.find((k) => k.id === bystander.id)?.revoked_at, null);
    });

    it('refuses a key that is unknown, mistyped or from another store without echoing it', async () => {
      const dir = sandbox.dir();
      const existing = await sandbox.createKey(dir);
      const other = await sandbox.createKey(sandbox.dir());
      const last = existing.key.at(-1) === 'A' ? 'B' : 'A';
      const mistyped = `${existing.key.slice(0, -1)}${last}`;
      const lookalike = `ugsk_${'x'.repeat(10)}`;
      for (const given of [other.key, mistyped, lookalike]) {
        const result = await sandbox.ugs(dir, ['keys', 'revoke', given]);
        assertOneLineFailure(result, [/No API key/]);
        assertNoKeyEchoed(result, given);
      }
      const { keys } = await sandbox.listKeys(dir);
      assert.equal(keys[0]?.revoked_at, null, 'the existing key is untouched');
    });

    it('needs an id', async () => {
      const dir = sandbox.dir();
      const result = await sandbox.ugs(dir, ['keys', 'revoke']);
      assert.notEqual(result.code, 0);
      assert.match(result.stderr, /missing required argument 'id'/);
      assert.ok(!result.stderr.includes(STACK_LINE), result.stderr);
    });
  });

  describe('--help', () => {
    // Run in process as dist/src/cli/main.js, the help names the package's command; `npx ugs` in a clone names ugs (npx.slow.test.ts).
    const cases: [string[], RegExp][] = [
      [[], /^Usage: user-group-service \[options\] \[command\]/m],
      [['serve'], /^Usage: user-group-service serve \[options\]/m],
      [['keys'], /^Usage: user-group-service keys \[options\] \[command\]/m],
      [['keys', 'create'], /^Usage: user-group-service keys create \[options\]/m],
      [['keys', 'list'], /^Usage: user-group-service keys list \[options\]/m],
      [['keys', 'revoke'], /^Usage: user-group-service keys revoke \[options\] <id>/m],
      [['migrate'], /^Usage: user-group-service migrate \[options\]/m],
    ];
    for (const [command, usage] of cases) {
      it(`works on ${['ugs', ...command].join(' ')} and touches no data`, async () => {
        const dir = sandbox.dir();
        const result = await sandbox.ugs(dir, [...command, '--help']);
        assert.equal(result.code, 0, result.stderr);
        assert.match(result.stdout, usage);
        assert.match(result.stdout, /--help/);
        assert.deepEqual(readdirSync(dir), [], 'help opened no store and wrote no secret');
      });
    }
  });
});

/** Neither the key nor its random part appears anywhere in the command's output. */
function assertNoKeyEchoed(result: { stdout: string; stderr: string }, key: string): void {
  const secretPart = key.slice('ugsk_'.length);
  for (const [stream, text] of [
    ['stdout', result.stdout],
    ['stderr', result.stderr],
  ] as const) {
    assert.ok(!text.includes(secretPart), `${stream} echoes the key:\n${text}`);
  }
}
