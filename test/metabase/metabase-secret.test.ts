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

/** Metabase's keys are 64 lowercase hex characters; distinct per write, so whichever leaks, the failure names it. */
const KEYS = {
  set: '5e7c0de1' + 'a9b8c7d6e5f40312'.repeat(3) + '11aa22bb',
  replaced: '0ddba11a' + '13579bdf02468ace'.repeat(3) + 'c0ffee99',
  refused: 'baddcafe' + '0f1e2d3c4b5a6978'.repeat(3) + '77665544',
};

const METABASE_EVENTS: EventType[] = ['metabase.configured', 'metabase.removed'];

function assertNoKey(where: string, bytes: Buffer | string): void {
  assertNoSecret(where, bytes, Object.values(KEYS));
}

describe("Metabase's embedding secret key", () => {
  it('never reaches the logs, answers (refusals included), events, webhook payloads, the audit log, ugs audit, ugs export or the SQLite files', async (t) => {
    const dir = makeTempDir('ugs-metabase-secret');
    t.after(() => dir.remove());
    const server = await build(t, { dataDir: dir.path, kind: 'sqlite', webhooks: { allowPrivateTargets: true } });
    const { api } = server;
    const receiver = await startReceiver();
    t.after(() => receiver.close());
    const principal = { keyId: api.keyId, environment: 'Customer' as const, access: 'read-write' as const };
    await server.services.webhooks.create(principal, { url: receiver.url, events: [...METABASE_EVENTS] });
    assert.equal((await api.getOrCreate({ user_group_id: 'acme', name: 'Acme', properties: { region: 'eu' } })).status, 200);

    const answers: string[] = [];
    const send = async (method: string, path: string, body: unknown, status: number) => {
      const answer = await api.call(method, body, { path });
      assert.equal(answer.status, status, answer.text);
      answers.push(answer.text);
      return answer;
    };
    const PATH = '/api/integrations/metabase';
    await send('PUT', PATH, { site_url: 'https://metabase.example.com', secret_key: KEYS.set }, 200);
    await send('PUT', PATH, { site_url: 'https://metabase.example.com', secret_key: KEYS.replaced, max_expires_in: 900 }, 200);
    // Refusals with a key in the body: a bad site, a bad key, an unknown field; none echoes it.
    await send('PUT', PATH, { site_url: 'ftp://metabase.example.com', secret_key: KEYS.refused }, 400);
    await send('PUT', PATH, { site_url: 'https://metabase.example.com', secret_key: KEYS.refused.toUpperCase() }, 400);
    await send('PUT', PATH, { site_url: 'https://metabase.example.com', secret_key: KEYS.refused, extra: KEYS.refused }, 400);
    await send('GET', PATH, undefined, 200);
    const minted = await send(
      'POST',
      `${PATH}/embed_tokens`,
      { user_group_id: 'acme', resource: { dashboard: 1 }, params: { tenant: 'user_group_id', region: 'property:region' } },
      201,
    );
    // The control: the token is signed with the key, yet it does not hold it (the search would catch it otherwise).
    assert.throws(() => assertNoKey('control', `${minted.text}${KEYS.replaced}`), new RegExp(KEYS.replaced));
    const exported = await runCli(['export'], { UGS_DATA_DIR: server.dataDir, UGS_SECRET: '' });
    assert.equal(exported.code, 0, exported.stderr);
    assert.match(exported.stdout, /"type":"metabase_settings"/);
    assertNoKey('ugs export', exported.stdout + exported.stderr);
    await send('DELETE', PATH, undefined, 200);

    const events = await api.call('GET', undefined, { path: '/api/events?limit=100' });
    const mine = (events.json.events as { type: string; data: Record<string, unknown> }[]).filter((e) => e.type.startsWith('metabase.'));
    assert.deepEqual(
      mine.map((e) => [e.type, e.data]),
      [
        ['metabase.configured', { api_environment_tag: 'Customer', changed: ['site_url', 'secret_key', 'max_expires_in'] }],
        ['metabase.configured', { api_environment_tag: 'Customer', changed: ['secret_key', 'max_expires_in'] }],
        ['metabase.removed', { api_environment_tag: 'Customer' }],
      ],
      'a change of settings is an event naming the fields; a mint is none',
    );
    assertNoKey('GET /api/events', events.text);

    const worker = webhookWorkerFor(server.services);
    for (let pass = 0; pass < 20 && receiver.received.length < 3; pass++) await worker.runOnce();
    const deliveries = await receiver.waitFor(3);
    assert.deepEqual(
      deliveries.map((d) => (JSON.parse(d.body) as { type: string }).type),
      mine.map((e) => e.type),
    );
    for (const delivery of deliveries) assertNoKey('a webhook payload', JSON.stringify(delivery));

    const audit = await server.services.audit.listAuditRecords({ limit: 100 });
    assert.deepEqual(
      audit.filter((r) => r.action.startsWith('metabase.')).map((r) => r.action),
      ['metabase.configured', 'metabase.configured', 'metabase.token_minted', 'metabase.removed'],
    );
    assertNoKey('the audit log', JSON.stringify(audit));
    const cliAudit = await runCli(['audit', '--json'], { UGS_DATA_DIR: server.dataDir, UGS_SECRET: '' });
    assert.equal(cliAudit.code, 0, cliAudit.stderr);
    assertNoKey('ugs audit', cliAudit.stdout + cliAudit.stderr);

    for (const answer of answers.filter((a) => !a.includes('metabase_token'))) assertNoKey('an API answer', answer);
    assertNoKey('the mint answer', minted.text);
    const logs = server.logs.join('');
    assert.ok(logs.includes('/api/integrations/metabase'), 'the requests were logged');
    assertNoKey('the logs', logs);
    assert.ok(!logs.includes(minted.json.metabase_token.token), 'nor the token');

    const files = () =>
      readdirSync(server.dataDir)
        .map((name) => join(server.dataDir, name))
        .filter((path) => statSync(path).isFile());
    assert.ok(files().some((path) => path.endsWith('.sqlite')));
    for (const path of files()) assertNoKey(path, readFileSync(path));
    await server.close();
    for (const path of files()) assertNoKey(path, readFileSync(path));
  });
});
