import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { decodeJwt } from 'jose';
import { bindProperties, type EmbedClaims } from 'user-group-service/embed';
import { buildForSuite, type TestClient } from '../../helpers/build.js';
import { assertError } from '../../platform/http/assert-error.js';

const create = async (api: TestClient, id: string, extra: Record<string, unknown> = {}) => {
  const res = await api.getOrCreate({ user_group_id: id, name: `Group ${id}`, ...extra });
  assert.equal(res.status, 200, res.text);
};
const mint = (api: TestClient, body: Record<string, unknown>) => api.call('POST', body, { path: '/api/embed_sessions' });

describe('Embed sessions of groups in a hierarchy', () => {
  const server = buildForSuite();

  it('carry the effective properties and mapping, the ancestors, and the descendants when asked', async () => {
    const { api } = server;
    await create(api, 'emb-root', { properties: { region: 'eu', plan: 'gold' }, mapping: { '40': 'root-db' } });
    await create(api, 'emb-mid', { parent_user_group_id: 'emb-root', properties: { plan: null, team: 'b' } });
    await create(api, 'emb-leaf-1', { parent_user_group_id: 'emb-mid' });
    await create(api, 'emb-leaf-2', { parent_user_group_id: 'emb-mid', mapping: { '40': 'leaf-db' } });

    const mid = await mint(api, { user_group_id: 'emb-mid', include_descendants: true });
    assert.equal(mid.status, 201, mid.text);
    const claims = decodeJwt(mid.json.embed_session.token);
    assert.deepEqual(claims['props'], { region: 'eu', team: 'b' }, 'inherited, the null hiding plan');
    assert.deepEqual(claims['map'], { '40': 'root-db' });
    assert.deepEqual(claims['anc'], ['emb-root']);
    assert.deepEqual([...(claims['desc'] as string[])].sort(), ['emb-leaf-1', 'emb-leaf-2']);

    const leaf = decodeJwt((await mint(api, { user_group_id: 'emb-leaf-2' })).json.embed_session.token);
    assert.deepEqual(leaf['anc'], ['emb-root', 'emb-mid']);
    assert.deepEqual(leaf['map'], { '40': 'leaf-db' }, 'the nearer group wins');
    assert.equal('desc' in leaf, false, 'desc only when asked');

    const root = decodeJwt((await mint(api, { user_group_id: 'emb-root' })).json.embed_session.token);
    assert.deepEqual(root['anc'], [], 'a group without a parent has no ancestors');
  });

  it('answers 409 conflict naming the limit when the subtree has more than 100 descendants', async () => {
    const { api } = server;
    await create(api, 'big-root');
    for (let i = 0; i < 101; i++) await create(api, `big-child-${i}`, { parent_user_group_id: 'big-root' });
    const refused = await mint(api, { user_group_id: 'big-root', include_descendants: true });
    assertError(refused, 409, 'conflict');
    assert.match(refused.json.error.message, /100/);
    assert.equal((await mint(api, { user_group_id: 'big-root' })).status, 201, 'without include_descendants it mints');
  });

  it('binds the descendants as a list, never as SQL text', async () => {
    const { api } = server;
    await create(api, 'bind-root');
    await create(api, 'bind-a', { parent_user_group_id: 'bind-root' });
    await create(api, "bind-b' OR '1'='1", { parent_user_group_id: 'bind-root' });
    const claims = decodeJwt(
      (await mint(api, { user_group_id: 'bind-root', include_descendants: true })).json.embed_session.token,
    ) as unknown as EmbedClaims;

    const db = new SqliteDatabase(':memory:');
    db.exec(
      "CREATE TABLE orders (owner TEXT, amount INTEGER); INSERT INTO orders VALUES ('bind-a', 1), ('bind-root', 2), ('other', 3), ('bind-b'' OR ''1''=''1', 4)",
    );
    const sqlite = bindProperties('SELECT amount FROM orders WHERE owner IN {{ desc }} ORDER BY amount', claims, 'sqlite');
    assert.equal(sqlite.text, 'SELECT amount FROM orders WHERE owner IN (?, ?) ORDER BY amount');
    assert.deepEqual(db.prepare(sqlite.text).all(...(sqlite.values as string[])), [{ amount: 1 }, { amount: 4 }]);
    db.close();

    const postgres = bindProperties('SELECT amount FROM orders WHERE owner IN {{ desc }}', claims, 'postgres');
    assert.equal(postgres.text, 'SELECT amount FROM orders WHERE owner = ANY($1)');
    assert.deepEqual([...(postgres.values[0] as string[])].sort(), ['bind-a', "bind-b' OR '1'='1"]);
  });
});
