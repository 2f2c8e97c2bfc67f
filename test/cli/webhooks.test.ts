import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { ApiClient } from '../helpers/http-client.js';
import { eventually, startReceiver } from '../helpers/webhook-receiver.js';
import { Sandbox, STACK_LINE, stopServer } from './cli-support.js';

const PRIVATE_ALLOWED = { UGS_WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', UGS_WEBHOOK_POLL_MS: '50' };
const lastLine = (text: string) => text.trimEnd().split('\n').at(-1)!;

describe('ugs webhooks', () => {
  const sandbox = new Sandbox();
  after(() => sandbox.cleanup());

  it('add refuses a loopback URL unless private targets are allowed, and an unknown event type, in one line each', async () => {
    const dir = sandbox.dir();
    assert.equal((await sandbox.ugs(dir, ['migrate'])).code, 0, 'webhooks add needs a store');
    const refused = await sandbox.ugs(dir, ['webhooks', 'add', 'http://127.0.0.1:9/hooks']);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^ugs: .*(private|loopback).*UGS_WEBHOOK_ALLOW_PRIVATE_TARGETS/m);
    const unknown = await sandbox.ugs(dir, ['webhooks', 'add', 'https://203.0.113.10/x', '--events', 'user_group.created,nope']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /Unknown event type "nope"/);
    for (const result of [refused, unknown]) assert.ok(!result.stderr.includes(STACK_LINE), result.stderr);
    assert.match((await sandbox.ugs(dir, ['webhooks', 'list'])).stdout, /No webhooks in Customer yet/);
  });

  it('add prints the secret once as the last line; list never shows it; a running server delivers; deliveries shows it; remove ends it', async () => {
    const dir = sandbox.dir();
    // The server first: if it fails to start, sandbox.cleanup() has it, and no receiver is left open to keep this file running.
    const server = await sandbox.serve(dir, PRIVATE_ALLOWED);
    const target = await startReceiver();
    try {
      const added = await sandbox.ugs(
        dir,
        ['webhooks', 'add', target.url, '--events', 'user_group.created', '--description', 'from the CLI'],
        PRIVATE_ALLOWED,
      );
      assert.equal(added.code, 0, added.stderr);
      const secret = lastLine(added.stdout);
      assert.match(secret, /^whsec_/);
      const id = /\b(wh_[0-9a-f]+)\b/.exec(added.stdout)?.[1];
      assert.ok(id, added.stdout);

      const table = await sandbox.ugs(dir, ['webhooks', 'list']);
      assert.match(table.stdout, new RegExp(`${id}\\s+${target.url.replace(/[/.]/g, '\\$&')}\\s+user_group.created\\s+ok\\s+from the CLI`));
      const json = JSON.parse((await sandbox.ugs(dir, ['webhooks', 'list', '--json'])).stdout) as { id: string }[];
      assert.deepEqual(
        json.map((w) => w.id),
        [id],
      );
      assert.ok(!(table.stdout + JSON.stringify(json)).includes(secret.slice(6)), 'the secret is never listed');
      assert.deepEqual(JSON.parse((await sandbox.ugs(dir, ['webhooks', 'list', '--json', '--environment', 'Testing'])).stdout), []);

      const { key } = await sandbox.createKey(dir);
      await new ApiClient(server.url, key).getOrCreate({ user_group_id: 'cli-hooked', name: 'Hooked' });
      const [delivery] = await target.waitFor(1);
      assert.equal(
        (new Webhook(secret).verify(delivery!.body, delivery!.headers as Record<string, string>) as { type: string }).type,
        'user_group.created',
      );
      const listed = await eventually(async () => {
        const result = await sandbox.ugs(dir, ['webhooks', 'deliveries', id]);
        return /succeeded/.test(result.stdout) ? result : undefined;
      });
      assert.match(listed.stdout, new RegExp(`${delivery!.headers['webhook-id']}\\s+user_group.created\\s+succeeded\\s+1\\s+HTTP 204`));

      assert.equal((await sandbox.ugs(dir, ['webhooks', 'remove', id])).code, 0);
      assert.match((await sandbox.ugs(dir, ['webhooks', 'list'])).stdout, /No webhooks/);
      const again = await sandbox.ugs(dir, ['webhooks', 'remove', id]);
      assert.equal(again.code, 1);
      assert.match(again.stderr, /^ugs: No webhook/m);
      const audit = await sandbox.ugs(dir, ['audit', '--json']);
      const records = (JSON.parse(audit.stdout) as { action: string; key_id: string; webhook_id: string | null }[]).filter((r) =>
        r.action.startsWith('webhook.'),
      );
      assert.deepEqual(
        records.map((r) => [r.action, r.key_id, r.webhook_id]),
        [
          ['webhook.deleted', 'cli', id],
          ['webhook.created', 'cli', id],
        ],
        'newest first',
      );
      assert.ok(!audit.stdout.includes(secret.slice(6)), 'no secret in the audit trail');
    } finally {
      await target.close();
      assert.equal(await stopServer(server), 0, server.output());
    }
  });
});
