import { sql, type Kysely, type Migration } from 'kysely';

export const auditLog: Migration = {
  async up(db: Kysely<unknown>) {
    // No foreign key to user_groups: the record outlives the group it describes.
    await sql`
      CREATE TABLE audit_log (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        at          TEXT    NOT NULL,
        action      TEXT    NOT NULL,
        environment TEXT    NOT NULL,
        team_id     INTEGER,
        provided_id TEXT,
        key_id      TEXT,
        fields      TEXT    NOT NULL
      ) STRICT`.execute(db);
    await sql`CREATE INDEX audit_log_team_id ON audit_log (team_id, id)`.execute(db);
    await sql`CREATE INDEX audit_log_provided_id ON audit_log (provided_id, id)`.execute(db);
    await sql`CREATE INDEX audit_log_at ON audit_log (at, id)`.execute(db);
  },
};
