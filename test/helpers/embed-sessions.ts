import assert from 'node:assert/strict';
import type { ApiClient } from './http-client.js';

/** Mints a session for `group` (as `viewer`, when given) and returns its token; anything but 201 fails the test. */
export async function mintToken(client: ApiClient, group: string, viewer?: string): Promise<string> {
  const res = await client.call(
    'POST',
    { user_group_id: group, ...(viewer ? { viewer: { id: viewer } } : {}) },
    { path: '/api/embed_sessions' },
  );
  assert.equal(res.status, 201, res.text);
  return res.json.embed_session.token as string;
}

/** Renews the session of `token`; anything but 201 fails the test. */
export async function renewToken(client: ApiClient, token: string): Promise<void> {
  const res = await client.call('POST', { token }, { path: '/api/embed_sessions/renew' });
  assert.equal(res.status, 201, res.text);
}
