import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { before, describe, it } from 'node:test';
import jsonwebtoken from 'jsonwebtoken';
import { buildForSuite } from '../../helpers/build.js';
import { ApiClient } from '../../helpers/http-client.js';

/**
 * Metabase static embedding (docs/integrations/metabase.md): the settings, and tokens checked against Metabase's
 * documented format ({resource, params, exp}, HS256 under the embedding secret key's UTF-8 bytes, as its examples
 * sign with jwt.sign(payload, METABASE_SECRET_KEY)) by a hand-written HMAC-SHA256 check and by jsonwebtoken.
 */
const SECRET = 'b7f1c2d3e4a5968778695a4b3c2d1e0f' + 'f0e1d2c3b4a5968778695a4b3c2d1e7a';
const SITE = 'https://metabase.example.com';
const PATH = '/api/integrations/metabase';
const MINT = `${PATH}/embed_tokens`;

/** Metabase's check, by hand: the header, then HMAC-SHA256 over header.payload under the key's UTF-8 bytes. */
function verifyHs256(token: string, secret: string): { header: unknown; payload: Record<string, unknown> } {
  const [header, payload, signature] = token.split('.');
  assert.ok(header && payload && signature && token.split('.').length === 3, 'a compact JWS');
  const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${header}.${payload}`).digest();
  const given = Buffer.from(signature, 'base64url');
  assert.ok(given.length === expected.length && timingSafeEqual(given, expected), 'the signature is HMAC-SHA256 under the secret');
  return {
    header: JSON.parse(Buffer.from(header, 'base64url').toString('utf8')),
    payload: JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')),
  };
}

describe('Metabase static embedding: /api/integrations/metabase', () => {
  const server = buildForSuite();
  let api: ApiClient;
  const mint = (body: unknown, client: ApiClient = api) => client.call('POST', body, { path: MINT });
  before(async () => {
    api = server.api;
    assert.equal(
      (await api.getOrCreate({ user_group_id: 'acme', name: 'Acme', properties: { region: 'eu', plan: 'pro', meta: { a: 1 }, tags: [] } }))
        .status,
      200,
    );
    assert.equal((await api.getOrCreate({ user_group_id: 'acme-labs', name: 'Acme Labs', parent_user_group_id: 'acme' })).status, 200);
  });

  it('answers 404 to a read and 409 to a mint until Metabase is configured', async () => {
    const read = await api.call('GET', undefined, { path: PATH });
    assert.equal(read.status, 404, read.text);
    const minted = await mint({ user_group_id: 'acme', resource: { dashboard: 1 }, params: { tenant: 'user_group_id' } });
    assert.equal(minted.status, 409, minted.text);
    assert.match(minted.json.error.message, /not configured/);
  });

  it('stores the settings with the secret sealed: answers never carry it, the same values change nothing', async () => {
    const put = await api.call('PUT', { site_url: `${SITE}/`, secret_key: SECRET }, { path: PATH });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(Object.keys(put.json.metabase).sort(), ['created_at', 'max_expires_in', 'secret_key_set', 'site_url', 'updated_at']);
    assert.equal(put.json.metabase.site_url, SITE);
    assert.equal(put.json.metabase.max_expires_in, 3600);
    const again = await api.call('PUT', { site_url: SITE, secret_key: SECRET }, { path: PATH });
    assert.equal(again.json.metabase.updated_at, put.json.metabase.updated_at);
    const readOnly = await server.client({ environment: 'Customer', access: 'read-only' });
    const read = await readOnly.call('GET', undefined, { path: PATH });
    assert.deepEqual(read.json.metabase, put.json.metabase);
    assert.equal((await readOnly.call('PUT', { site_url: SITE, secret_key: SECRET }, { path: PATH })).status, 403);
    assert.equal((await readOnly.call('DELETE', undefined, { path: PATH })).status, 403);
    for (const access of ['embed', 'dashboard'] as const) {
      const client = await server.client({ environment: 'Customer', access });
      assert.equal((await client.call('GET', undefined, { path: PATH })).status, 403, access);
      assert.equal((await client.call('PUT', { site_url: SITE, secret_key: SECRET }, { path: PATH })).status, 403, access);
      assert.equal((await client.call('DELETE', undefined, { path: PATH })).status, 403, access);
    }
    const unauthenticated = await new ApiClient(server.url, undefined).call('GET', undefined, { path: PATH });
    assert.equal(unauthenticated.status, 401, unauthenticated.text);
    const testing = await server.client({ environment: 'Testing', access: 'read-write' });
    assert.equal((await testing.call('GET', undefined, { path: PATH })).status, 404, 'each environment has its own');
    const records = await server.services.audit.listAuditRecords({ environment: 'Customer', limit: 100 });
    const configured = records.filter((r) => r.action === 'metabase.configured');
    assert.equal(configured.length, 1, 'the repeat wrote nothing');
    assert.deepEqual(configured[0]!.fields, ['site_url', 'secret_key', 'max_expires_in']);
  });

  it('refuses malformed settings with a 400 naming the field', async () => {
    for (const [body, field] of [
      [{ site_url: 'ftp://metabase.example.com', secret_key: SECRET }, 'site_url'],
      [{ site_url: 'https://user:pw@metabase.example.com', secret_key: SECRET }, 'site_url'],
      [{ site_url: 'https://metabase.example.com/?a=1', secret_key: SECRET }, 'site_url'],
      [{ site_url: 'not a url', secret_key: SECRET }, 'site_url'],
      [{ site_url: SITE, secret_key: 'short' }, 'secret_key'],
      [{ site_url: SITE, secret_key: `${SECRET} with spaces` }, 'secret_key'],
      // Metabase's own setter takes 64 lowercase hex characters and nothing else: another value cannot be its key.
      [{ site_url: SITE, secret_key: SECRET.toUpperCase() }, 'secret_key'],
      [{ site_url: SITE, secret_key: SECRET.slice(1) }, 'secret_key'],
      [{ site_url: SITE, secret_key: `${SECRET.slice(1)}g` }, 'secret_key'],
      [{ site_url: SITE, secret_key: 'x'.repeat(513) }, 'secret_key'],
      [{ site_url: 'https://', secret_key: SECRET }, 'site_url'],
      [{ site_url: '', secret_key: SECRET }, 'site_url'],
      [{ site_url: 42, secret_key: SECRET }, 'site_url'],
      [{ site_url: SITE, secret_key: SECRET, max_expires_in: 600.5 }, 'max_expires_in'],
      [{ site_url: SITE, secret_key: SECRET, max_expires_in: '600' }, 'max_expires_in'],
      [{ secret_key: SECRET }, 'site_url'],
      [{ site_url: SITE, secret_key: SECRET, max_expires_in: 10 }, 'max_expires_in'],
      [{ site_url: SITE, secret_key: SECRET, max_expires_in: 86_401 }, 'max_expires_in'],
      [{ site_url: SITE }, 'secret_key'],
      [{ site_url: SITE, secret_key: SECRET, extra: 1 }, 'additional properties'],
      [[], ''],
    ] as const) {
      const res = await api.call('PUT', body, { path: PATH });
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
      assert.ok(res.json.error.message.includes(field), `${JSON.stringify(body)}: ${res.text}`);
    }
  });

  it("mints Metabase's documented token, its locked parameters the group's own values", async () => {
    const before = Math.floor(Date.now() / 1000);
    const res = await mint({
      user_group_id: 'acme-labs',
      resource: { dashboard: 12 },
      params: { tenant: 'user_group_id', region: 'property:region', seller: 'viewer:seller' },
      viewer: { id: 'ann', attributes: { seller: 'S-7' } },
    });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.headers['cache-control'], 'no-store');
    const { token, url, expires_at, resource, params } = res.json.metabase_token;
    const { header, payload } = verifyHs256(token, SECRET);
    assert.deepEqual(header, { alg: 'HS256', typ: 'JWT' });
    // The inherited region (acme-labs has none of its own), the viewer's attribute, the group's id: nothing else.
    assert.deepEqual(payload, {
      resource: { dashboard: 12 },
      params: { tenant: 'acme-labs', region: 'eu', seller: 'S-7' },
      exp: payload['exp'],
    });
    assert.ok(Number(payload['exp']) >= before + 600 && Number(payload['exp']) <= Math.ceil(Date.now() / 1000) + 600);
    assert.equal(expires_at, new Date(Number(payload['exp']) * 1000).toISOString());
    assert.deepEqual([resource, params], [payload['resource'], payload['params']]);
    assert.equal(url, `${SITE}/embed/dashboard/${token}#bordered=true&titled=true`);
    // jsonwebtoken, as Metabase's own examples sign, verifies it with the secret and HS256 only.
    assert.deepEqual(jsonwebtoken.verify(token, SECRET, { algorithms: ['HS256'] }), payload);
    assert.throws(() => jsonwebtoken.verify(token, `${SECRET}x`, { algorithms: ['HS256'] }), /invalid signature/);

    const question = await mint({
      user_group_id: 'acme',
      resource: { question: 7 },
      params: { tenants: 'user_group_subtree' },
      expires_in: 60,
    });
    assert.equal(question.status, 201, question.text);
    const minted = verifyHs256(question.json.metabase_token.token, SECRET).payload;
    assert.deepEqual(minted['params'], { tenants: ['acme', 'acme-labs'] });
    assert.ok(Number(minted['exp']) <= Math.ceil(Date.now() / 1000) + 60);
    assert.match(question.json.metabase_token.url, /\/embed\/question\//);
  });

  it("takes a dashboard's or question's Entity ID (Metabase's docs: stable across serialization) as the resource", async () => {
    const entityId = 'xBLdW9FsgRuB2HGhWiBa_';
    const res = await mint({ user_group_id: 'acme', resource: { question: entityId }, params: { tenant: 'user_group_id' } });
    assert.equal(res.status, 201, res.text);
    const { payload } = verifyHs256(res.json.metabase_token.token, SECRET);
    assert.deepEqual(payload['resource'], { question: entityId });
    assert.deepEqual(res.json.metabase_token.resource, { question: entityId });
    assert.equal(res.json.metabase_token.url.split('/embed/question/')[0], SITE);
  });

  it('fills property: from the group alone: a viewer attribute of the same name neither changes nor hides it', async () => {
    const base = { user_group_id: 'acme-labs', resource: { dashboard: 12 }, params: { region: 'property:region' } };
    for (const attributes of [{ region: 'us' }, { region: null }]) {
      const res = await mint({ ...base, viewer: { id: 'eve', attributes } });
      assert.equal(res.status, 201, res.text);
      assert.deepEqual(verifyHs256(res.json.metabase_token.token, SECRET).payload['params'], { region: 'eu' }, JSON.stringify(attributes));
    }
  });

  it("mints only for a group of the key's own environment, and no more once the group is deleted", async () => {
    const testing = await server.client({ environment: 'Testing', access: 'read-write' });
    assert.equal((await testing.call('PUT', { site_url: SITE, secret_key: 'ab'.repeat(32) }, { path: PATH })).status, 200);
    const body = { user_group_id: 'acme', resource: { dashboard: 3 }, params: { tenant: 'user_group_id' } };
    const elsewhere = await mint(body, testing);
    assert.equal(elsewhere.status, 404, `acme is a Customer group: ${elsewhere.text}`);
    assert.equal((await api.getOrCreate({ user_group_id: 'short-lived', name: 'Short-lived' })).status, 200);
    const before = await mint({ ...body, user_group_id: 'short-lived' });
    assert.equal(before.status, 201, before.text);
    assert.equal((await api.call('DELETE', { user_group_id: 'short-lived' }, { path: '/api/user' })).status, 200);
    const gone = await mint({ ...body, user_group_id: 'short-lived' });
    assert.equal(gone.status, 404, gone.text);
    // What Metabase checks (the signature under its key, exp): a token handed out before still passes it.
    assert.ok(jsonwebtoken.verify(before.json.metabase_token.token, SECRET, { algorithms: ['HS256'] }));
    assert.equal((await testing.call('DELETE', undefined, { path: PATH })).status, 200);
  });

  it("lets a viewer whose sessions were ended mint again, as an embed session's mint does: ending sessions bans no one", async () => {
    const body = {
      user_group_id: 'acme',
      resource: { dashboard: 9 },
      params: { tenant: 'user_group_id', seller: 'viewer:seller' },
      viewer: { id: 'dan', attributes: { seller: 'S-9' } },
    };
    const first = await mint(body);
    assert.equal(first.status, 201, first.text);
    const ended = await api.call('DELETE', undefined, { path: '/api/viewers/dan/sessions' });
    assert.equal(ended.status, 200, ended.text);
    // Ending the viewer's sessions cannot reach Metabase: the token handed out still passes its check.
    assert.ok(jsonwebtoken.verify(first.json.metabase_token.token, SECRET, { algorithms: ['HS256'] }));
    const again = await mint(body);
    assert.equal(again.status, 201, again.text);
    assert.deepEqual(verifyHs256(again.json.metabase_token.token, SECRET).payload['params'], { tenant: 'acme', seller: 'S-9' });
  });

  it('refuses, before signing, a parameter it cannot fill from the group or viewer, and asks that are out of bounds', async () => {
    const base = { user_group_id: 'acme', resource: { dashboard: 12 } };
    const tenant = { tenant: 'user_group_id' };
    for (const [body, status, pattern] of [
      [{ ...base, params: { plan: 'property:missing' } }, 400, /no property "missing"/],
      [{ ...base, params: { meta: 'property:meta' } }, 400, /cannot lock a Metabase filter/],
      // Metabase reads an empty list as "do not filter": never signed.
      [{ ...base, params: { tags: 'property:tags' } }, 400, /cannot lock a Metabase filter/],
      [{ ...base, params: { ...tenant, seller: 'viewer:seller' } }, 400, /no attribute "seller"/],
      [
        { ...base, params: { ...tenant, seller: 'viewer:seller' }, viewer: { id: 'bob', attributes: { other: 1 } } },
        400,
        /no attribute "seller"/,
      ],
      [{ ...base, params: { tenant: 'acme' } }, 400, /where its value comes from/],
      [{ ...base, params: { tenant: 'property:' } }, 400, /where its value comes from/],
      [{ ...base, params: { 'bad slug!': 'user_group_id' } }, 400, /slug/],
      // No filter bound to the group: nothing would keep the token to the group's rows.
      [{ ...base, params: {} }, 400, /at least one parameter to the group/],
      [
        { ...base, params: { seller: 'viewer:seller' }, viewer: { id: 'bob', attributes: { seller: 'S-1' } } },
        400,
        /at least one parameter/,
      ],
      [{ ...base, params: { tenant: 7 } }, 400, /params/],
      [{ ...base, params: 'user_group_id' }, 400, /params/],
      [{ ...base, resource: {}, params: tenant }, 400, /exactly one/],
      [{ ...base, resource: { dashboard: 1, question: 2 }, params: tenant }, 400, /exactly one/],
      [{ ...base, resource: { dashboard: 0 }, params: tenant }, 400, /dashboard/],
      [{ ...base, resource: { dashboard: -3 }, params: tenant }, 400, /dashboard/],
      [{ ...base, resource: { dashboard: 1.5 }, params: tenant }, 400, /dashboard/],
      [{ ...base, resource: { dashboard: true }, params: tenant }, 400, /dashboard/],
      [{ ...base, resource: { question: '12' }, params: tenant }, 400, /Entity ID/],
      [{ ...base, resource: { question: 'xBLdW9FsgRuB2HGhWiBa' }, params: tenant }, 400, /Entity ID/],
      [{ ...base, resource: { question: 'xBLdW9FsgRuB2HGhWiBa!' }, params: tenant }, 400, /Entity ID/],
      [{ ...base, resource: { card: 1 }, params: tenant }, 400, /"resource" must NOT have additional properties/],
      [{ ...base, resource: 12, params: tenant }, 400, /resource/],
      [{ ...base, params: tenant, expires_in: 3601 }, 400, /expires_in/],
      [{ ...base, params: tenant, expires_in: 30 }, 400, /expires_in/],
      [{ ...base, params: tenant, expires_in: '600' }, 400, /expires_in/],
      [{ ...base, params: tenant, viewer: { id: '' } }, 400, /viewer/],
      [{ ...base, params: tenant, viewer: { id: 'ann', attributes: 'S-7' } }, 400, /viewer/],
      [{ ...base, params: tenant, token: 'x' }, 400, /additional properties/],
      [{ resource: { dashboard: 1 }, params: tenant }, 400, /user_group_id/],
      [{ ...base, user_group_id: '', params: tenant }, 400, /user_group_id/],
      [[], 400, /object/],
      [{ ...base, user_group_id: 'nobody', params: tenant }, 404, /nobody/],
    ] as const) {
      const res = await mint(body);
      assert.equal(res.status, status, `${JSON.stringify(body)}: ${res.text}`);
      assert.match(res.json.error.message, pattern, JSON.stringify(body));
    }
  });

  it('lets embed keys mint, and read-only and dashboard keys not', async () => {
    const body = { user_group_id: 'acme', resource: { dashboard: 3 }, params: { tenant: 'user_group_id' } };
    assert.equal((await mint(body, await server.client({ environment: 'Customer', access: 'embed' }))).status, 201);
    for (const access of ['read-only', 'dashboard'] as const) {
      assert.equal((await mint(body, await server.client({ environment: 'Customer', access }))).status, 403, access);
    }
  });

  it('audits each mint with the parameter names, counts it in the group usage, and never writes the secret or a token', async () => {
    const res = await mint({
      user_group_id: 'acme',
      resource: { dashboard: 5 },
      params: { tenant: 'user_group_id' },
      viewer: { id: 'cid' },
    });
    assert.equal(res.status, 201, res.text);
    const records = await server.services.audit.listAuditRecords({ environment: 'Customer', newestFirst: true, limit: 1 });
    assert.deepEqual(
      [records[0]!.action, records[0]!.providedId, records[0]!.fields, records[0]!.viewerId],
      ['metabase.token_minted', 'acme', ['resource.dashboard=5', 'params.tenant=user_group_id', 'expires_in=600'], 'cid'],
    );
    await server.services.embedSessions.flushActivity();
    const usage = await api.call('GET', undefined, { path: '/api/user_groups/acme/usage?granularity=day' });
    assert.equal(usage.status, 200, usage.text);
    const sessions = usage.json.usage.reduce((sum: number, bucket: { sessions: number }) => sum + bucket.sessions, 0);
    assert.ok(sessions >= 3, `the mints of acme count as sessions: ${usage.text}`);
    const ranked = await api.call('GET', undefined, { path: '/api/usage' });
    assert.equal(ranked.status, 200, ranked.text);
    const acme = ranked.json.groups.find((g: { user_group_id: string }) => g.user_group_id === 'acme');
    assert.equal(acme?.sessions, sessions, `GET /api/usage counts the same: ${ranked.text}`);
    assert.ok(acme.viewers >= 2, 'the viewers named by mints (dan, cid) are counted');
    const everything = JSON.stringify(await server.services.audit.listAuditRecords({ limit: 1000 })) + server.logs.join('');
    assert.ok(!everything.includes(SECRET), 'the secret key is in no audit record or log line');
    assert.ok(!everything.includes(res.json.metabase_token.token), 'the token is in no audit record or log line');
    const read = await api.call('GET', undefined, { path: PATH });
    assert.ok(!read.text.includes(SECRET));
  });

  it('a new key (regenerated in Metabase, then PUT here) is what ends every token handed out: none verifies under it', async () => {
    const body = { user_group_id: 'acme', resource: { dashboard: 2 }, params: { tenant: 'user_group_id' } };
    const old = await mint(body);
    assert.equal(old.status, 201, old.text);
    const regenerated = '9f'.repeat(32);
    const put = await api.call('PUT', { site_url: SITE, secret_key: regenerated }, { path: PATH });
    assert.equal(put.status, 200, put.text);
    assert.throws(() => jsonwebtoken.verify(old.json.metabase_token.token, regenerated, { algorithms: ['HS256'] }), /invalid signature/);
    const fresh = await mint(body);
    assert.ok(verifyHs256(fresh.json.metabase_token.token, regenerated));
    assert.equal((await api.call('PUT', { site_url: SITE, secret_key: SECRET }, { path: PATH })).status, 200);
  });

  it('forgets the settings on DELETE: no more mints', async () => {
    assert.equal((await api.call('DELETE', undefined, { path: PATH })).status, 200);
    assert.equal((await api.call('DELETE', undefined, { path: PATH })).status, 404);
    assert.equal((await mint({ user_group_id: 'acme', resource: { dashboard: 1 }, params: { tenant: 'user_group_id' } })).status, 409);
    const removed = await server.services.audit.listAuditRecords({ environment: 'Customer', newestFirst: true, limit: 1 });
    assert.equal(removed[0]!.action, 'metabase.removed');
  });
});
