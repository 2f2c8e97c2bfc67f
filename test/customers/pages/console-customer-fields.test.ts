import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { signedInSessions, type ConsoleClient } from '../../helpers/console-client.js';
import { buildForSuite } from '../../helpers/build.js';

const WRITER = { keyId: 'test', environment: 'Customer' as const, access: 'read-write' as const };

/** A group's console page shows the Customer API's fields, and a read-write session edits them as update_customer does. */
describe('operator console: a group as a customer', () => {
  const server = buildForSuite({ apiKey: false, hierarchyLevels: ['Customer', 'Team', 'User'] });
  let writer: ConsoleClient;
  let reader: ConsoleClient;
  let writerKeyId: string;
  before(async () => {
    ({ writer: writer, reader: reader, writerKeyId } = await signedInSessions(server));
    for (const name of ['sales', 'engineers']) await server.services.groupTags.create(WRITER, name);
    await server.services.customers.getOrCreate(WRITER, {
      providedId: 'acme',
      name: 'Acme',
      emails: ['ops@acme.example'],
      groupTags: ['sales'],
      hierarchyLevelName: 'Customer',
    });
  });

  it("shows the emails, tags, demo flag and level, with the environment's tags and the levels to choose from", async () => {
    const page = await writer.get('/console/groups/acme');
    assert.equal(page.status, 200, page.text.slice(0, 300));
    assert.match(page.text, /<dd id="customer-level">Customer<\/dd>/);
    assert.match(page.text, /<dd id="customer-tags">sales<\/dd>/);
    assert.match(page.text, /<dd id="customer-emails">ops@acme\.example<\/dd>/);
    assert.match(page.text, /<dd id="customer-demo">no<\/dd>/);
    assert.match(page.text, /name="tags\.0" value="sales" checked/);
    assert.match(page.text, /name="tags\.1" value="engineers">/);
    assert.match(page.text, /<option value="Team">Team<\/option>/);
    assert.doesNotMatch(page.text, /<option value=""/, 'no "none" once a level is set: update_customer cannot clear one');
    assert.match(page.text, /<a href="\/console\/group-tags">Group tags<\/a>/, 'in the navigation');
    const readOnly = await reader.get('/console/groups/acme');
    assert.match(readOnly.text, /<dd id="customer-tags">sales<\/dd>/);
    assert.doesNotMatch(readOnly.text, /action="\/console\/groups\/acme\/customer"/, 'no form for a read-only session');
  });

  it('saves what the form holds, audited as the session key, and the API answers it', async () => {
    const saved = await writer.post('/console/groups/acme/customer', {
      _csrf: await writer.csrfToken('/console/groups/acme'),
      emails: 'ops@acme.example\n\n billing@acme.example \n',
      'tags.1': 'engineers',
      demo: '1',
      level: 'Team',
    });
    assert.equal(saved.status, 303, saved.text.slice(0, 300));
    const { group } = await server.services.customers.get(WRITER, 'acme');
    assert.deepEqual(
      [group.emails, group.groupTags, group.isDemoGroup, group.hierarchyLevel],
      [['ops@acme.example', 'billing@acme.example'], ['engineers'], true, 'Team'],
    );
    const records = await server.services.audit.listAuditRecords({ environment: 'Customer', limit: 100 });
    const record = records.find((r) => r.action === 'user_group.updated' && r.keyId === writerKeyId);
    assert.deepEqual(record?.fields, ['emails', 'is_demo_group', 'hierarchy_level', 'group_tags']);
    assert.ok(record?.clientAddress, 'with the request as its origin');
  });

  it('shows a refusal beside the form, as typed, and changes nothing', async () => {
    const refused = await writer.post('/console/groups/acme/customer', {
      _csrf: await writer.csrfToken('/console/groups/acme'),
      emails: 'not an address',
      level: 'Team',
    });
    assert.equal(refused.status, 400);
    assert.match(refused.text, /<p id="customer_error" class="error" role="alert">&quot;emails&quot; entry/);
    assert.match(refused.text, />not an address<\/textarea>/);
    assert.deepEqual((await server.services.customers.get(WRITER, 'acme')).group.emails, ['ops@acme.example', 'billing@acme.example']);
  });

  it('refuses a read-only session and a post without the CSRF token', async () => {
    const readOnly = await reader.post('/console/groups/acme/customer', { _csrf: await reader.csrfToken('/console/groups'), emails: '' });
    assert.equal(readOnly.status, 403);
    const noCsrf = await writer.post('/console/groups/acme/customer', { emails: '' });
    assert.equal(noCsrf.status, 403);
    assert.deepEqual((await server.services.customers.get(WRITER, 'acme')).group.groupTags, ['engineers']);
  });

  it('reads a comma-separated list of emails as well as one per line', async () => {
    const saved = await writer.post('/console/groups/acme/customer', {
      _csrf: await writer.csrfToken('/console/groups/acme'),
      emails: 'ops@acme.example, billing@acme.example,\nlegal@acme.example',
      'tags.1': 'engineers',
      level: 'Team',
    });
    assert.equal(saved.status, 303, saved.text.slice(0, 300));
    assert.deepEqual((await server.services.customers.get(WRITER, 'acme')).group.emails, [
      'ops@acme.example',
      'billing@acme.example',
      'legal@acme.example',
    ]);
  });

  it('answers a level, a tag or a group that is not there with a 4xx page, changing nothing', async () => {
    const before = (await server.services.customers.get(WRITER, 'acme')).group;
    const post = async (path: string, fields: Record<string, string>) =>
      writer.post(path, { _csrf: await writer.csrfToken('/console/groups/acme'), emails: '', ...fields });
    const noLevel = await post('/console/groups/acme/customer', { level: 'Galaxy' });
    assert.equal(noLevel.status, 400);
    assert.match(noLevel.text, /<p id="customer_error" class="error" role="alert">&quot;hierarchy_level_name&quot; &quot;Galaxy&quot;/);
    const noTag = await post('/console/groups/acme/customer', { 'tags.0': 'forged', level: 'Team' });
    assert.equal(noTag.status, 400);
    assert.match(noTag.text, /<p id="customer_error" class="error" role="alert">[^<]*forged/);
    const tooMany = await post('/console/groups/acme/customer', {
      level: 'Team',
      ...Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`tags.${i}`, `t${i}`])),
    });
    assert.equal(tooMany.status, 400);
    const noGroup = await post('/console/groups/nobody/customer', { level: 'Team' });
    assert.equal(noGroup.status, 404);
    assert.match(noGroup.text, /No (customer|user group)[^<]*nobody/);
    assert.deepEqual((await server.services.customers.get(WRITER, 'acme')).group, before);
  });

  it("lists each group's level and first tags in the groups list, and a list of /api/user groups as it was", async () => {
    for (const name of ['ops', 'legal']) await server.services.groupTags.create(WRITER, name);
    await server.services.customers.getOrCreate(WRITER, {
      providedId: 'acme-eu',
      name: 'Acme Europe',
      groupTags: ['sales', 'engineers', 'ops', 'legal'],
      hierarchyLevelName: 'User',
      parentProvidedId: 'acme',
    });
    await server.services.userGroups.getOrCreate(WRITER, { userGroupId: 'plain', name: 'Plain' });
    const list = await reader.get('/console/groups?prefix=acme');
    assert.equal(list.status, 200);
    assert.match(list.text, /<th scope="col">Level<\/th><th scope="col">Tags<\/th>/);
    const row = (id: string) => new RegExp(`<a href="/console/groups/${id}">${id}</a>[\\s\\S]*?</tr>`).exec(list.text)?.[0] ?? '';
    assert.match(row('acme-eu'), /<td>User<\/td>\s*<td class="tags">sales, engineers, ops <span class="help">\+1 more<\/span><\/td>/);
    assert.match(row('acme'), /<td>Team<\/td>\s*<td class="tags">engineers<\/td>/);
    const plain = await reader.get('/console/groups?prefix=plain');
    assert.match(plain.text, /<a href="\/console\/groups\/plain">plain<\/a>/);
    assert.doesNotMatch(plain.text, /<th scope="col">Level<\/th>/, 'no empty columns for groups the Customer API never touched');
    const plainPage = await writer.get('/console/groups/plain');
    assert.match(plainPage.text, /<dd id="customer-level">none<\/dd>/);
    assert.match(plainPage.text, /<option value="" selected>none \(keep\)<\/option>/);
  });
});
