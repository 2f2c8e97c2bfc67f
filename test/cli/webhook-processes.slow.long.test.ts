import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Principal } from '../../src/kernel/principal.js';
import { openCore } from '../../src/app/core.js';
import { loadConfig } from '../../src/platform/config.js';
import { ApiClient } from '../helpers/http-client.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { eventually, startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { Sandbox, stopServer } from './cli-support.js';

/**
 * Webhook delivery across real `ugs serve` processes: a SIGKILL loses no
 * delivery, and several processes (UGS_WORKERS on SQLite, replicas on
 * PostgreSQL) never send one event twice. On both stores (npm test runs this file once).
 */
for (const kind of ['sqlite', 'postgres'] as const) {
  describe(`webhook deliveries across ugs serve processes (${kind})`, () => {
    const sandbox = new Sandbox();
    const secret = randomBytes(32).toString('hex');
    const receivers: Receiver[] = [];
    let database: TestDatabase | undefined;

    before(async () => {
      if (kind === 'postgres') database = await createTestDatabase();
    });
    after(async () => {
      await sandbox.cleanup();
      for (const receiver of receivers) await receiver.close();
      await database?.drop();
    });

    /** The environment every process of a test shares: the same store and secret, loopback receivers allowed, a quick poll. */
    function envFor(extra: Record<string, string> = {}): Record<string, string> {
      return {
        UGS_SECRET: secret,
        UGS_WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        UGS_WEBHOOK_POLL_MS: '50',
        ...(database ? { DATABASE_URL: database.url } : {}),
        ...extra,
      };
    }

    /** Registers a webhook through the domain service, as the routes do, on the processes' store. */
    async function register(dataDir: string, url: string): Promise<void> {
      const config = loadConfig({ UGS_DATA_DIR: dataDir, ...envFor() });
      const services = await openCore({ ...config, keyCacheTtlMs: 0 });
      try {
        const principal: Principal = { keyId: 'key_test', environment: 'Customer', access: 'read-write' };
        await services.webhooks.create(principal, { url, events: ['user_group.created'] });
      } finally {
        await services.close();
      }
    }

    it('SIGKILL with deliveries in flight and pending, then restart: the receiver gets every event, with its webhook-id', async () => {
      const dataDir = sandbox.dir('ugs-webhook-kill');
      let answering = false;
      // Before the kill every request hangs (in flight when the process dies); after it, 200.
      const receiver = await startReceiver(() => (answering ? { status: 200 } : 'hang'));
      receivers.push(receiver);
      await register(dataDir, receiver.url);
      const { key } = await sandbox.createKey(dataDir, [], envFor());
      // A 1 s timeout makes the lease of an attempt cut short by the kill expire 31 s later.
      const env = envFor({ UGS_WEBHOOK_TIMEOUT_SECONDS: '1', UGS_WEBHOOK_RETRY_SCHEDULE_SECONDS: '0,1,1,1,1,1,1,1,1,1' });
      const first = await sandbox.serve(dataDir, env);
      const api = new ApiClient(first.url, key);
      const ids = Array.from({ length: 12 }, (_, i) => `killed-${i}`);
      for (const id of ids) assert.equal((await api.getOrCreate({ user_group_id: id, name: id })).status, 200);
      await receiver.waitFor(1);
      await stopServer(first, 'SIGKILL');
      const before = new Set(receiver.received.map((r) => r.headers['webhook-id']));
      const sentBeforeKill = receiver.received.length;

      answering = true;
      const second = await sandbox.serve(dataDir, env);
      try {
        // Only what the restarted process sent counts: before the kill every request hung, unanswered.
        const afterRestart = await eventually(
          async () => {
            const sent = receiver.received.slice(sentBeforeKill);
            const groups = new Set(sent.map((r) => JSON.parse(r.body).data.user_group_id as string));
            return ids.every((id) => groups.has(id)) ? sent : undefined;
          },
          90_000,
          'every event reaching the receiver after the restart',
        );
        // What was in flight or pending at the kill is sent again with the same webhook-id.
        const resent = new Set(afterRestart.map((r) => r.headers['webhook-id']));
        for (const id of before) assert.ok(resent.has(id), `event ${String(id)} was sent again after the restart`);
      } finally {
        await stopServer(second);
      }
    });

    it('SIGTERM waits for the attempt in flight: recorded as succeeded, not sent again after a restart', async () => {
      const dataDir = sandbox.dir('ugs-webhook-term');
      const receiver = await startReceiver(() => ({ status: 200, delayMs: 1500 }));
      receivers.push(receiver);
      await register(dataDir, receiver.url);
      const { key } = await sandbox.createKey(dataDir, [], envFor());
      const first = await sandbox.serve(dataDir, envFor());
      await new ApiClient(first.url, key).getOrCreate({ user_group_id: 'term-1', name: 'Term' });
      await receiver.waitFor(1);
      assert.equal(await stopServer(first, 'SIGTERM'), 0);
      const config = loadConfig({ UGS_DATA_DIR: dataDir, ...envFor() });
      const services = await openCore({ ...config, keyCacheTtlMs: 0 });
      try {
        const principal: Principal = { keyId: 'key_test', environment: 'Customer', access: 'read-write' };
        // On PostgreSQL the earlier tests' webhooks share the database.
        const webhook = (await services.webhooks.list(principal)).find((w) => w.url === receiver.url);
        const [delivery] = (await services.webhooks.listDeliveries(principal, webhook!.id, { limit: 10 })).deliveries;
        assert.deepEqual([delivery!.status, delivery!.attempts], ['succeeded', 1]);
      } finally {
        await services.close();
      }
      const second = await sandbox.serve(dataDir, envFor());
      await new Promise((resolve) => setTimeout(resolve, 500));
      await stopServer(second);
      assert.equal(receiver.received.length, 1);
    });

    it('several processes deliver side by side and never send one event twice', async () => {
      const dataDir = sandbox.dir('ugs-webhook-workers');
      const receiver = await startReceiver(() => ({ status: 204 }));
      receivers.push(receiver);
      await register(dataDir, receiver.url);
      const { key } = await sandbox.createKey(dataDir, [], envFor());
      // SQLite: two cluster workers over one file. PostgreSQL: two replicas over one database.
      const servers = database
        ? await Promise.all([sandbox.serve(dataDir, envFor()), sandbox.serve(sandbox.dir('ugs-webhook-replica'), envFor())])
        : [await sandbox.serve(dataDir, envFor({ UGS_WORKERS: '2' }))];
      try {
        const ids = Array.from({ length: 40 }, (_, i) => `side-${i}`);
        await Promise.all(
          ids.map((id, i) => new ApiClient(servers[i % servers.length]!.url, key).getOrCreate({ user_group_id: id, name: id })),
        );
        await receiver.waitFor(ids.length, 60_000);
        // Long enough for a duplicate to show up, were one coming.
        await new Promise((resolve) => setTimeout(resolve, 1500));
        const webhookIds = receiver.received.map((r) => r.headers['webhook-id']);
        assert.equal(webhookIds.length, ids.length);
        assert.equal(new Set(webhookIds).size, ids.length);
      } finally {
        for (const server of servers) await stopServer(server);
      }
    });
  });
}
