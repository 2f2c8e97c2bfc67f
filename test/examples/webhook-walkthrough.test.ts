import assert from 'node:assert/strict';
import { test } from 'node:test';
import { freePort } from '../helpers/embedded-postgres.js';
import { openShell, shBlocks } from '../helpers/pasted-shell.js';
import { makeTempDir } from '../helpers/temp-dir.js';

/**
 * docs/webhooks.md's "Try it", pasted block by block into one shell as its
 * reader would: the service, the registration, the receiver started with the
 * secret the registration answered, two changes, the deliveries. Every
 * delivery must succeed at its first attempt.
 */

interface Delivery {
  event_type: string;
  status: string;
  attempts: number;
  attempt_log: { status_code: number | null }[];
}

test('docs/webhooks.md "Try it" works as written, in order: the first delivery succeeds', { timeout: 240_000 }, async (t) => {
  const temp = makeTempDir('ugs-webhook-walkthrough');
  const [port, receiverPort] = [await freePort(), await freePort()];
  // Only what another machine would differ in: free ports (the blocks read PORT and RECEIVER_PORT) and a store in a temp dir.
  const terminal = openShell('bash', {
    ...process.env,
    PORT: String(port),
    RECEIVER_PORT: String(receiverPort),
    UGS_DATA_DIR: `${temp.path}/data`,
    LOG_LEVEL: 'warn',
  });
  t.after(async () => {
    await terminal.close();
    temp.remove();
  });
  const context = () => `\nstdout:\n${terminal.stdout()}\nstderr:\n${terminal.stderr()}`;

  const [service, register, receiver, changes, deliveries, ...rest] = shBlocks(
    'docs/webhooks.md',
    '### Try it: a first delivery on this machine',
  );
  assert.equal(rest.length, 0, 'five blocks');
  assert.equal(await terminal.paste(service!, 110_000), 0, context());
  assert.equal(await terminal.paste(register!), 0, context());
  assert.match(terminal.stdout(), new RegExp(`"url":"http://127\\.0\\.0\\.1:${receiverPort}/"`), context());
  assert.equal(await terminal.paste(receiver!, 110_000), 0, context());
  await terminal.waitForOutput(/webhook receiver on http:\/\/127\.0\.0\.1:\d+\//);
  assert.equal(await terminal.paste(changes!), 0, context());
  await terminal.waitForOutput(/^evt_\w+ user_group\.created \{.*"user_group_id":"initech"/m);
  await terminal.waitForOutput(/^evt_\w+ user_group\.deleted \{.*"user_group_id":"initech"/m);

  const before = terminal.stdout().length;
  assert.equal(await terminal.paste(deliveries!), 0, context());
  const answer = terminal
    .stdout()
    .slice(before)
    .split('\n')
    .find((line) => line.startsWith('{"success":1,"deliveries"'));
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
