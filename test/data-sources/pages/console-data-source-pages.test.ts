import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ConnectionCheckResult } from '../../../src/data-sources/connection-check.js';
import { signedInSessions, ConsoleClient, unescapeHtml } from '../../helpers/console-client.js';
import { buildForSuite } from '../../helpers/build.js';

const WRITER = { keyId: 'test', environment: 'Customer' as const, access: 'read-write' as const };
const DASHBOARD = { keyId: 'test', environment: 'Customer' as const, access: 'dashboard' as const };
const PASSWORD = 'pw-Only-The-Store-Holds-9f3a';
const NEW_PASSWORD = 'pw-New-Password-Set-Later-2b71';
const IGNORED_PASSWORD = 'pw-Typed-Beside-Remove-c40e';
const TYPED_PASSWORD = 'pw-Typed-Into-A-Refused-Form-5d8a';
/** Every password this suite types: none may be on a page. Whole values, never a prefix a random token could hold by chance. */
const PASSWORDS = [PASSWORD, NEW_PASSWORD, IGNORED_PASSWORD, TYPED_PASSWORD];
const HOSTILE = `<script>alert(1)</script>"'`;

/**
 * The console's data source pages on the wire, on the store UGS_TEST_STORE names: the list (keyset-paged) and its
 * Add form, a data source's page (its fields, whether a password is set, the groups that map to it), the write-only
 * password, the check, removal refused while mapped and then forced, read-only sessions, and a group's resolved
 * mapping. No page ever holds a password.
 */
