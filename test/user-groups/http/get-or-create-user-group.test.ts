import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildForSuite } from '../../helpers/build.js';
import { assertError } from '../../platform/http/assert-error.js';

describe('GET /api/user (get or create)', () => {
  const server = buildForSuite();

  it('refuses to create a group whose id is not in Unicode NFC, naming NFC; the NFC form is created', async () => {
    const decomposed = 'cafe\u0301';
    const message = assertError(await server.api.getOrCreate({ user_group_id: decomposed, name: 'Café' }), 400, 'invalid_request');
    assert.match(message, /"user_group_id" is not in Unicode NFC/);
    const query = await server.api.call('GET', undefined, {
      path: `/api/user?user_group_id=${encodeURIComponent(decomposed)}&name=Caf%C3%A9`,
    });
    assert.match(assertError(query, 400, 'invalid_request'), /NFC/);
    const composed = await server.api.getOrCreate({ user_group_id: decomposed.normalize('NFC'), name: 'Café' });
    assert.equal(composed.status, 200, composed.text);
    assert.equal(composed.json.user_group.provided_id, 'caf\u00e9');
    assert.equal((await server.api.getOrCreate({ user_group_id: decomposed, name: 'Café' })).status, 400, 'still not a second group');
  });

  it('creates a missing group and returns exactly the spec fields', async () => {
    const { api } = server;
    const res = await api.getOrCreate({ user_group_id: 'acme', name: 'Acme', mapping: { '40': '213' }, properties: { region: 'eu' } });
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    assert.equal(res.headers['cache-control'], 'no-store');
    const { success, new_user_group, user_group } = res.json;
    assert.equal(success, 1);
    assert.equal(new_user_group, true);
    assert.deepEqual(Object.keys(user_group), ['team_id', 'token', 'name', 'provided_id', 'properties']);
    assert.ok(Number.isInteger(user_group.team_id) && user_group.team_id > 0);
    assert.match(user_group.token, /^ugt_[0-9A-Za-z]{49}$/);
    assert.equal(user_group.name, 'Acme');
    assert.equal(user_group.provided_id, 'acme');
    assert.deepEqual(user_group.properties, { region: 'eu' });
  });

  it('returns an existing group unchanged, ignoring the other fields', async () => {
    const { api } = server;
    const first = (await api.getOrCreate({ user_group_id: 'stable', name: 'Stable', properties: { a: 1 } })).json;
    const again = await api.getOrCreate({ user_group_id: 'stable', name: 'Other name', properties: { a: 2 } });
    assert.equal(again.status, 200);
    assert.equal(again.json.new_user_group, false);
    assert.deepEqual(again.json.user_group, first.user_group);
  });

  it('needs only user_group_id for an existing group', async () => {
    const { api } = server;
    await api.getOrCreate({ user_group_id: 'only-id', name: 'Only id' });
    const res = await api.getOrCreate({ user_group_id: 'only-id' });
    assert.equal(res.status, 200);
    assert.equal(res.json.user_group.name, 'Only id');
  });

  it('requires name to create', async () => {
    const { api } = server;
    const res = await api.getOrCreate({ user_group_id: 'nameless' });
    assert.equal(res.status, 400);
    assert.equal(res.json.success, 0);
    assert.equal(res.json.error.code, 'invalid_request');
    assert.match(res.json.error.message, /"name" is required/);
    const check = await api.getOrCreate({ user_group_id: 'nameless', name: 'Now named' });
    assert.equal(check.json.new_user_group, true, 'the failed call created nothing');
  });

  it('omits properties when none were given, and never returns api_environment_tag', async () => {
    const { api } = server;
    const res = await api.getOrCreate({ user_group_id: 'bare', name: 'Bare' });
    assert.deepEqual(Object.keys(res.json.user_group), ['team_id', 'token', 'name', 'provided_id']);
  });

  it('ignores unknown body fields', async () => {
    const { api } = server;
    const res = await api.getOrCreate({ user_group_id: 'extra', name: 'Extra', colour: 'blue' });
    assert.equal(res.status, 200);
    assert.equal(res.json.user_group.colour, undefined);
  });

  it('takes its fields from the query string when there is no body', async () => {
    const { api } = server;
    const query = new URLSearchParams({
      user_group_id: 'from-query',
      name: 'From query',
      mapping: JSON.stringify({ '7': 9 }),
      properties: JSON.stringify({ plan: 'pro' }),
    });
    const res = await api.call('GET', undefined, { path: `/api/user?${query}` });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.new_user_group, true);
    assert.deepEqual(res.json.user_group.properties, { plan: 'pro' });
    const viaBody = await api.getOrCreate({ user_group_id: 'from-query' });
    assert.equal(viaBody.json.user_group.token, res.json.user_group.token);
  });

  it('uses the query string when a GET carries the JSON content type but no body', async () => {
    const { api } = server;
    const res = await api.call('GET', undefined, {
      path: '/api/user?user_group_id=typed-no-body&name=T',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.user_group.provided_id, 'typed-no-body');
  });

  it('refuses query-string mapping or properties that are not JSON', async () => {
    const { api } = server;
    const res = await api.call('GET', undefined, { path: '/api/user?user_group_id=q&name=Q&properties=%7Bnope' });
    assert.equal(res.status, 400);
    assert.equal(res.json.error.code, 'invalid_request');
    assert.match(res.json.error.message, /"properties" in the query string/);
  });

  it('prefers the body when both body and query are given', async () => {
    const { api } = server;
    const res = await api.call('GET', { user_group_id: 'body-wins', name: 'Body' }, { path: '/api/user?user_group_id=query-loses&name=Q' });
    assert.equal(res.json.user_group.provided_id, 'body-wins');
  });

  it('returns properties and mapping keys of any shape intact, line breaks included', async () => {
    const { api } = server;
    const properties = { 'a\nb': 1, 'line\u2028sep': { 'x\ry': [true] }, '': 'empty key' };
    const res = await api.getOrCreate({ user_group_id: 'odd-keys', name: 'Odd keys', properties });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json.user_group.properties, properties);
  });

  it('gives each id its own team_id and token', async () => {
    const { api } = server;
    const a = (await api.getOrCreate({ user_group_id: 'one', name: 'One' })).json.user_group;
    const b = (await api.getOrCreate({ user_group_id: 'two', name: 'Two' })).json.user_group;
    assert.notEqual(a.team_id, b.team_id);
    assert.notEqual(a.token, b.token);
  });
});
