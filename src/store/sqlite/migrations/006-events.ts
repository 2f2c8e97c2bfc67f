import { sql, type Kysely, type Migration } from 'kysely';

export const events: Migration = {
  async up(db: Kysely<unknown>) {
    // The outbox: each row appended with the audit record of the change it reports (sqlite-audit-log.ts).
    // `data` holds names only (see src/events/event-payload.ts), never a token, key or property value.
    await sql`
      CREATE TABLE events (
        sequence    INTEGER PRIMARY KEY AUTOINCREMENT,
        id          TEXT NOT NULL UNIQUE,
        environment TEXT NOT NULL,
        type        TEXT NOT NULL,
        at          TEXT NOT NULL,
        data        TEXT NOT NULL
      ) STRICT`.execute(db);
    await sql`CREATE INDEX events_environment ON events (environment, sequence)`.execute(db);
    await sql`CREATE INDEX events_at ON events (at)`.execute(db);
  },
};
