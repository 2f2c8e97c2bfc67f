import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';

const MAIN = fileURLToPath(new URL('../../examples/webhook-receiver/main.js', import.meta.url));
const SECRET = `whsec_${Buffer.alloc(24, 7).toString('base64')}`;

describe('npm run example:webhook-receiver', () => {
  it('prints a verified event once, refuses an unsigned one, and ignores a repeat of the same webhook-id', async () => {
    const child = spawn(process.execPath, [MAIN], { env: { ...process.env, UGS_WEBHOOK_SECRET: SECRET, PORT: '0' }, stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      let output = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
      while (!/on (http:\S+)/.test(output)) await once(child.stdout, 'data');
      const url = /on (http:\S+)/.exec(output)![1]!;
      const body = JSON.stringify({ type: 'user_group.created', timestamp: new Date().toISOString(), data: { user_group_id: 'acme' } });
      const id = 'evt_0123456789abcdef0123456789abcdef';
      const now = new Date();
      const signed = { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': String(Math.floor(now.getTime() / 1000)), 'webhook-signature': new Webhook(SECRET).sign(id, now, body) };
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
