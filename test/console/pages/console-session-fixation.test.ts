import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { ConsoleClient } from '../../helpers/console-client.js';
import { buildForSuite } from '../../helpers/build.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** An id of the session cookie's shape that the attacker chose. */
const chosenId = () => `ugsc_${[...randomBytes(49)].map((b) => BASE62[b % 62]).join('')}`;

/**
 * Issue 26: session fixation at the console's sign-in was refused. Whatever
 * ugs_console cookie the browser held before signing in (an id the attacker
 * made up, or the attacker's own live session), sign-in answers a new id the
 * server drew, and the planted one never becomes the victim's session.
 */
describe('operator console: session fixation', () => {
  const server = buildForSuite({ apiKey: false });
  let victimKey: string;
  let attackerKey: string;
  before(async () => {
    victimKey = (await server.services.apiKeys.create({ environment: 'Customer', access: 'read-write' })).key;
    attackerKey = (await server.services.apiKeys.create({ environment: 'Testing', access: 'read-only' })).key;
  });

  /** What a browser holding `cookie` sees of /console/groups: the session's environment and access, or a redirect. */
  const seenWith = async (cookie: string) => {
    const browser = new ConsoleClient(server.url);
    browser.cookie = cookie;
    const page = await browser.get('/console/groups');
    return page.status === 200
      ? /<span class="who">([^<]*)<\/span>/.exec(page.text)?.[1]
      : `${page.status} ${page.headers.get('location')}`;
  };

  it('an id the attacker made up is not adopted: sign-in sets a new one, and the planted one opens nothing', async () => {
    const planted = `ugs_console=${chosenId()}`;
    assert.equal(await seenWith(planted), '303 /console/sign-in?ended=1', 'the made-up id opens nothing before');
    const victim = new ConsoleClient(server.url);
    victim.cookie = planted;
    const signedIn = await victim.signIn(victimKey);
    assert.equal(signedIn.status, 303);
    assert.match(signedIn.headers.get('set-cookie') ?? '', /^ugs_console=ugsc_[0-9A-Za-z]{49};/, 'a new session cookie');
    assert.notEqual(victim.cookie, planted);
    assert.equal(await seenWith(victim.cookie!), 'Customer · read-write');
    assert.equal(await seenWith(planted), '303 /console/sign-in?ended=1', 'the planted id opens nothing after');
  });

  it("the attacker's own live session planted in the victim's browser: the victim's sign-in ends it and the attacker gains nothing", async () => {
    const attacker = new ConsoleClient(server.url);
    assert.equal((await attacker.signIn(attackerKey)).status, 303);
    const planted = attacker.cookie!;
    assert.equal(await seenWith(planted), 'Testing · read-only');
    const victim = new ConsoleClient(server.url);
    victim.cookie = planted;
    assert.equal((await victim.signIn(victimKey)).status, 303);
    assert.notEqual(victim.cookie, planted);
    assert.equal(await seenWith(victim.cookie!), 'Customer · read-write');
    assert.equal(
      await seenWith(planted),
      '303 /console/sign-in?ended=1',
      "the id the attacker knows is not the victim's session, nor its own any more",
    );
  });

  it('an id passed in the URL is ignored: only the cookie names a session', async () => {
    const browser = new ConsoleClient(server.url);
    await browser.signIn(victimKey);
    const id = browser.cookie!.split('=')[1]!;
    const bare = new ConsoleClient(server.url);
    for (const path of [`/console/groups?ugs_console=${id}`, `/console/groups;ugs_console=${id}`, `/console/groups?session=${id}`]) {
      const answer = await bare.get(path);
      assert.equal(answer.status, 303, path);
      assert.match(answer.headers.get('location') ?? '', /^\/console\/sign-in/, path);
    }
  });
});
