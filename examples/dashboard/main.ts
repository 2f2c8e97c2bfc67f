import { startExample } from '../start-example.js';

/** `npm run example:dashboard [-- --postgres]`: dashboard-example.ts, once the Node version is known to run it. */
await startExample('example:dashboard', () => import('./dashboard-example.js'));
