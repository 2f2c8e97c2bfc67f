import v8 from 'node:v8';

/**
 * How far V8 lets the old generation grow past what the last full collection
 * kept before it collects again: 1.5×. By default V8 chooses up to 4× from
 * how fast the program allocates, and a serving process, which allocates fast
 * and keeps little (about 27 MB live), grew its heap to 100 MB of garbage and
 * peaked at 200 MB RSS; at 1.5× it peaks near 145 MB with the same throughput
 * (docs/performance.md). Set from code because NODE_OPTIONS refuses the flag,
 * so it holds however `ugs serve` is started; V8 reads it at every collection.
 * Node calls flags set after start unpredictable: test/cli/heap-growth.slow.test.ts
 * shows, on each supported Node line, that this caps the old generation as
 * the flag given at launch does.
 */
const HEAP_GROWING_PERCENT = 50;

export function limitHeapGrowth(): void {
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
