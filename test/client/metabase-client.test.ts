import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import jsonwebtoken from 'jsonwebtoken';
// Through the package's own export, as a user imports it.
import { UserGroupClient, UserGroupServiceError } from 'user-group-service/client';
import { buildForSuite } from '../helpers/build.js';

describe('UserGroupClient.metabase against a live server', () => {
  const server = buildForSuite({ apiKey: false });
  let client: UserGroupClient;
  const secretKey = '3c'.repeat(32);
  before(async () => {
    const { key } = await server.services.apiKeys.create({ environment: 'Customer', access: 'read-write' });
    client = new UserGroupClient({ baseUrl: server.url, apiKey: key });
  });

  it('configures, reads, mints a token Metabase would verify, and removes', async () => {
    await assert.rejects(client.metabase.get(), (e: unknown) => e instanceof UserGroupServiceError && e.status === 404);
    const settings = await client.metabase.configure({ site_url: 'https://mb.example.com', secret_key: secretKey, max_expires_in: 900 });
    assert.deepEqual([settings.site_url, settings.secret_key_set, settings.max_expires_in], ['https://mb.example.com', true, 900]);
    assert.deepEqual(await client.metabase.get(), settings);
    await client.getOrCreate({ user_group_id: 'acme', name: 'Acme', properties: { region: 'eu' } });
    const minted = await client.metabase.mintEmbedToken({
      user_group_id: 'acme',
      resource: { dashboard: 4 },
      params: { region: 'property:region' },
    });
    assert.deepEqual(minted.params, { region: 'eu' });
    assert.match(minted.url, /^https:\/\/mb\.example\.com\/embed\/dashboard\//);
    const payload = jsonwebtoken.verify(minted.token, secretKey, { algorithms: ['HS256'] }) as { exp: number };
    assert.equal(minted.expires_at, new Date(payload.exp * 1000).toISOString());
    await client.metabase.remove();
    await assert.rejects(client.metabase.get(), (e: unknown) => e instanceof UserGroupServiceError && e.status === 404);
  });
});
