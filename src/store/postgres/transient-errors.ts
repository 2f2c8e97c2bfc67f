import { ServiceError } from '../../kernel/errors.js';

/**
 * Which PostgreSQL failures are worth another try. The server rolled these
 * back, so any operation may be retried:
 */
const ROLLED_BACK = new Set(['40001' /* serialization_failure */, '40P01' /* deadlock_detected */]);

/** The connection broke: the statement may or may not have committed. */
const CONNECTION_LOST = new Set([
  '08000',
  '08001',
  '08003',
  '08004',
  '08006', // connection_exception family
  '57P01',
  '57P02',
  '57P03', // admin/crash shutdown, cannot connect now
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

function codeOf(error: unknown): string | undefined {
  return (error as { code?: string } | null)?.code;
}

export function isRolledBack(error: unknown): boolean {
  return ROLLED_BACK.has(codeOf(error) ?? '');
}

export function isConnectionLost(error: unknown): boolean {
  const code = codeOf(error);
  if (code !== undefined && CONNECTION_LOST.has(code)) return true;
  const message = (error as Error | null)?.message ?? '';
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(
    message,
  );
}

/** Failures that mean "the database cannot serve now", not "this request is wrong". */
const OVERLOADED = new Set(['53300' /* too_many_connections */, '57014' /* statement timeout / canceled */]);

/** The database answers but cannot write: its disk is full, it is read-only (a standby, or made so), its disk fails. */
const CANNOT_WRITE = new Set(['53100' /* disk_full */, '25006' /* read_only_sql_transaction */, '58030' /* io_error */]);

/**
 * The domain's `unavailable` error for a failure that is the database's state
 * (down, unreachable, overloaded, unable to write), so callers get 503 and a
 * retry hint, not 500; any other error is returned as it is.
 */
export function asUnavailable(error: unknown): unknown {
  const code = codeOf(error) ?? '';
  if (CANNOT_WRITE.has(code)) {
    return new ServiceError('unavailable', `The database cannot write now (SQLSTATE ${code}); retry later.`, { retryAfterSeconds: 5 });
  }
  if (!isConnectionLost(error) && !OVERLOADED.has(code)) return error;
  return new ServiceError('unavailable', 'The database is not answering; retry shortly.', { retryAfterSeconds: 1 });
}

export interface RetryPolicy {
  attempts: number;
  baseDelayMs: number;
}

/**
 * Runs `operation`, retrying transient failures with jittered backoff.
 * `idempotent` operations (same outcome when applied twice) are retried on a
 * lost connection too; others only when the server is known to have rolled back.
 */
export async function withRetry<T>(operation: () => Promise<T>, idempotent: boolean, policy: RetryPolicy): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await operation();
    } catch (error) {
      const retryable = isRolledBack(error) || (idempotent && isConnectionLost(error));
      if (!retryable || attempt >= policy.attempts) throw error;
      const delay = policy.baseDelayMs * 2 ** (attempt - 1) * (0.5 + Math.random());
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}
