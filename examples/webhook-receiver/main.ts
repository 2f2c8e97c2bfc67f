import type { AddressInfo } from 'node:net';
import { createReceiver } from './receiver.js';

// UGS_WEBHOOK_SECRET is the whsec_… secret POST /api/webhooks answered once.
const secret = process.env.UGS_WEBHOOK_SECRET;
if (!secret) throw new Error('Set UGS_WEBHOOK_SECRET to the secret POST /api/webhooks answered.');
const receiver = createReceiver(secret, (event) => console.log(event.id, event.type, JSON.stringify(event.data)));
receiver.listen(Number(process.env.PORT ?? 9000), '127.0.0.1', () => {
  console.log(`webhook receiver on http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`);
});
