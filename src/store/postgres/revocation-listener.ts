import pg from 'pg';
import type { KeyRevocationSignal } from '../../api-keys/key-revocation-signal.js';
import { REVOCATION_CHANNEL } from './postgres-statements.js';

export interface RevocationListenerOptions {
  connectionString: string;
  connectTimeoutMs: number;
  /** First wait before reconnecting; doubles on each failure up to `maxRetryDelayMs`. */
  retryDelayMs?: number;
  maxRetryDelayMs?: number;
}

/**
 * PostgreSQL's KeyRevocationSignal: one connection per process that LISTENs
 * for revocations, outside the pool. PostgreSQL delivers a NOTIFY when its
 * transaction commits, to every listening session, so the epoch moves about
 * one network hop after the commit. While the connection is not listening
 * (before it is up, after it breaks, while it reconnects with backoff) the
 * epoch is undefined and every request asks the database; each new session
 * starts a new epoch, since notifications sent meanwhile were lost.
 *
 * It connects on the first `epoch()`, so commands that never check a key
 * (the CLI) open no extra connection.
 */
export class RevocationListener implements KeyRevocationSignal {
  private client: pg.Client | undefined;
  private listening = false;
  private generation = 0;
  private started = false;
  private closed = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private retryDelayMs: number;

  constructor(private readonly options: RevocationListenerOptions) {
    this.retryDelayMs = options.retryDelayMs ?? 100;
  }

  epoch(): number | undefined {
    if (!this.started) {
      this.started = true;
      this.connect();
    }
    return this.listening ? this.generation : undefined;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    const client = this.client;
    this.forget();
    await client?.end().catch(() => {});
  }

  private connect(): void {
    if (this.closed) return;
    const client = new pg.Client({
      connectionString: this.options.connectionString,
      connectionTimeoutMillis: this.options.connectTimeoutMs,
      // A peer that vanishes without a reset is noticed eventually; until then the key cache's TTL bounds the staleness.
      keepAlive: true,
      application_name: 'user-group-service key revocations',
    });
    this.client = client;
    client.on('notification', () => {
      if (this.client === client) this.generation += 1;
    });
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    client
      .connect()
      .then(() => client.query(`LISTEN ${REVOCATION_CHANNEL}`))
      .then(
        () => {
          if (this.client !== client) return;
          this.generation += 1;
          this.listening = true;
          this.retryDelayMs = this.options.retryDelayMs ?? 100;
        },
        () => this.lost(client),
      );
  }

  /** The session is gone (or never came up): stop trusting the epoch and try again later. */
  private lost(client: pg.Client): void {
    if (this.client !== client) return;
    this.forget();
    client.end().catch(() => {});
    if (this.closed) return;
    this.retryTimer = setTimeout(() => this.connect(), this.retryDelayMs);
    this.retryTimer.unref();
    this.retryDelayMs = Math.min(this.retryDelayMs * 2, this.options.maxRetryDelayMs ?? 5000);
  }

  private forget(): void {
    this.listening = false;
    this.client = undefined;
  }
}
