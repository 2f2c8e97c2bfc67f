import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';

const MAIN = fileURLToPath(new URL('../../examples/webhook-receiver/main.js', import.meta.url));
const SECRET = `whsec_${Buffer.alloc(24, 7).toString('base64')}`;

/** Runs the receiver to its exit: what it prints when it cannot start. */
function refusal(env: NodeJS.ProcessEnv): { status: number | null; stdout: string; stderr: string } {
  const { status, stdout, stderr } = spawnSync(process.execPath, [MAIN], {
    env: { ...process.env, UGS_WEBHOOK_SECRET: '', RECEIVER_PORT: '0', ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { status, stdout, stderr };
}

describe('npm run example:webhook-receiver', () => {
  it('without its secret, or with something else, says so in one line (no stack trace) and exits 2', () => {
    for (const [env, says] of [
      [{}, /set UGS_WEBHOOK_SECRET to the whsec_… secret that POST \/api\/webhooks answered/],
      [{ UGS_WEBHOOK_SECRET: 'ugsk_not-a-webhook-secret' }, /UGS_WEBHOOK_SECRET is not a webhook secret/],
      [{ UGS_WEBHOOK_SECRET: SECRET, RECEIVER_PORT: 'abc' }, /RECEIVER_PORT must be a whole number/],
    ] as const) {
      const { status, stdout, stderr } = refusal(env);
      assert.equal(status, 2, stderr);
      assert.equal(stdout, '');
      assert.match(stderr, says);
      assert.equal(stderr.trim().split('\n').length, 1, `one line, no stack trace:\n${stderr}`);
    }
  });

  it('names a taken RECEIVER_PORT in one line', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    try {
      const { status, stderr } = refusal({ UGS_WEBHOOK_SECRET: SECRET, RECEIVER_PORT: String((holder.address() as AddressInfo).port) });
      assert.equal(status, 2, stderr);
      assert.match(stderr, /^webhook receiver: port \d+ is in use; set RECEIVER_PORT to a free one/);
      assert.equal(stderr.trim().split('\n').length, 1, stderr);
    } finally {
      holder.close();
    }
  });

  it("listens on RECEIVER_PORT (PORT is the service's), prints a verified event once, refuses an unsigned one, and ignores a repeat of the same webhook-id", async () => {
    const child = spawn(process.execPath, [MAIN], {
      env: { ...process.env, UGS_WEBHOOK_SECRET: SECRET, RECEIVER_PORT: '0', PORT: '1' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      let output = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
      while (!/on (http:\S+)/.test(output)) await once(child.stdout, 'data');
      const url = /on (http:\S+)/.exec(output)![1]!;
      const body = JSON.stringify({ type: 'user_group.created', timestamp: new Date().toISOString(), data: { user_group_id: 'acme' } });
      const id = 'evt_0123456789abcdef0123456789abcdef';
      const now = new Date();
      const signed = {
        'content-type': 'application/json',
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
        'webhook-signature': new Webhook(SECRET).sign(id, now, body),
      };
      assert.equal((await fetch(url, { method: 'POST', headers: signed, body })).status, 204);
      assert.equal((await fetch(url, { method: 'POST', headers: signed, body })).status, 204, 'a retry is acknowledged');
      assert.equal((await fetch(url, { method: 'POST', headers: { ...signed, 'webhook-signature': 'v1,AAAA' }, body })).status, 400);
      assert.equal((await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).status, 400);
      assert.equal(output.split('\n').filter((line) => line.startsWith(id)).length, 1, output);
      assert.match(output, new RegExp(`${id} user_group.created {"user_group_id":"acme"}`));
    } finally {
      child.kill();
    }
  });
});
