import assert from 'node:assert/strict';
import { test } from 'node:test';
import { freePort } from '../helpers/embedded-postgres.js';
import { openShell, shBlocks } from '../helpers/pasted-shell.js';
import { makeTempDir } from '../helpers/temp-dir.js';

/**
 * docs/webhooks.md's "Try it", pasted as its reader would: block by block
 * into one shell that a failing line does not end (no `set -e` of the test's
 * own), with only what another machine would differ in set (free ports, read
 * as PORT and RECEIVER_PORT; the store and the service's log in a temp dir, read
 * as UGS_DATA_DIR and TMPDIR). The changes and the deliveries are pasted in one
 * go: the last block must wait for what it reads.
 */

interface Delivery {
  event_type: string;
  status: string;
  attempts: number;
  attempt_log: { status_code: number | null }[];
}

const blocks = () => shBlocks('docs/webhooks.md', '### Try it: a first delivery on this machine');

function openTerminal(temp: string, port: number, receiverPort: number | string) {
  const env = { ...process.env, PORT: String(port), RECEIVER_PORT: String(receiverPort), UGS_DATA_DIR: `${temp}/data`, TMPDIR: temp };
  return openShell('bash', env, { strict: false });
}

test('docs/webhooks.md "Try it" works as written, in order: the first delivery succeeds', { timeout: 240_000 }, async (t) => {
  const temp = makeTempDir('ugs-webhook-walkthrough');
  const [port, receiverPort] = [await freePort(), await freePort()];
  const terminal = openTerminal(temp.path, port, receiverPort);
  t.after(async () => {
    await terminal.close();
    temp.remove();
  });
  const context = () => `\nstdout:\n${terminal.stdout()}\nstderr:\n${terminal.stderr()}`;

  const [service, register, receiver, changes, deliveries, ...rest] = blocks();
  assert.equal(rest.length, 0, 'five blocks');
  assert.equal(await terminal.paste(service!, 110_000), 0, context());
  assert.equal(await terminal.paste(register!), 0, context());
  assert.match(
    terminal.stdout(),
    new RegExp(`^\\{"success":1,"webhook":\\{.*"url":"http://127\\.0\\.0\\.1:${receiverPort}/"`, 'm'),
    context(),
  );
  assert.equal(await terminal.paste(receiver!, 110_000), 0, context());
  await terminal.waitForOutput(/webhook receiver on http:\/\/127\.0\.0\.1:\d+\//);

  // Pasted in one go, as a reader pastes the rest of the page: no pause between the changes and the list.
  const before = terminal.stdout().length;
  assert.equal(await terminal.paste(`${changes!}${deliveries!}`, 60_000), 0, context());
  const printed = terminal.stdout().slice(before).split('\n').filter(Boolean);
  // Every line is the receiver's or the answer: none glued to a log line (the service logs to its file).
  for (const line of printed)
    assert.match(line, /^(evt_\w+ user_group\.(created|deleted) \{.*\}|\{"success":1,"deliveries".*\})$/, context());
  const answer = printed.find((line) => line.startsWith('{"success":1,"deliveries"'));
  assert.ok(answer, context());
  const listed = (JSON.parse(answer) as { deliveries: Delivery[] }).deliveries;
  assert.deepEqual(
    listed.map((d) => d.event_type).sort(),
    ['user_group.created', 'user_group.deleted'],
    'the two changes, and no webhook.created sent before the receiver had its secret',
  );
  for (const delivery of listed) {
    assert.equal(delivery.status, 'succeeded', JSON.stringify(delivery));
    assert.deepEqual(
      delivery.attempt_log.map((a) => a.status_code),
      [204],
      `${delivery.event_type}: succeeded at the first attempt`,
    );
  }
  assert.equal(terminal.unexpectedStderr(), '', 'the blocks print nothing on stderr');
});

test(
  'docs/webhooks.md "Try it": a refused registration prints one line and sets neither the id nor the secret',
  { timeout: 240_000 },
  async (t) => {
    const temp = makeTempDir('ugs-webhook-walkthrough');
    // A port no URL may name: the service refuses the webhook with 400.
    const terminal = openTerminal(temp.path, await freePort(), 70000);
    t.after(async () => {
      await terminal.close();
      temp.remove();
    });
    const context = () => `\nstdout:\n${terminal.stdout()}\nstderr:\n${terminal.stderr()}`;
    const [service, register] = blocks();
    assert.equal(await terminal.paste(service!, 110_000), 0, context());
    await terminal.paste(register!);
    assert.equal(terminal.stdout(), '', context());
    assert.match(
      terminal.unexpectedStderr(),
      /^The webhook was not registered: \{"success":0,"error":\{"code":"invalid_request","message":"(?:[^"\\]|\\.)+","request_id":"[^"]+"\}\}\n$/,
      context(),
    );
    assert.equal(await terminal.paste('echo "[$WEBHOOK_ID][$UGS_WEBHOOK_SECRET]"; kill $SERVER; wait'), 0, context());
    assert.match(terminal.stdout(), /^\[\]\[\]$/m, context());
  },
);
