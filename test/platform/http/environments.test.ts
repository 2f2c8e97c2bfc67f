import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildForSuite } from '../../helpers/build.js';
import { assertError } from './assert-error.js';

describe('environments', () => {
  const server = buildForSuite({
    clients: {
      customer: { environment: 'Customer' },
      testing: { environment: 'Testing' },
      testingReader: { environment: 'Testing', access: 'read-only' },
    },
  });

  it("says a group is missing in the key's environment, the same whether or not the other environment has one", async () => {
    const { customer, testing, testingReader } = server.clients;
    await customer.getOrCreate({ user_group_id: 'only-in-customer', name: 'C' });
    const noName = (id: string) => testing.getOrCreate({ user_group_id: id });
    const there = assertError(await noName('only-in-customer'), 400, 'invalid_request');
    assert.match(
      there,
      /"name" is required to create a user group; no group with this "user_group_id" exists in the Testing environment \(this key's\) yet\./,
    );
    assert.equal(assertError(await noName('nowhere-at-all'), 400, 'invalid_request'), there, 'nothing tells the two apart');
    const readOnly = (id: string) => testingReader.getOrCreate({ user_group_id: id, name: 'X' });
    const refused = assertError(await readOnly('only-in-customer'), 403, 'forbidden');
    assert.match(refused, /does not exist in the Testing environment \(this key's\)/);
    assert.equal(assertError(await readOnly('nowhere-at-all'), 403, 'forbidden'), refused.replace('only-in-customer', 'nowhere-at-all'));
    for (const message of [there, refused]) assert.ok(!message.includes('Customer'), message);
  });

  it('tags a group with the environment of the key that created it', async () => {
    const { testing } = server.clients;
    await testing.getOrCreate({ user_group_id: 'tagged', name: 'T' });
    const res = await testing.update({ user_group_id: 'tagged' });
    assert.equal(res.json.user_group.api_environment_tag, 'Testing');
  });

  it('keeps one id as two groups, one per environment, each with its own team_id and token', async () => {
    const { customer, testing } = server.clients;
    const c = (await customer.getOrCreate({ user_group_id: 'shared', name: 'Prod' })).json;
    const t = (await testing.getOrCreate({ user_group_id: 'shared', name: 'Test' })).json;
    assert.equal(c.new_user_group, true);
    assert.equal(t.new_user_group, true);
    assert.notEqual(c.user_group.team_id, t.user_group.team_id);
    assert.notEqual(c.user_group.token, t.user_group.token);
    assert.equal((await customer.update({ user_group_id: 'shared' })).json.user_group.api_environment_tag, 'Customer');
    assert.equal((await testing.update({ user_group_id: 'shared' })).json.user_group.api_environment_tag, 'Testing');
  });

  it('hides groups of the other environment from update and rotation', async () => {
    const { customer, testing } = server.clients;
    const created = (await customer.getOrCreate({ user_group_id: 'customer-only', name: 'C' })).json.user_group;
    assert.equal((await testing.update({ user_group_id: 'customer-only', name: 'hijack' })).status, 404);
    assert.equal((await testing.rotate(created.token)).status, 404);
    const still = (await customer.getOrCreate({ user_group_id: 'customer-only' })).json.user_group;
    assert.equal(still.name, 'C');
    assert.equal(still.token, created.token);
  });

  it('lets another key of the same environment see the group', async () => {
    const { customer } = server.clients;
    const created = (await customer.getOrCreate({ user_group_id: 'team-wide', name: 'W' })).json.user_group;
    const other = await server.client({ environment: 'Customer' });
    assert.equal((await other.getOrCreate({ user_group_id: 'team-wide' })).json.user_group.token, created.token);
  });
});
