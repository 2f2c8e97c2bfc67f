import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { EventType } from '../../src/events/event.js';
import { webhookWorkerFor } from '../../src/webhooks/delivery/webhook-worker.js';
import { build } from '../helpers/build.js';
import { runCli } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { startReceiver } from '../helpers/webhook-receiver.js';
import { assertNoSecret } from '../helpers/secret-forms.js';

/** Recognizable, and distinct per write: whichever leaks, the failure names it. */
const PASSWORDS = {
  created: 'ds-secret-created-5b0e1f',
  changed: 'ds-secret-changed-c7d24a',
  refused: 'ds-secret-refused-91aa3c',
  duplicate: 'ds-secret-duplicate-0d8e77',
};

const DATA_SOURCE_EVENTS: EventType[] = ['data_source.created', 'data_source.updated', 'data_source.deleted'];

function assertNoPassword(where: string, bytes: Buffer | string): void {
  assertNoSecret(where, bytes, Object.values(PASSWORDS));
}

describe('a data source password', () => {
  it('never reaches the logs, error answers, events, webhook payloads, the audit log (API, store or ugs audit) or the SQLite files', async (t) => {
    // A data dir of the test's own: it outlives the server, to be read once the store is closed.
    const dir = makeTempDir('ugs-data-source-secrets');
    t.after(() => dir.remove());
    const server = await build(t, { dataDir: dir.path, kind: 'sqlite', webhooks: { allowPrivateTargets: true } });
    const { api } = server;
    const receiver = await startReceiver();
    t.after(() => receiver.close());
    const principal = { keyId: api.keyId, environment: 'Customer' as const, access: 'read-write' as const };
    await server.services.webhooks.create(principal, { url: receiver.url, events: [...DATA_SOURCE_EVENTS] });

    const answers: string[] = [];
    const send = async (method: string, path: string, body: unknown, status: number) => {
      const answer = await api.call(method, body, { path });
      assert.equal(answer.status, status, answer.text);
      answers.push(answer.text);
    };
    // Port 1 of loopback: the check runs to a category (connection_refused) at once, its audit record written.
    const connection = { host: '127.0.0.1', port: 1, database: 'acme', user: 'reader', password: PASSWORDS.created };
    await send('POST', '/api/data_sources', { id: 'warehouse', name: 'Warehouse', kind: 'postgresql', connection }, 201);
    await send('PUT', '/api/data_sources/warehouse', { name: 'Warehouse EU', connection: { password: PASSWORDS.changed } }, 200);
    await send('POST', '/api/data_sources/warehouse/check', undefined, 200);
    // Refusals with a password in the body: a validation error (400) and a taken id (409) echo none of it.
    await send('PUT', '/api/data_sources/warehouse', { connection: { host: 'http://x/', password: PASSWORDS.refused } }, 400);
    await send(
      'POST',
      '/api/data_sources',
      { id: 'warehouse', name: 'Again', kind: 'postgresql', connection: { ...connection, password: PASSWORDS.duplicate } },
      409,
    );
    await send('GET', '/api/data_sources/warehouse', undefined, 200);
    // The control: the one answer that carries the password (a dashboard key's read) is caught by the same search.
    const dashboard = await server.client({ access: 'dashboard' });
    const credentials = await dashboard.call('GET', undefined, { path: '/api/data_sources/warehouse/credentials' });
    assert.throws(() => assertNoPassword('credentials', credentials.text), new RegExp(PASSWORDS.changed));
    await send('DELETE', '/api/data_sources/warehouse', undefined, 200);

    const events = await api.call('GET', undefined, { path: '/api/events?limit=100' });
    const types = (events.json.events as { type: string }[]).map((e) => e.type).filter((type) => type.startsWith('data_source.'));
    assert.deepEqual(types, DATA_SOURCE_EVENTS);
    assertNoPassword('GET /api/events', events.text);

    const worker = webhookWorkerFor(server.services);
    // Fan-out, then delivery: a few passes, bounded.
    for (let pass = 0; pass < 20 && receiver.received.length < 3; pass++) await worker.runOnce();
    const deliveries = await receiver.waitFor(3);
    assert.deepEqual(
      deliveries.map((d) => (JSON.parse(d.body) as { type: string }).type),
      types,
    );
    for (const delivery of deliveries) assertNoPassword('a webhook payload', JSON.stringify(delivery));

    const audit = await server.services.audit.listAuditRecords({ limit: 100 });
    assert.deepEqual(
      audit.filter((r) => r.action.startsWith('data_source.')).map((r) => [r.action, r.dataSourceId]),
      [
        ['data_source.created', 'warehouse'],
        ['data_source.updated', 'warehouse'],
        ['data_source.checked', 'warehouse'],
        ['data_source.deleted', 'warehouse'],
      ],
    );
    assert.ok(
      audit.some((r) => r.fields.includes('connection.password')),
      'the audit names the field changed',
    );
    assertNoPassword('the audit log', JSON.stringify(audit));
    const cliAudit = await runCli(['audit', '--json'], { UGS_DATA_DIR: server.dataDir, UGS_SECRET: '' });
    assert.equal(cliAudit.code, 0, cliAudit.stderr);
    assertNoPassword('ugs audit', cliAudit.stdout + cliAudit.stderr);

    for (const answer of answers) assertNoPassword('an API answer', answer);
    const logs = server.logs.join('');
    assert.ok(logs.includes('/api/data_sources/warehouse'), 'the requests were logged');
    assertNoPassword('the logs', logs);

    // While the store is open (the WAL holds the latest writes) and once it is closed (checkpointed into the file).
    const files = () =>
      readdirSync(server.dataDir)
        .map((name) => join(server.dataDir, name))
        .filter((path) => statSync(path).isFile());
    assert.ok(files().some((path) => path.endsWith('.sqlite')));
    for (const path of files()) assertNoPassword(path, readFileSync(path));
    await server.close();
    for (const path of files()) assertNoPassword(path, readFileSync(path));
  });
});
