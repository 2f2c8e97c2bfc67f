import v8 from 'node:v8';
import { limitHeapGrowth } from '../../src/cli/heap-growth.js';

/**
 * Run by heap-growth.slow.test.ts in a child node: argv[2] is `runtime` to call
 * limitHeapGrowth() as `ugs serve` does, anything else to leave it to the
 * command line. Prints the largest old-generation size seen, in bytes.
 *
 * It keeps 16 MB live and replaces 16 MB of arrays round-robin: each lives
 * long enough to be promoted, then dies in the old generation, so the old
 * generation grows until V8's limit (what the last full collection kept times
 * the growing factor) and is collected there. gc() first sets that limit from
 * a known live set instead of V8's large initial one.
 */
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');
if (process.argv[2] === 'runtime') limitHeapGrowth();

const live = Array.from({ length: 2000 }, (_, i) => new Array<number>(1000).fill(i + 0.5));
gc();
const churn = new Array<number[]>(20_000);
let peak = 0;
for (let i = 0; i < 300_000; i++) {
  churn[i % churn.length] = new Array<number>(100).fill(i + 0.5);
  if (i % 500 === 0) peak = Math.max(peak, v8.getHeapSpaceStatistics().find((space) => space.space_name === 'old_space')?.space_size ?? 0);
}
console.log(JSON.stringify({ oldSpacePeak: peak, live: live.length }));
