import { sql, type Kysely, type Migration } from 'kysely';

export const webhooks: Migration = {
  async up(db: Kysely<unknown>) {
    // Webhook events name their webhook: the audit record holds it so the event (written beside it) can.
    await sql`ALTER TABLE audit_log ADD COLUMN webhook_id TEXT`.execute(db);
    // Secrets only sealed with the server secret (webhook-secret:<id>); `events` NULL = every type.
    await sql`
      CREATE TABLE webhooks (
        id                          TEXT    PRIMARY KEY,
        environment                 TEXT    NOT NULL,
        url                         TEXT    NOT NULL,
        events                      TEXT,
        description                 TEXT,
        secret_ciphertext           BLOB    NOT NULL,
        previous_secret_ciphertext  BLOB,
        previous_secret_expires_at  TEXT,
        created_at                  TEXT    NOT NULL,
        disabled_at                 TEXT,
        failing_since               TEXT,
        after_sequence              INTEGER NOT NULL
      ) STRICT`.execute(db);
    await sql`CREATE INDEX webhooks_environment ON webhooks (environment, created_at)`.execute(db);
    // `payload` is the exact bytes every attempt sends: event retention cannot lose a pending delivery.
    await sql`
      CREATE TABLE webhook_deliveries (
        id               INTEGER PRIMARY KEY AUTOINCREMENT,
        webhook_id       TEXT    NOT NULL,
        event_id         TEXT    NOT NULL,
        event_type       TEXT    NOT NULL,
        environment      TEXT    NOT NULL,
        payload          TEXT    NOT NULL,
        status           TEXT    NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
        attempts         INTEGER NOT NULL DEFAULT 0,
        next_attempt_at  TEXT,
        lease_owner      TEXT,
        lease_expires_at TEXT,
        created_at       TEXT    NOT NULL,
        redelivery       INTEGER NOT NULL DEFAULT 0
      ) STRICT`.execute(db);
    // The dispatcher never writes two deliveries of one event to one webhook; a redelivery is a deliberate second.
    await sql`CREATE UNIQUE INDEX webhook_deliveries_event ON webhook_deliveries (webhook_id, event_id) WHERE redelivery = 0`.execute(db);
    await sql`CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'`.execute(db);
    await sql`CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries (webhook_id, id)`.execute(db);
    await sql`
      CREATE TABLE webhook_delivery_attempts (
        delivery_id      INTEGER NOT NULL,
        attempt          INTEGER NOT NULL,
        at               TEXT    NOT NULL,
        status_code      INTEGER,
        duration_ms      INTEGER NOT NULL,
        error            TEXT,
        response_excerpt TEXT,
        PRIMARY KEY (delivery_id, attempt)
      ) STRICT`.execute(db);
    await sql`CREATE INDEX webhook_delivery_attempts_at ON webhook_delivery_attempts (at)`.execute(db);
  },
};
