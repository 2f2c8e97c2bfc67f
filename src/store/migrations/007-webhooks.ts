import { BIGINT, BOOLEAN, BYTEA, ddl, FALSE, IDENTITY, JSONB, STRICT, TIMESTAMPTZ, type Migration } from './migration.js';

export const webhooks: Migration = [
  // Webhook events name their webhook: the audit record holds it so the event written with it can.
  'ALTER TABLE audit_log ADD COLUMN webhook_id TEXT',
  // Secrets only sealed with the server secret (webhook-secret:<id>); `events` NULL = every type.
  ddl`
      CREATE TABLE webhooks (
        id                          TEXT    PRIMARY KEY,
        environment                 TEXT    NOT NULL,
        url                         TEXT    NOT NULL,
        events                      ${JSONB},
        description                 TEXT,
        secret_ciphertext           ${BYTEA}    NOT NULL,
        previous_secret_ciphertext  ${BYTEA},
        previous_secret_expires_at  ${TIMESTAMPTZ},
        created_at                  ${TIMESTAMPTZ}    NOT NULL,
        disabled_at                 ${TIMESTAMPTZ},
        failing_since               ${TIMESTAMPTZ},
        after_sequence              ${BIGINT} NOT NULL
      ) ${STRICT}`,
  'CREATE INDEX webhooks_environment ON webhooks (environment, created_at)',
  // `payload` is the exact bytes every attempt sends: event retention cannot lose a pending delivery.
  ddl`
      CREATE TABLE webhook_deliveries (
        id               ${IDENTITY},
        webhook_id       TEXT    NOT NULL,
        event_id         TEXT    NOT NULL,
        event_type       TEXT    NOT NULL,
        environment      TEXT    NOT NULL,
        payload          TEXT    NOT NULL,
        status           TEXT    NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
        attempts         INTEGER NOT NULL DEFAULT 0,
        next_attempt_at  ${TIMESTAMPTZ},
        lease_owner      TEXT,
        lease_expires_at ${TIMESTAMPTZ},
        created_at       ${TIMESTAMPTZ}    NOT NULL,
        redelivery       ${BOOLEAN} NOT NULL DEFAULT ${FALSE}
      ) ${STRICT}`,
  // The dispatcher never writes two deliveries of one event to one webhook; a redelivery is a deliberate second.
  {
    sqlite: 'CREATE UNIQUE INDEX webhook_deliveries_event ON webhook_deliveries (webhook_id, event_id) WHERE redelivery = 0',
    postgres: 'CREATE UNIQUE INDEX webhook_deliveries_event ON webhook_deliveries (webhook_id, event_id) WHERE NOT redelivery',
  },
  "CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'",
  'CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries (webhook_id, id)',
  ddl`
      CREATE TABLE webhook_delivery_attempts (
        delivery_id      ${BIGINT} NOT NULL,
        attempt          INTEGER NOT NULL,
        at               ${TIMESTAMPTZ}    NOT NULL,
        status_code      INTEGER,
        duration_ms      INTEGER NOT NULL,
        error            TEXT,
        response_excerpt TEXT,
        PRIMARY KEY (delivery_id, attempt)
      ) ${STRICT}`,
  'CREATE INDEX webhook_delivery_attempts_at ON webhook_delivery_attempts (at)',
];
