import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ApiClient } from '../helpers/http-client.js';
import { assertOneLineFailure, isRunning, withinBound, lines, Sandbox, STACK_LINE, stopServer, waitForOutput } from './cli-support.js';
import { migrationHistory } from '../../src/store/migrations/index.js';

const SECRET_FILE = 'server-secret';
const SQLITE_FILE = 'user-groups.sqlite';
const SECRET_A = 'a'.repeat(16) + '0123456789abcdef0123';
const SECRET_B = 'b'.repeat(16) + '0123456789abcdef0123';

describe('ugs serve', () => {
  const sandbox = new Sandbox();
  after(() => sandbox.cleanup());

  it('keeps groups and keys across a restart', async () => {
    const dir = sandbox.dir();
    const first = await sandbox.serve(dir);
    const { key } = await sandbox.createKey(dir);
    const created = await new ApiClient(first.url, key).getOrCreate({
      user_group_id: 'durable',
      name: 'Durable',
      properties: { tier: 'gold' },
    });
    assert.equal(created.status, 200, created.text);
    assert.equal(created.json.new_user_group, true);
    const { team_id, token } = created.json.user_group;
    assert.equal(await stopServer(first, 'SIGTERM'), 0, first.output());

    const second = await sandbox.serve(dir);
    const again = await new ApiClient(second.url, key).getOrCreate({ user_group_id: 'durable' });
    assert.equal(again.status, 200, `the API key still works: ${again.text}`);
    assert.equal(again.json.new_user_group, false);
    assert.equal(again.json.user_group.team_id, team_id);
    assert.equal(again.json.user_group.token, token);
    assert.equal(again.json.user_group.name, 'Durable');
    assert.deepEqual(again.json.user_group.properties, { tier: 'gold' });
    assert.equal(await stopServer(second, 'SIGTERM'), 0, second.output());
  });

  describe('graceful shutdown', () => {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      it(`exits with code 0 on ${signal} and logs that it is shutting down`, async () => {
        const server = await sandbox.serve(sandbox.dir());
        const code = await stopServer(server, signal);
        assert.equal(code, 0, server.output());
        assert.match(server.output(), /shutting down/);
        assert.ok(!server.output().includes(STACK_LINE), server.output());
      });
    }

    it('finishes a request that is in flight when SIGTERM arrives', async () => {
      const dir = sandbox.dir();
      // debug: the server then logs "incoming request", which tells the test the request is in flight.
      const server = await sandbox.serve(dir, { LOG_LEVEL: 'debug' });
      const { key } = await sandbox.createKey(dir);
      const body = JSON.stringify({ user_group_id: 'in-flight', name: 'In flight' });
      const split = Math.floor(body.length / 2);
      const { hostname, port } = new URL(server.url);

      // Headers and half the body now; the rest only once shutdown has begun.
      const socket = connect({ host: hostname, port: Number(port) });
      let raw = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (raw += chunk));
      const ended = new Promise<void>((resolve, reject) => {
        socket.on('end', resolve);
        socket.on('close', () => resolve());
        socket.on('error', reject);
      });
      await new Promise<void>((resolve) => socket.once('connect', resolve));
      socket.write(
        [
          'GET /api/user HTTP/1.1',
          `Host: ${hostname}:${port}`,
          `Authorization: Token ${key}`,
          'Content-Type: application/json',
          `Content-Length: ${Buffer.byteLength(body)}`,
          'X-Request-Id: in-flight-request',
          '',
          body.slice(0, split),
        ].join('\r\n'),
      );
      await waitForOutput(server, /"reqId":"in-flight-request".*"msg":"incoming request"/);

      const exited = server.stop('SIGTERM');
      await waitForOutput(server, 'shutting down');
      assert.ok(isRunning(server), 'the server waits for the in-flight request');
      // The client keeps the connection open (no half-close, which Node's HTTP server treats as an abort).
      socket.write(body.slice(split));
      await ended;

      assert.match(raw, /^HTTP\/1\.1 200 /, raw);
      assert.match(
        raw,
        /\r\nconnection: close\r\n/i,
        'the answer closes the kept-alive connection, so shutdown need not wait for the client',
      );
      const response = JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4));
      assert.equal(response.success, 1);
      assert.equal(response.new_user_group, true);
      assert.equal(response.user_group.provided_id, 'in-flight');
      assert.equal(await withinBound(exited, 20_000, 'the server to exit'), 0, server.output());

      // The acknowledged write survived the shutdown.
      const restarted = await sandbox.serve(dir);
      const check = await new ApiClient(restarted.url, key).getOrCreate({ user_group_id: 'in-flight' });
      assert.equal(check.json.new_user_group, false);
      assert.equal(check.json.user_group.token, response.user_group.token);
      assert.equal(await stopServer(restarted, 'SIGTERM'), 0);
    });
  });

  describe('ugs migrate', () => {
    it('applies the migrations on a fresh dir, then reports the store up to date', async () => {
      const dir = sandbox.dir();
      const first = await sandbox.ugs(dir, ['migrate']);
      assert.equal(first.code, 0, first.stderr);
      assert.equal(first.stdout.trim(), `Applied: ${Object.keys(migrationHistory).join(', ')}`);
      assert.ok(existsSync(join(dir, SQLITE_FILE)));
      const second = await sandbox.ugs(dir, ['migrate']);
      assert.equal(second.code, 0, second.stderr);
      assert.equal(lines(second.stdout).join('\n'), 'The store is up to date.');
    });

    it('leaves nothing for the server to apply', async () => {
      const dir = sandbox.dir();
      assert.equal((await sandbox.ugs(dir, ['migrate'])).code, 0);
      const server = await sandbox.serve(dir);
      assert.doesNotMatch(server.output(), /applied migrations/);
      assert.equal(await stopServer(server), 0);
    });
  });

  describe('bad settings are one clear line', () => {
    const cases: { env: Record<string, string>; args?: string[]; mentions: string[]; absent?: string[] }[] = [
      { env: { PORT: 'abc' }, mentions: ['PORT', 'abc'] },
      { env: { PORT: '70000' }, mentions: ['PORT', '70000'] },
      { env: { PORT: '8080x' }, mentions: ['PORT'] },
      { env: { LOG_LEVEL: 'loud' }, mentions: ['LOG_LEVEL', 'loud'] },
      // `npm start -- --port abc`: the flag given is the one named, not the PORT it stands in for.
      { env: {}, args: ['--port', 'abc'], mentions: ['Invalid --port "abc"'], absent: ['PORT'] },
      { env: { PORT: '9000' }, args: ['--port', '70000'], mentions: ['Invalid --port "70000"', '65535'], absent: ['PORT'] },
      { env: { UGS_SHUTDOWN_TIMEOUT_MS: 'soon' }, mentions: ['UGS_SHUTDOWN_TIMEOUT_MS'] },
      { env: { UGS_WORKERS: '0' }, mentions: ['UGS_WORKERS', '0'] },
      { env: { UGS_WORKERS: 'all' }, mentions: ['UGS_WORKERS', 'all'] },
    ];
    for (const { env, args = [], mentions, absent = [] } of cases) {
      const label = Object.entries(env)
        .map(([k, v]) => `${k}=${v}`)
        .concat(args)
        .join(' ');
      it(`refuses ${label}`, async () => {
        const dir = sandbox.dir();
        const result = await sandbox.ugs(dir, ['serve', ...args], env);
        assertOneLineFailure(result, mentions);
        assert.match(result.stderr, /^ugs: /);
        for (const text of absent) assert.ok(!result.stderr.includes(text), `the error names ${text}:\n${result.stderr}`);
        assert.equal(result.stdout, '');
      });
    }

    it('names the port when it is already in use', async () => {
      const busy = await sandbox.serve(sandbox.dir());
      const port = new URL(busy.url).port;
      const result = await sandbox.ugs(sandbox.dir(), ['serve'], { PORT: port });
      assertOneLineFailure(result, ['EADDRINUSE', port, 'PORT']);
      assert.equal(await stopServer(busy), 0, 'the running server is unaffected');
    });

    it('refuses a UGS_DATA_DIR that is a file in one line', async () => {
      const dir = sandbox.dir();
      const file = join(dir, 'not-a-folder');
      writeFileSync(file, '');
      for (const command of [['migrate'], ['serve']]) {
        const result = await sandbox.ugs(dir, command, { UGS_DATA_DIR: file });
        assertOneLineFailure(result, ['UGS_DATA_DIR', file]);
      }
    });

    it('refuses a UGS_SECRET shorter than 32 characters without echoing it', async () => {
      const dir = sandbox.dir();
      const secret = 'too-short-secret-31-characters!';
      assert.equal(secret.length, 31);
      for (const command of [['serve'], ['migrate'], ['keys', 'list']]) {
        const result = await sandbox.ugs(dir, command, { UGS_SECRET: secret });
        assertOneLineFailure(result, ['UGS_SECRET', '32']);
        assert.ok(!result.stderr.includes(secret), 'the secret is not printed');
      }
    });
  });

  describe('server secret', () => {
    it('is generated into the data dir with mode 0600 on first start, and guards the store afterwards', async () => {
      const dir = sandbox.dir();
      const secretPath = join(dir, SECRET_FILE);

      // First start, no UGS_SECRET: the secret is generated and kept private.
      const first = await sandbox.serve(dir);
      assert.ok(existsSync(secretPath), 'server-secret was created');
      assert.equal(statSync(secretPath).mode & 0o777, 0o600);
      assert.equal(statSync(join(dir, SQLITE_FILE)).mode & 0o777, 0o600);
      const secret = readFileSync(secretPath, 'utf8').trim();
      assert.ok(secret.length >= 32);
      assert.ok(!first.output().includes(secret), 'the secret is not logged');
      const { key } = await sandbox.createKey(dir);
      const created = await new ApiClient(first.url, key).getOrCreate({ user_group_id: 'guarded', name: 'Guarded' });
      assert.equal(created.status, 200, created.text);
      assert.equal(await stopServer(first), 0);

      // A different UGS_SECRET is refused.
      const wrong = await sandbox.ugs(dir, ['serve'], { UGS_SECRET: SECRET_B });
      assertOneLineFailure(wrong, ['UGS_SECRET', 'not the one this store was created with']);
      assert.ok(!wrong.stderr.includes(SECRET_B));
      assert.equal(readFileSync(secretPath, 'utf8').trim(), secret, 'the file is left alone');

      // UGS_SECRET equal to the file's content works, and decrypts the same tokens.
      const viaEnv = await sandbox.serve(dir, { UGS_SECRET: secret });
      const read = await new ApiClient(viaEnv.url, key).getOrCreate({ user_group_id: 'guarded' });
      assert.equal(read.status, 200, read.text);
      assert.equal(read.json.user_group.token, created.json.user_group.token);
      assert.equal(await stopServer(viaEnv), 0);

      // Without the file, start-up stops with a pointer to the fix, and no new secret is made up.
      rmSync(secretPath);
      for (const command of [['serve'], ['migrate'], ['keys', 'create']]) {
        const result = await sandbox.ugs(dir, command);
        assertOneLineFailure(result, ['UGS_SECRET', 'copy its server-secret file', secretPath]);
        assert.doesNotMatch(result.stdout, /ugsk_/);
        assert.ok(!existsSync(secretPath), `${command.join(' ')} must not generate a replacement secret`);
      }

      // The original secret through UGS_SECRET still opens the store.
      const recovered = await sandbox.serve(dir, { UGS_SECRET: secret });
      const reread = await new ApiClient(recovered.url, key).getOrCreate({ user_group_id: 'guarded' });
      assert.equal(reread.json.user_group.token, created.json.user_group.token);
      assert.equal(await stopServer(recovered), 0);
    });

    it('is not written to the data dir when UGS_SECRET is given, and is then required', async () => {
      const dir = sandbox.dir();
      const created = await sandbox.ugs(dir, ['migrate'], { UGS_SECRET: SECRET_A });
      assert.equal(created.code, 0, created.stderr);
      assert.ok(!existsSync(join(dir, SECRET_FILE)));

      const without = await sandbox.ugs(dir, ['serve']);
      assertOneLineFailure(without, ['UGS_SECRET']);
      assert.ok(!existsSync(join(dir, SECRET_FILE)), 'no secret is generated for a store that already has one');

      const wrong = await sandbox.ugs(dir, ['migrate'], { UGS_SECRET: SECRET_B });
      assertOneLineFailure(wrong, ['not the one this store was created with']);

      const right = await sandbox.serve(dir, { UGS_SECRET: SECRET_A });
      assert.equal(await stopServer(right), 0);
    });

    it('refuses a server-secret file that is too short', async () => {
      const dir = sandbox.dir();
      assert.equal((await sandbox.ugs(dir, ['migrate'])).code, 0);
      const secretPath = join(dir, SECRET_FILE);
      rmSync(secretPath);
      writeFileSync(secretPath, 'short\n', { mode: 0o600 });
      const result = await sandbox.ugs(dir, ['serve']);
      assertOneLineFailure(result, [secretPath, 'too short']);
    });
  });
});