describe('operator console: data sources', () => {
  const server = buildForSuite({ apiKey: false });
  let browser: ConsoleClient;
  let reader: ConsoleClient;
  /** Every page answered in this suite: none may hold a password (checked once all ran). */
  const seen: { path: string; text: string }[] = [];
  before(async () => {
    ({ writer: browser, reader } = await signedInSessions(server));
  });
  after(() => {
    for (const { path, text } of seen) for (const password of PASSWORDS) assert.ok(!text.includes(password), `a password on ${path}`);
  });

  const get = async (path: string, client = browser) => {
    const answer = await client.get(path);
    seen.push({ path, text: answer.text });
    return answer;
  };
  const post = async (path: string, fields: Record<string, string>, from = path, client = browser) => {
    const answer = await client.post(path, { _csrf: await client.csrfToken(from), ...fields });
    seen.push({ path, text: answer.text });
    return answer;
  };
  const add = (fields: Record<string, string>) =>
    post('/console/data-sources', { kind: 'postgresql', port: '', ssl_mode: 'disable', ...fields }, '/console/data-sources');
  const errorOf = (html: string, field: string) =>
    unescapeHtml(new RegExp(`<p id="${field}_error" class="error"[^>]*>([^<]*)</p>`).exec(html)?.[1] ?? '');
  const passwordOf = async (id: string) => (await server.services.dataSources.credentials(DASHBOARD, id)).connection.password;
  const base = { host: 'db.internal.example', database: 'acme', user: 'dashboards' };

  it('adds a data source and shows it listed and on its page, with "password set: yes" and never the password', async () => {
    const added = await add({ id: 'warehouse', name: 'Warehouse', ...base, password: PASSWORD });
    assert.equal(added.status, 303, added.text.slice(0, 500));
    assert.equal(added.headers.get('location'), '/console/data-sources/warehouse?done=added');
    assert.equal(await passwordOf('warehouse'), PASSWORD);
    const list = await get('/console/data-sources');
    assert.match(list.text, /<a href="\/console\/data-sources\/warehouse"><code>warehouse<\/code><\/a>/);
    assert.match(list.text, /db\.internal\.example:5432/);
    const page = await get('/console/data-sources/warehouse?done=added');
    assert.match(page.text, /Data source added\./);
    assert.match(page.text, /<dt>Password set<\/dt><dd id="password-set">yes<\/dd>/);
    assert.match(page.text, /<input id="password" name="password" type="password" value=""/, 'the password field empty');
    assert.match(page.text, /No group&#39;s own mapping names|No group's own mapping names/);
  });

  it("shows the API's refusals beside the field they are about, keeps what was typed but the password, and adds nothing", async () => {
    const count = async () => (await server.services.dataSources.list(WRITER, { limit: 1000 })).dataSources.length;
    const before = await count();
    const cases: [Record<string, string>, string, RegExp][] = [
      [
        { id: 'bad-host', name: 'B', ...base, host: 'https://db.example/x' },
        'host',
        /"connection.host" .* is neither an IP address nor a host name/,
      ],
      [{ id: 'bad-port', name: 'B', ...base, port: '5432x' }, 'port', /"connection.port" is a whole number/],
      [{ id: 'big-port', name: 'B', ...base, port: '70000' }, 'port', /"connection.port" must be <= 65535/],
      [{ id: 'no-db', name: 'B', ...base, database: '' }, 'database', /"connection.database"/],
      [{ id: 'ca', name: 'B', ...base, ssl_ca: 'not a pem' }, 'ssl_ca', /"connection.ssl.ca" holds PEM certificates/],
      [{ id: 'warehouse', name: 'Again', ...base }, 'id', /exists in the Customer environment already/],
      [{ id: '', name: 'B', ...base }, 'id', /"id"/],
    ];
    for (const [fields, field, message] of cases) {
      const answer = await add({ ...fields, password: PASSWORD });
      assert.equal(answer.status, field === 'id' && fields.id === 'warehouse' ? 409 : 400, `${field}: ${answer.text.slice(0, 300)}`);
      assert.match(errorOf(answer.text, field), message, field);
      assert.match(answer.text, new RegExp(`id="${field === 'ssl_ca' ? 'ssl_ca' : field}"[^>]*aria-invalid="true"`), `${field} marked`);
      assert.match(answer.text, /Type it again: a refused form never shows a password back/);
      if (fields.name) assert.match(answer.text, new RegExp(`id="name" name="name" value="${fields.name}"`), 'the name as typed');
    }
    assert.equal(await count(), before);
  });

  it('edits with a write-only password: empty keeps it, a new one replaces it, the box removes it; each shown only as set or not', async () => {
    const path = '/console/data-sources/warehouse';
    const edit = (fields: Record<string, string>) =>
      post(`${path}/edit`, { name: 'Warehouse', ...base, port: '5432', ssl_mode: 'disable', ssl_ca: '', password: '', ...fields }, path);
    const renamed = await edit({ name: 'Warehouse EU' });
    assert.equal(renamed.status, 303, renamed.text.slice(0, 500));
    assert.equal(renamed.headers.get('location'), `${path}?done=saved`);
    assert.equal(await passwordOf('warehouse'), PASSWORD, 'an empty field keeps the password');
    const detail = await server.services.dataSources.get(WRITER, 'warehouse');
    assert.deepEqual([detail.dataSource.name, detail.dataSource.version], ['Warehouse EU', 2]);

    assert.equal((await edit({ name: 'Warehouse EU', password: NEW_PASSWORD })).status, 303);
    assert.equal(await passwordOf('warehouse'), NEW_PASSWORD);
    assert.match((await get(path)).text, /<dd id="password-set">yes<\/dd>/);

    const both = await edit({ name: 'Warehouse EU', password: IGNORED_PASSWORD, remove_password: '1' });
    assert.equal(both.status, 400);
    assert.match(errorOf(both.text, 'password'), /not both/);
    assert.equal(await passwordOf('warehouse'), NEW_PASSWORD);

    assert.equal((await edit({ name: 'Warehouse EU', remove_password: '1' })).status, 303);
    assert.equal(await passwordOf('warehouse'), null);
    const page = await get(path);
    assert.match(page.text, /<dd id="password-set">no<\/dd>/);
    assert.ok(!page.text.includes('id="remove_password"'), 'no box to remove a password that is not set');

    const refused = await edit({ name: 'Warehouse EU', ssl_mode: 'verify-full', ssl_ca: '-----BEGIN NONSENSE', password: TYPED_PASSWORD });
    assert.equal(refused.status, 400);
    assert.match(errorOf(refused.text, 'ssl_ca'), /PEM certificates/);
    assert.match(refused.text, /<option value="verify-full" selected>/, 'the mode as chosen');
    assert.equal(await passwordOf('warehouse'), null, 'nothing written');
  });

  it('checks the connection: the categories when the checker answers, the reason on the page when it cannot run', async () => {
    const path = '/console/data-sources/warehouse';
    // Nothing listens at the data source's address: the check comes to a failure category, drawn on the page.
    const real = await post(`${path}/check`, {}, path);
    assert.equal(real.status, 200, real.text.slice(0, 300));
    assert.match(real.text, /<dt>Failure<\/dt><dd><span class="state state-disabled">/);
    assert.match(real.text, /<h1>Data source <code>warehouse<\/code><\/h1>/, "on the data source's page");

    // The categories as drawn, from a result the service is made to return (the PostgreSQL checker is not this test's subject).
    const found: ConnectionCheckResult = {
      reachable: true,
      authenticated: true,
      serverVersion: '17.2',
      superuser: false,
      bypassRls: true,
      tls: false,
      failure: null,
      durationMs: 38.4,
    };
    const check = server.services.dataSources.check;
    server.services.dataSources.check = async () => found;
    try {
      const answer = await post(`${path}/check`, {}, path);
      assert.equal(answer.status, 200);
      const lines = [...answer.text.matchAll(/<dt>([^<]+)<\/dt><dd><span class="state state-(\w+)">([^<]+)<\/span><\/dd>/g)].map((m) => [
        m[1],
        m[2],
        unescapeHtml(m[3]!),
      ]);
      assert.deepEqual(lines, [
        ['Reachable', 'ok', 'yes'],
        ['Authenticated', 'ok', 'yes'],
        ['Server version', 'ok', '17.2'],
        ['Superuser', 'ok', 'no'],
        ['Bypass RLS', 'failing', 'yes: row policies do not bind this role'],
        ['TLS', 'failing', 'no: the connection is not encrypted'],
        ['Failure', 'ok', 'none'],
        ['Took', 'unknown', '38 ms'],
      ]);
      server.services.dataSources.check = async () => ({
        ...found,
        authenticated: false,
        serverVersion: null,
        superuser: null,
        bypassRls: null,
        tls: null,
        failure: 'authentication_failed',
      });
      const failed = await post(`${path}/check`, {}, path);
      assert.match(failed.text, /<dt>Superuser<\/dt><dd><span class="state state-unknown">not learned<\/span>/);
      assert.match(failed.text, /authentication_failed: the server refused the user and password/);
    } finally {
      server.services.dataSources.check = check;
    }
  });

  it('lists the groups that map to it (linked), refuses removal while they do, and removes it when forced', async () => {
    await server.services.dataSources.create(WRITER, { id: 'shared', name: 'Shared', kind: 'postgresql', connection: base });
    for (const id of ['acme', 'globex'])
      await server.services.userGroups.getOrCreate(WRITER, { userGroupId: id, name: id, mapping: { '40': 'shared' } });
    const path = '/console/data-sources/shared';
    const page = await get(path);
    assert.match(page.text, /2 groups&#39; own mappings name it|2 groups' own mappings name it/);
    assert.match(
      page.text,
      /<li><a href="\/console\/groups\/acme">acme<\/a><\/li>\s*<li><a href="\/console\/groups\/globex">globex<\/a><\/li>/,
    );
    assert.match(page.text, /id="force" name="force" type="checkbox"/, 'the force box offered');

    const wrong = await post(`${path}/remove`, { confirm: 'share' }, path);
    assert.equal(wrong.status, 400);
    assert.match(wrong.text, /<dialog id="remove-dialog"[^>]* open/);
    assert.match(errorOf(wrong.text, 'confirm'), /Type the data source id, "shared", exactly/);

    const refused = await post(`${path}/remove`, { confirm: 'shared' }, path);
    assert.equal(refused.status, 409);
    assert.match(refused.text, /<dialog id="remove-dialog"[^>]* open/);
    assert.match(
      errorOf(refused.text, 'force'),
      /^2 groups map a schema to data source "shared": tick "Remove it although groups map to it"/,
    );
    await server.services.dataSources.get(WRITER, 'shared');

    const forced = await post(`${path}/remove`, { confirm: 'shared', force: '1' }, path);
    assert.equal(forced.status, 303);
    assert.equal(forced.headers.get('location'), '/console/data-sources?done=removed');
    await assert.rejects(server.services.dataSources.get(WRITER, 'shared'), { code: 'not_found' });
    assert.equal((await get(path)).status, 404);
    assert.match((await get('/console/data-sources?done=removed')).text, /Data source removed\./);
  });

  it("shows a group's resolved mapping: own or inherited (the ancestor linked), the data source linked or the value flagged unresolved", async () => {
    await server.services.userGroups.getOrCreate(WRITER, { userGroupId: 'initech', name: 'Initech', mapping: { '40': 'warehouse' } });
    await server.services.userGroups.getOrCreate(WRITER, {
      userGroupId: 'initech-eu',
      name: 'Initech EU',
      parentUserGroupId: 'initech',
      mapping: { '41': 'nowhere', '42': 7 },
    });
    const page = await get('/console/groups/initech-eu');
    assert.equal(page.status, 200);
    const rows = [
      ...page.text.matchAll(
        /<tr>\s*<td><code>([^<]+)<\/code><\/td>\s*<td><code>([^<]+)<\/code><\/td>\s*<td>(.*?)<\/td>\s*<td>(.*?)<\/td>/gs,
      ),
    ];
    assert.deepEqual(
      rows.map((m) => [m[1], unescapeHtml(m[2]!), m[3], m[4]!.replace(/<[^>]+>/g, '')]),
      [
        ['40', '"warehouse"', 'inherited from <a href="/console/groups/initech">initech</a>', 'Warehouse EU (warehouse)'],
        ['41', '"nowhere"', 'own', 'unresolved no data source nowhere in Customer'],
        ['42', '7', 'own', 'unresolved no data source 7 in Customer'],
      ],
    );
    assert.match(page.text, /<a href="\/console\/data-sources\/warehouse">Warehouse EU<\/a>/);
    assert.match(page.text, /<span class="state state-disabled">unresolved<\/span>/);
    // The group that has no mapping of its own or inherited says so.
    await server.services.userGroups.getOrCreate(WRITER, { userGroupId: 'unmapped', name: 'Unmapped' });
    assert.match((await get('/console/groups/unmapped')).text, /No mapping: this group maps no schema\./);
  });

  it('a read-only session sees the data sources, their fields and mapped groups, without any form, and its posts are refused', async () => {
    const list = await get('/console/data-sources', reader);
    const page = await get('/console/data-sources/warehouse', reader);
    assert.equal(list.status, 200);
    assert.equal(page.status, 200);
    assert.ok(list.text.includes('Warehouse EU') && page.text.includes('db.internal.example'));
    for (const html of [list.text, page.text]) {
      const forms = [...html.matchAll(/<form method="post" action="([^"]+)"/g)].map((m) => m[1]);
      assert.deepEqual(forms, ['/console/sign-out'], 'no form but sign out');
      for (const control of ['Add data source', 'Check connection', 'Save', 'Remove']) assert.ok(!html.includes(`>${control}<`), control);
      assert.ok(!html.includes('type="password"'), 'no password field');
    }
    const token = await reader.csrfToken('/console/data-sources/warehouse');
    const refusals = [
      await reader.post('/console/data-sources', { _csrf: token, id: 'r', name: 'R', kind: 'postgresql', ...base, ssl_mode: 'disable' }),
      await reader.post('/console/data-sources/warehouse/edit', { _csrf: token, name: 'R', ...base, ssl_mode: 'disable' }),
      await reader.post('/console/data-sources/warehouse/check', { _csrf: token }),
      await reader.post('/console/data-sources/warehouse/remove', { _csrf: token, confirm: 'warehouse', force: '1' }),
    ];
    for (const refused of refusals) {
      assert.equal(refused.status, 403, refused.text.slice(0, 300));
      assert.match(refused.text, /read-only/);
    }
    assert.equal((await server.services.dataSources.get(WRITER, 'warehouse')).dataSource.name, 'Warehouse EU');
  });

  it('pages the list by id, 50 at a time, and shows names as text', async () => {
    for (let i = 0; i < 52; i++)
      await server.services.dataSources.create(WRITER, {
        id: `p${String(i).padStart(2, '0')}`,
        name: i === 0 ? HOSTILE : `Page ${i}`,
        kind: 'postgresql',
        connection: base,
      });
    const ids = (html: string) => [...html.matchAll(/<a href="\/console\/data-sources\/([^"]+)"><code>/g)].map((m) => m[1]);
    const first = await get('/console/data-sources');
    assert.equal(ids(first.text).length, 50);
    assert.ok(!first.text.includes('<script>alert(1)'), 'the name escaped');
    assert.ok(first.text.includes('&lt;script&gt;alert(1)'), 'the name shown');
    const next = /<a href="(\/console\/data-sources\?after=[^"]+)" rel="next">Next page<\/a>/.exec(first.text)?.[1];
    assert.ok(next, 'a Next page link');
    const second = await get(unescapeHtml(next));
    assert.deepEqual(ids(second.text), ['p50', 'p51', 'warehouse']);
    assert.ok(!second.text.includes('rel="next"'), 'the last page');
    assert.match(second.text, /<a href="\/console\/data-sources">First page<\/a>/);
  });
});
