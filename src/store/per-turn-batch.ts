import DataLoader from 'dataloader';

/** Most keys one batch carries; more start another batch, so no statement grows without bound. */
const MAX_BATCH_KEYS = 500;

/** One call; the calls made in the same turn of the event loop share one `runMany`. */
export type PerTurnBatch<K, V> = (key: K) => Promise<V>;

/**
 * Calls of one kind (a lookup, a PostgreSQL insert) that arrive in the same
 * turn of the event loop are answered by one `runMany` (one SQLite read
 * transaction, one PostgreSQL statement), which returns one value, or an
 * Error, per key, in order.
 *
 * The batch goes out with setImmediate, in the loop's check phase: by then the
 * poll phase has read every request that was ready, so one batch serves all of
 * them, and the rest of their handling (decryption, serialization, the socket
 * writes) runs for the whole batch back to back instead of interleaved with
 * reading. On the hit path that more than doubled throughput and halved CPU per
 * request (docs/performance.md). Nothing is cached here: every call reaches the store (which may answer
 * from a cache of its own, as SQLite's lookups by id do: UnchangedReadCache).
 */
export function perTurnBatch<K, V>(runMany: (keys: readonly K[]) => Promise<(V | Error)[]>): PerTurnBatch<K, V> {
  const loader = new DataLoader<K, V>(runMany, {
    cache: false,
    maxBatchSize: MAX_BATCH_KEYS,
    batchScheduleFn: (dispatch) => setImmediate(dispatch),
  });
  return (key) => loader.load(key);
}
