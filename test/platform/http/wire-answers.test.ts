import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { build } from '../../helpers/build.js';
import type { RawRequest } from '../../helpers/http-client.js';
import { compareWithGolden, WireRecorder } from '../../helpers/wire-recording.js';

const GOLDEN = 'test/platform/http/wire-answers.json';
// A global unicast address given as such: accepted at registration without a DNS lookup; no worker runs here, so nothing is sent.
const HOOK_URL = 'https://93.184.216.34/hooks/user-groups';

/**
 * Every route of the OpenAPI document and its main answers, played in a fixed
 * order against the real service and compared, normalized, to a recording: the
 * wire must not change while the code behind it is reshaped (issue 27). One
 * recording for both stores.
 */
describe('the wire, as recorded in test/platform/http/wire-answers.json', () => {
  it('answers the fixed script exactly as recorded', async (t) => {
    const server = await build(t, {
      clients: {
        reader: { access: 'read-only' },
        embed: { access: 'embed' },
        dashboard: { access: 'dashboard' },
        testing: { environment: 'Testing' },
      },
      // Below the default 100, so reaching the 429 at the end takes a few requests; no answer before it shows the budget.
      limits: { authFailuresPerMinute: 10 },
    });
    const wire = new WireRecorder(server.url);
    const { api, clients } = server;
    const send = (req: RawRequest, options?: Parameters<WireRecorder['send']>[1]) => wire.send(req, options);
    const call = (key: string | undefined, method: string, path: string, body?: unknown, label?: string) =>
      wire.send(
        {
          method,
          path,
          headers: {
            ...(key !== undefined && { authorization: `Token ${key}` }),
            ...(body !== undefined && { 'content-type': 'application/json' }),
          },
          body,
        },
        { label },
      );
    const key = api.key!;

    // Public routes: health, metrics, the API reference, the key sets, the console's sign-in page.
    for (const path of ['/healthz', '/readyz', '/.well-known/jwks.json', '/.well-known/jwks-testing.json']) {
      await send({ method: 'GET', path }, { body: path.startsWith('/.well-known/') ? 'jwks' : 'json' });
      await send({ method: 'HEAD', path });
    }
    await send({ method: 'GET', path: '/metrics' }, { body: 'metric-names' });
    await send({ method: 'HEAD', path: '/metrics' }, { body: 'metric-names' });
    const documented = (await send({ method: 'GET', path: '/openapi.json' }, { body: 'digest' })).json as {
      paths: Record<string, Record<string, unknown>>;
    };
    await send({ method: 'GET', path: '/docs' }, { body: 'omitted' });
    await send({ method: 'GET', path: '/docs/' }, { body: 'omitted' });
    await send({ method: 'GET', path: '/console', outsideContract: true }, { body: 'omitted' });
    await send({ method: 'GET', path: '/console/sign-in', outsideContract: true }, { body: 'omitted' });
    await call(undefined, 'GET', '/no-such-route');
    // The host name alone: the JSON 404 for API clients, a page for a browser (issue 43).
    await send({ method: 'GET', path: '/', headers: { accept: '*/*' } });
    await send(
      { method: 'GET', path: '/', headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' }, outsideContract: true },
      { body: 'omitted', label: 'a browser' },
    );
    await send({ method: 'GET', path: '/healthz', headers: { 'x-request-id': 'wire-answers-1' } }, { label: 'a request id of its own' });

    // Who may call: no key, an unknown key, another scheme, a read-only key writing, an embed key reading.
    await call(undefined, 'GET', '/api/user', { user_group_id: 'acme', name: 'Acme' }, 'no key');
    await call(`ugsk_${'0'.repeat(49)}`, 'GET', '/api/user', { user_group_id: 'acme', name: 'Acme' }, 'unknown key');
    await send(
      { method: 'GET', path: '/api/user_groups', headers: { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` } },
      { label: 'Basic' },
    );
    await call(clients.reader.key, 'GET', '/api/user', { user_group_id: 'acme', name: 'Acme' }, 'read-only key creating');
    await call(clients.embed.key, 'GET', '/api/user_groups', undefined, 'embed key');

    // The three spec operations and their errors.
    const acme = (
      await call(key, 'GET', '/api/user', { user_group_id: 'acme', name: 'Acme', mapping: { '40': '213' }, properties: { region: 'eu' } })
    ).json.user_group;
    await call(key, 'GET', '/api/user', { user_group_id: 'acme', name: 'Ignored' }, 'existing');
    await call(key, 'GET', '/api/user?user_group_id=globex&name=Globex&properties=%7B%22region%22%3A%22us%22%7D');
    await call(key, 'GET', '/api/user', { user_group_id: 'acme-east', name: 'Acme East', parent_user_group_id: 'acme' }, 'child');
    await call(
      key,
      'GET',
      '/api/user',
      { user_group_id: 'acme-east-1', name: 'Acme East 1', parent_user_group_id: 'acme-east', properties: { store: 1 } },
      'grandchild',
    );
    await call(key, 'HEAD', '/api/user?user_group_id=acme');
    await call(key, 'HEAD', '/api/user?user_group_id=missing&name=Missing');
    await call(key, 'GET', '/api/user', {}, 'empty body');
    await call(key, 'GET', '/api/user', { user_group_id: 'new-one' }, 'no name');
    await call(key, 'GET', '/api/user', { user_group_id: 'x', name: 'X', parent_user_group_id: 'missing' }, 'unknown parent');
    await call(key, 'GET', '/api/user', '{"user_group_id": ', 'malformed JSON');
    await send(
      { method: 'GET', path: '/api/user', headers: { authorization: `Token ${key}`, 'content-type': 'text/plain' }, body: 'acme' },
      { label: 'text/plain' },
    );
    await send(
      {
        method: 'GET',
        path: '/api/user',
        headers: { authorization: `Token ${key}`, 'content-type': 'application/json' },
        body: `{"user_group_id":"${'a'.repeat(1024 * 1024)}"}`,
      },
      { label: 'over 1 MiB' },
    );
    await call(key, 'PATCH', '/api/user', { user_group_id: 'acme' });
    await call(key, 'PUT', '/api/user', { user_group_id: 'acme', name: 'Acme Inc.', properties: { region: 'eu', tier: 'gold' } });
    await call(key, 'PUT', '/api/user', { user_group_id: 'acme', parent_user_group_id: 'acme-east-1' }, 'cycle');
    await call(key, 'PUT', '/api/user', { user_group_id: 'missing', name: 'Missing' });
    await call(clients.reader.key, 'PUT', '/api/user', { user_group_id: 'acme', name: 'Read only' }, 'read-only key');
    await call(key, 'PUT', '/api/user', { user_group_id: 'acme', name: 7 }, 'bad name');
    const rotated = (await call(key, 'POST', '/api/user', { current_token: acme.token })).json.user_group;
    await call(key, 'POST', '/api/user', { current_token: acme.token }, 'old token');
    await call(key, 'POST', '/api/user', { current_token: 'not a token' }, 'malformed token');

    // Reading and listing, the hierarchy, environments.
    const firstPage = (await call(key, 'GET', '/api/user_groups?limit=2')).json;
    await call(key, 'GET', `/api/user_groups?limit=2&cursor=${encodeURIComponent(firstPage.next_cursor)}`);
    await call(key, 'GET', '/api/user_groups?q=acme');
    await call(key, 'GET', '/api/user_groups?parent=acme');
    await call(key, 'GET', '/api/user_groups?limit=0');
    await call(key, 'HEAD', '/api/user_groups');
    await call(clients.reader.key, 'GET', '/api/user_groups', undefined, 'read-only key');
    await call(key, 'GET', '/api/user_groups/acme-east-1');
    await call(key, 'HEAD', '/api/user_groups/acme-east-1');
    await call(key, 'GET', '/api/user_groups/missing');
    await call(clients.testing.key, 'GET', '/api/user_groups/acme', undefined, 'Testing key');
    const subtree = (await call(key, 'GET', '/api/user_groups/acme/descendants?limit=1')).json;
    await call(key, 'GET', `/api/user_groups/acme/descendants?limit=1&cursor=${encodeURIComponent(subtree.next_cursor)}`);
    await call(key, 'HEAD', '/api/user_groups/acme/descendants');
    await call(key, 'GET', '/api/user_groups/missing/descendants');

    // Embed sessions.
    const mint = (body: unknown, label?: string, as = key) => call(as, 'POST', '/api/embed_sessions', body, label);
    const session = (await mint({ user_group_id: 'acme', expires_in: 600, dashboard: 'sales', origins: ['https://app.example.com'] })).json
      .embed_session;
    await mint({ user_group_token: rotated.token, expires_in: 120 }, 'by token');
    await mint({ user_group_id: 'acme', include_descendants: true }, 'with descendants');
    await mint({ user_group_id: 'acme-east-1' }, 'embed key', clients.embed.key);
    await mint({ user_group_id: 'missing' }, 'missing group');
    await mint({}, 'neither id nor token');
    await mint({ user_group_id: 'acme' }, 'read-only key', clients.reader.key);
    await call(key, 'POST', '/api/embed_sessions/introspect', { token: session.token });
    await call(key, 'POST', '/api/embed_sessions/introspect', { token: 'not.a.token' }, 'garbage');
    // Renewal (issue 30).
    await call(key, 'POST', '/api/embed_sessions/renew', { token: session.token, expires_in: 300 });
    await call(key, 'POST', '/api/embed_sessions/renew', { token: 'not.a.token' }, 'garbage');
    await call(clients.reader.key, 'POST', '/api/embed_sessions/renew', { token: session.token }, 'read-only key');
    await call(key, 'DELETE', `/api/embed_sessions/${session.session_id}`);
    await call(key, 'DELETE', '/api/embed_sessions/es_AAAAAAAAAAAAAAAAAAAAAA', undefined, 'unknown session');
    await call(key, 'POST', '/api/embed_sessions/introspect', { token: session.token }, 'ended');
    await call(key, 'POST', '/api/embed_sessions/renew', { token: session.token }, 'ended');
    // Viewers (issue 29).
    await mint({ user_group_id: 'acme', viewer: { id: 'ana', attributes: { region: null, sales_rep: 'ana' } } }, 'with a viewer');
    await mint({ user_group_id: 'acme', viewer: { id: '' } }, 'empty viewer id');
    await call(key, 'DELETE', '/api/viewers/ana/sessions');
    await call(clients.reader.key, 'DELETE', '/api/viewers/ana/sessions', undefined, 'read-only key');
    await server.services.embedSessions.flushActivity();
    await call(key, 'GET', '/api/user_groups/acme/viewers');
    await call(key, 'GET', '/api/user_groups/acme/viewers?after=garbage');
    await call(key, 'HEAD', '/api/user_groups/acme/viewers');
    await call(key, 'GET', '/api/user_groups/missing/viewers');
    // Usage (issue 32): fixed ranges, so that the buckets are the same from one run to the next.
    const days = 'from=2026-01-01T00:00:00Z&to=2026-01-03T00:00:00Z';
    await call(key, 'GET', `/api/user_groups/acme/usage?${days}`);
    await call(clients.reader.key, 'GET', '/api/user_groups/acme/usage?from=2026-01-01T00:00:00Z&to=2026-01-01T02:00:00Z&granularity=hour');
    await call(key, 'HEAD', `/api/user_groups/acme/usage?${days}`);
    await call(key, 'GET', '/api/user_groups/acme/usage?from=2026-01-01T00:00:00Z&to=2026-06-01T00:00:00Z', undefined, 'past 90 days');
    await call(key, 'GET', '/api/user_groups/acme/usage?from=yesterday', undefined, 'not RFC 3339');
    await call(key, 'GET', '/api/user_groups/missing/usage');
    await call(clients.embed.key, 'GET', `/api/user_groups/acme/usage?${days}`, undefined, 'embed key');
    await call(key, 'GET', '/api/usage?limit=5');
    await call(key, 'GET', `/api/usage?${days}`);
    await call(key, 'HEAD', `/api/usage?${days}`);
    await call(key, 'GET', '/api/usage?limit=0');
    await call(clients.embed.key, 'GET', '/api/usage', undefined, 'embed key');
    const revocations = (await call(key, 'GET', '/api/embed_sessions/revocations')).json;
    await call(key, 'GET', `/api/embed_sessions/revocations?after=${encodeURIComponent(revocations.next_cursor)}`);
    await call(key, 'HEAD', '/api/embed_sessions/revocations');
    await call(key, 'GET', '/api/embed_sessions/revocations?after=garbage');

    // Events (a first page: its ids feed the redelivery below).
    const events = (await call(key, 'GET', '/api/events?limit=2')).json;
    await call(key, 'GET', '/api/events?after=garbage');
    await call(clients.embed.key, 'GET', '/api/events', undefined, 'embed key');

    // Webhooks and deliveries.
    const webhook = (
      await call(key, 'POST', '/api/webhooks', {
        url: HOOK_URL,
        events: ['user_group.deleted', 'user_group.created'],
        description: 'CRM sync',
      })
    ).json.webhook;
    await call(key, 'POST', '/api/webhooks', { url: 'http://93.184.216.34/hook' }, 'not https');
    await call(key, 'POST', '/api/webhooks', { url: HOOK_URL, events: ['user_group.exploded'] }, 'unknown event type');
    await call(clients.reader.key, 'POST', '/api/webhooks', { url: HOOK_URL }, 'read-only key');
    await call(key, 'GET', '/api/webhooks');
    await call(key, 'HEAD', '/api/webhooks');
    await call(key, 'GET', `/api/webhooks/${webhook.id}`);
    await call(key, 'HEAD', `/api/webhooks/${webhook.id}`);
    await call(key, 'GET', '/api/webhooks/wh_000000000000000000000000');
    await call(key, 'POST', `/api/webhooks/${webhook.id}/rotate_secret`);
    await call(key, 'POST', `/api/webhooks/${webhook.id}/enable`);
    await call(key, 'GET', `/api/webhooks/${webhook.id}/deliveries`);
    await call(key, 'POST', `/api/webhooks/${webhook.id}/redeliver`, { event_id: events.events[0].id });
    await call(key, 'POST', `/api/webhooks/${webhook.id}/redeliver`, { event_id: `evt_${'0'.repeat(32)}` }, 'unknown event');
    await call(key, 'GET', `/api/webhooks/${webhook.id}/deliveries?limit=1`);
    await call(key, 'HEAD', `/api/webhooks/${webhook.id}/deliveries`);

    // Data sources: added, listed, read (with the groups mapping to it), changed, its credentials by key access, checked; a
    // group's resolved mapping; removal refused while mapped, then forced.
    const source = {
      id: '213',
      name: 'Acme warehouse',
      kind: 'postgresql',
      connection: { host: '169.254.169.254', database: 'acme', user: 'dash' },
    };
    await call(key, 'POST', '/api/data_sources', { ...source, connection: { ...source.connection, password: 'pw-1' } });
    await call(key, 'POST', '/api/data_sources', source, 'id taken');
    await call(
      key,
      'POST',
      '/api/data_sources',
      { ...source, id: '214', connection: { ...source.connection, host: 'http://db' } },
      'host with a scheme',
    );
    await call(clients.reader.key, 'POST', '/api/data_sources', { ...source, id: '214' }, 'read-only key');
    await call(clients.embed.key, 'GET', '/api/data_sources', undefined, 'embed key');
    await call(key, 'PUT', '/api/user', { user_group_id: 'acme', mapping: { '40': '213', '41': 999 } }, 'maps to a data source');
    await call(key, 'GET', '/api/data_sources');
    await call(key, 'HEAD', '/api/data_sources');
    await call(clients.reader.key, 'GET', '/api/data_sources/213', undefined, 'read-only key');
    await call(key, 'HEAD', '/api/data_sources/213');
    await call(key, 'GET', '/api/data_sources/nope');
    await call(key, 'GET', '/api/user_groups/acme-east', undefined, 'resolved mapping, inherited');
    await call(key, 'PUT', '/api/data_sources/213', { connection: { password: 'pw-2', port: 6432 } });
    await call(key, 'PUT', '/api/data_sources/213', { kind: 'mysql' }, 'unknown kind');
    await call(key, 'GET', '/api/data_sources/213/credentials', undefined, 'read-write key');
    await call(clients.dashboard.key, 'GET', '/api/data_sources/213/credentials', undefined, 'dashboard key');
    await call(clients.dashboard.key, 'HEAD', '/api/data_sources/213/credentials', undefined, 'dashboard key');
    await call(clients.dashboard.key, 'GET', '/api/user_groups', undefined, 'dashboard key');
    await call(clients.dashboard.key, 'GET', '/api/embed_sessions/revocations', undefined, 'dashboard key');
    await call(key, 'POST', '/api/data_sources/213/check', undefined, 'a link-local address');
    await call(key, 'DELETE', '/api/data_sources/213', undefined, 'still mapped');
    await call(key, 'DELETE', '/api/data_sources/213?force=true', undefined, 'forced');

    // Metabase static embedding: settings (the secret never answered), a mint, its refusals, removal.
    const metabase = '/api/integrations/metabase';
    const mintMetabase = {
      user_group_id: 'acme',
      resource: { dashboard: 12 },
      params: { tenant: 'user_group_id', region: 'property:region' },
    };
    await call(key, 'GET', metabase, undefined, 'not configured');
    await call(key, 'POST', `${metabase}/embed_tokens`, mintMetabase, 'not configured');
    await call(key, 'PUT', metabase, { site_url: 'https://metabase.example.com', secret_key: 'f'.repeat(64) });
    await call(key, 'PUT', metabase, { site_url: 'ftp://metabase.example.com', secret_key: 'f'.repeat(64) }, 'not http');
    await call(clients.reader.key, 'GET', metabase, undefined, 'read-only key');
    await call(key, 'HEAD', metabase);
    await call(key, 'POST', `${metabase}/embed_tokens`, mintMetabase);
    await call(key, 'POST', `${metabase}/embed_tokens`, { ...mintMetabase, params: { plan: 'property:nope' } }, 'missing property');
    await call(clients.reader.key, 'POST', `${metabase}/embed_tokens`, mintMetabase, 'read-only key');
    await call(key, 'DELETE', metabase);

    // The Customer API (Explo's): every route, on customers of its own.
    await call(key, 'POST', '/api/create_group_tag/', { name: 'sales' });
    await call(key, 'POST', '/api/create_group_tag/', { name: 'sales' }, 'taken');
    await call(key, 'GET', '/api/group_tags/');
    const customer = (
      await call(key, 'POST', '/api/create_customer/', {
        provided_id: 'example_1',
        name: 'Example 1',
        mapping: { '40': '213', '134': '386' },
        properties: { filterValue: 'value' },
        emails: ['example@example.com'],
        group_tags: ['sales'],
        hierarchy_level_name: 'Customer',
      })
    ).json.customer;
    await call(key, 'POST', '/api/create_customer/', { provided_id: 'example_1' }, 'existing');
    await call(key, 'POST', '/api/create_customer/', { provided_id: 'example_2', name: 'Example 2', group_tags: ['nope'] }, 'unknown tag');
    await call(
      key,
      'POST',
      '/api/create_customer/',
      { provided_id: 'example_2', name: 'Example 2', parent_provided_id: 'example_1' },
      'child',
    );
    await call(key, 'POST', '/api/get_customer/', { provided_id: 'example_2' });
    await call(key, 'POST', '/api/get_customer/', { provided_id: 'nobody' }, 'unknown');
    await call(key, 'POST', '/api/update_customer/', { provided_id: 'example_1', emails: ['new_email@example.com'], is_demo_group: true });
    await call(clients.reader.key, 'POST', '/api/update_customer/', { provided_id: 'example_1', name: 'X' }, 'read-only key');
    await call(key, 'GET', '/api/customers/');
    await call(key, 'HEAD', '/api/customers/');
    await call(key, 'HEAD', '/v2/api/customers/');
    await call(key, 'HEAD', '/api/group_tags/');
    await call(key, 'GET', '/api/customers/?parent_provided_id=example_1', undefined, 'children');
    await call(key, 'GET', '/v2/api/customers/?pageSize=1&page=2');
    await call(key, 'GET', '/v2/api/customers/?page_size=1001', undefined, 'page too large');
    await call(key, 'POST', '/api/generate_jwt/', {
      provided_id: 'example_2',
      embed_id: 'abcde',
      expiration: 'PT1H',
      embed_origin: 'https://your-domain.com/',
    });
    await call(key, 'POST', '/api/generate_jwt/', { provided_id: 'example_2', expiration: 'P1M' }, 'months');
    await call(key, 'POST', '/api/configure_customer_portal/', { dashboard_embed_id: 'Ab123CdefG', provided_id: 'example_1' }, 'no portal');
    await call(key, 'POST', '/api/rename_group_tag/', { name: 'sales', new_name: 'new tag' });
    await call(key, 'POST', '/api/delete_group_tag/', { name: 'new tag' });
    await call(key, 'POST', '/api/delete_group_tag/', { name: 'new tag' }, 'unknown');
    await call(key, 'DELETE', '/api/delete_customer/', { current_token: customer.token }, 'has children');
    const refreshed = (await call(key, 'POST', '/api/refresh_customer_token/', { current_token: customer.token })).json.customer;
    await call(key, 'POST', '/api/refresh_customer_token/', { current_token: customer.token }, 'rotated already');
    await call(key, 'POST', '/api/update_customer/', { provided_id: 'example_2', parent_provided_id: null, new_provided_id: 'example_3' });
    await call(key, 'DELETE', '/api/delete_customer/', { current_token: refreshed.token });

    // Deleting: a parent without cascade, a leaf, a subtree, a missing group; then the webhook.
    await call(key, 'DELETE', '/api/user', { user_group_id: 'acme' }, 'has children');
    await call(key, 'DELETE', '/api/user', { user_group_id: 'globex' });
    await call(key, 'DELETE', '/api/user', { user_group_id: 'acme', cascade: true }, 'cascade');
    await call(key, 'DELETE', '/api/user', { user_group_id: 'acme' }, 'gone');
    await call(clients.reader.key, 'DELETE', '/api/user', { user_group_id: 'acme' }, 'read-only key');
    await call(key, 'DELETE', `/api/webhooks/${webhook.id}`);
    await call(key, 'DELETE', `/api/webhooks/${webhook.id}`, undefined, 'again');

    // Every event of the script, then the next page from its cursor; Testing's own.
    const all = (await call(key, 'GET', '/api/events?limit=1000')).json;
    await call(key, 'GET', `/api/events?after=${encodeURIComponent(all.next_cursor)}`);
    await call(key, 'HEAD', '/api/events');
    await call(clients.testing.key, 'GET', '/api/events', undefined, 'Testing key');

    // Failed authentications past the per-address budget get 429: last, as it locks this address out for the minute.
    let throttled = false;
    for (let i = 0; i < 10 && !throttled; i++) {
      const res = await server.api.call('GET', undefined, {
        path: '/api/user_groups',
        headers: { authorization: `Token ugsk_${'1'.repeat(49)}` },
      });
      throttled = res.status === 429;
    }
    await call(`ugsk_${'1'.repeat(49)}`, 'GET', '/api/user_groups', undefined, 'past the failed-auth budget');

    // A route added later is played here too, or this fails.
    const played = wire.entries.map((e) => e.request);
    for (const [path, item] of Object.entries(documented.paths)) {
      for (const method of Object.keys(item)) {
        const line = new RegExp(
          `^${method.toUpperCase()} ${path.replace(/[.+*?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/?]+')}([? ]|$)`,
        );
        assert.ok(
          played.some((request) => line.test(request)),
          `the script plays no ${method.toUpperCase()} ${path}`,
        );
      }
    }
    compareWithGolden(wire.entries, GOLDEN);
  });
});
