import { startExample } from '../start-example.js';

/** `npm run example:webhook-receiver`: webhook-receiver-example.ts, once the Node version is known to run it. */
await startExample('example:webhook-receiver', () => import('./webhook-receiver-example.js'));
