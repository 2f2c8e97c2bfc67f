import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startDashboardServer, type DashboardServer } from '../../examples/dashboard/dashboard-server.js';
import { UserGroupClient } from '../../src/client/user-group-client.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

describe('example dashboard: a verifier that cannot read the revocation feed', () => {
  let service: TestServer;
  let dashboard: DashboardServer | undefined;
  before(async () => {
    service = await startTestServer();
  });
  after(async () => {
    await dashboard?.close();
    await service.close();
  });

  it('answers 503 saying it cannot check sessions, not that the session ended', async () => {
    const { key } = await service.services.apiKeys.create({ environment: 'Customer', access: 'read-write' });
    const client = new UserGroupClient({ baseUrl: service.url, apiKey: key, retries: 0 });
    await client.getOrCreate({ user_group_id: 'acme', name: 'Acme', properties: { region: 'eu' } });
    const { token } = await client.mintEmbedSession({ user_group_id: 'acme' });
    dashboard = await startDashboardServer({ serviceUrl: service.url, apiKey: 'ugsk_not_a_key_of_this_service', revocationPollMs: 50 });
    const res = await fetch(`${dashboard.url}/?token=${encodeURIComponent(token)}`);
    assert.equal(res.status, 503);
    const page = await res.text();
    assert.match(page, /This dashboard cannot check sessions right now/);
    assert.doesNotMatch(page, /session has ended/);
  });
});
