import { ddl, IDENTITY, JSONB, STRICT, TIMESTAMPTZ, type Migration } from './migration.js';

export const events: Migration = [
  // The outbox: each row written in the transaction of the change it reports, beside its audit record
  // (sqlite/sqlite-consequences.ts, postgres/postgres-consequences.ts).
  // `data` holds names only (see src/events/event-payload.ts), never a token, key or property value.
  ddl`
      CREATE TABLE events (
        sequence    ${IDENTITY},
        id          TEXT NOT NULL UNIQUE,
        environment TEXT NOT NULL,
        type        TEXT NOT NULL,
        at          ${TIMESTAMPTZ} NOT NULL,
        data        ${JSONB} NOT NULL
      ) ${STRICT}`,
  'CREATE INDEX events_environment ON events (environment, sequence)',
  'CREATE INDEX events_at ON events (at)',
];
