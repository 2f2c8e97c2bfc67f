/**
 * Joined into every statement that appends to the revocation feed or to the
 * event outbox (postgres-consequences.ts; read by sql/sql-events.ts). The entry
 * is numbered only once this lock is held, and it is held until commit, so
 * entries become visible in sequence order and a reader's cursor never passes
 * one still to come (a sequence alone is drawn in insert order, not commit
 * order). It serializes the changes (each from its statement to its commit;
 * batched writes take it once per batch), never reads or mints; 7365011 is an
 * arbitrary id kept for this use.
 */
export const FEED_ORDER_LOCK = '(SELECT pg_advisory_xact_lock(7365011)) AS feed_order';
