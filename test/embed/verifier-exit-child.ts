import { createHook } from 'node:async_hooks';
import { createEmbedVerifier } from 'user-group-service/embed';

/**
 * Spawned by embed-verifier-revocations.test.ts: verifies one token with the
 * revocation feed polled every 20 ms, lets a few polls run, closes the verifier
 * (unless EMBED_CLOSE is 0), counts the timers created in the next 300 ms
 * (the poll's are unref'd, so only creation shows them) and returns. The
 * process must then exit on its own: nothing the verifier started may keep
 * it alive.
 */
const verifier = createEmbedVerifier({
  serviceUrl: process.env.EMBED_SERVICE_URL!,
  apiKey: process.env.EMBED_API_KEY,
  revocationPollMs: 20,
});
const claims = await verifier.verify(process.env.EMBED_TOKEN!);
const firstSync = verifier.status().revocations.syncedAt?.getTime() ?? 0;
while ((verifier.status().revocations.syncedAt?.getTime() ?? 0) <= firstSync + 60) await new Promise((resolve) => setTimeout(resolve, 10));
if (process.env.EMBED_CLOSE !== '0') await verifier.close();
let timers = 0;
const hook = createHook({ init: (_id, type) => void (type === 'Timeout' && timers++) }).enable();
// Waiting on setImmediate, which creates no Timeout of its own.
for (const until = Date.now() + 300; Date.now() < until;) await new Promise((resolve) => setImmediate(resolve));
hook.disable();
console.log(JSON.stringify({ sub: claims.sub, timers }));
