import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { signedInSessions, type ConsoleClient } from '../../helpers/console-client.js';
import { buildForSuite } from '../../helpers/build.js';

const WRITER = { keyId: 'test', environment: 'Customer' as const, access: 'read-write' as const };

/** The console's group tags page: list, create, rename and delete through the service the API uses. */
describe('operator console: group tags', () => {
  const server = buildForSuite({ apiKey: false });
  let writer: ConsoleClient;
  let reader: ConsoleClient;
  before(async () => {
    ({ writer: writer, reader: reader } = await signedInSessions(server));
  });
  const csrf = () => writer.csrfToken('/console/group-tags');

  it('creates a tag, refusing a taken name beside the list', async () => {
    const empty = await writer.get('/console/group-tags');
    assert.match(empty.text, /<p id="no-tags">No tags yet\.<\/p>/);
    assert.equal((await writer.post('/console/group-tags/create', { _csrf: await csrf(), name: 'sales' })).status, 303);
    const listed = await writer.get('/console/group-tags?done=created');
    assert.match(listed.text, /<td>sales<\/td>/);
    assert.match(listed.text, /Tag created\./);
    const taken = await writer.post('/console/group-tags/create', { _csrf: await csrf(), name: 'sales' });
    assert.equal(taken.status, 409);
    assert.match(taken.text, /<p id="tag_error" class="error" role="alert">A group tag named &quot;sales&quot; already exists/);
    const blank = await writer.post('/console/group-tags/create', { _csrf: await csrf(), name: ' ' });
    assert.equal(blank.status, 400);
  });

  it('renames a tag on every group carrying it, and deletes it only when its name is typed', async () => {
    await server.services.customers.getOrCreate(WRITER, { providedId: 'acme', name: 'Acme', groupTags: ['sales'] });
    await server.services.customers.getOrCreate(WRITER, { providedId: 'globex', name: 'Globex', groupTags: ['sales'] });
    await server.services.customers.getOrCreate(WRITER, { providedId: 'initech', name: 'Initech' });
    assert.match((await writer.get('/console/group-tags')).text, /<td>sales<\/td>\s*<td>2<\/td>/, 'how many groups carry it');
    assert.equal(
      (await writer.post('/console/group-tags/rename', { _csrf: await csrf(), name: 'sales', new_name: 'revenue' })).status,
      303,
    );
    assert.deepEqual((await server.services.customers.get(WRITER, 'acme')).group.groupTags, ['revenue']);
    assert.match((await writer.get('/console/group-tags')).text, /<td>revenue<\/td>\s*<td>2<\/td>/, 'its carriers follow it');
    const unconfirmed = await writer.post('/console/group-tags/delete', { _csrf: await csrf(), name: 'revenue', confirm: 'rev' });
    assert.equal(unconfirmed.status, 400);
    assert.deepEqual((await server.services.customers.get(WRITER, 'acme')).group.groupTags, ['revenue']);
    assert.equal(
      (await writer.post('/console/group-tags/delete', { _csrf: await csrf(), name: 'revenue', confirm: 'revenue' })).status,
      303,
    );
    assert.deepEqual((await server.services.customers.get(WRITER, 'acme')).group.groupTags, []);
    const gone = await writer.post('/console/group-tags/delete', { _csrf: await csrf(), name: 'revenue', confirm: 'revenue' });
    assert.equal(gone.status, 404);
  });

  it('shows a read-only session the tags without forms, and refuses its posts', async () => {
    await server.services.groupTags.create(WRITER, 'ops');
    const page = await reader.get('/console/group-tags');
    assert.match(page.text, /<td>ops<\/td>\s*<td>0<\/td>/, 'a tag no group carries');
    assert.doesNotMatch(page.text, /action="\/console\/group-tags\//);
    const refused = await reader.post('/console/group-tags/create', { _csrf: await reader.csrfToken('/console/groups'), name: 'x' });
    assert.equal(refused.status, 403);
  });
});
