import type { AddressInfo } from 'node:net';
import { createReceiver } from './receiver.js';

/**
 * `npm run example:webhook-receiver` (through main.ts): prints each verified delivery. Set up
 * as docs/webhooks.md's walkthrough does: register the webhook first (its
 * answer holds the secret), then start this with the secret, then make a change.
 * Its port is RECEIVER_PORT, not PORT, which is the service's.
 */
function refuse(message: string): never {
  console.error(`webhook receiver: ${message}`);
  process.exit(2);
}

const secret = process.env.UGS_WEBHOOK_SECRET ?? '';
if (secret === '') refuse('set UGS_WEBHOOK_SECRET to the whsec_… secret that POST /api/webhooks answered (docs/webhooks.md, "Try it").');
if (!/^whsec_[A-Za-z0-9+/]+={0,2}$/.test(secret))
  refuse('UGS_WEBHOOK_SECRET is not a webhook secret: it is whsec_ and base64, as POST /api/webhooks answered it.');
const port = Number(process.env.RECEIVER_PORT ?? 9000);
if (!Number.isInteger(port) || port < 0 || port > 65_535) refuse('RECEIVER_PORT must be a whole number from 0 to 65535.');

const receiver = createReceiver(secret, (event) => console.log(event.id, event.type, JSON.stringify(event.data)));
receiver.on('error', (error: NodeJS.ErrnoException) => {
  refuse(error.code === 'EADDRINUSE' ? `port ${port} is in use; set RECEIVER_PORT to a free one (and register that port).` : error.message);
});
receiver.listen(port, '127.0.0.1', () => {
  console.log(`webhook receiver on http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`);
});
