import { sql, type Kysely, type Migration } from 'kysely';

export const initial: Migration = {
  async up(db: Kysely<unknown>) {
    // AUTOINCREMENT, unlike a plain rowid, never hands out an id twice, even
    // after the newest row is deleted: team_ids are never reused.
    await sql`
      CREATE TABLE user_groups (
        team_id          INTEGER PRIMARY KEY AUTOINCREMENT,
        environment      TEXT    NOT NULL CHECK (environment IN ('Customer', 'Testing')),
        provided_id      TEXT    NOT NULL,
        name             TEXT    NOT NULL,
        mapping          TEXT,
        properties       TEXT,
        token_hash       BLOB    NOT NULL UNIQUE,
        token_ciphertext BLOB    NOT NULL,
        created_at       TEXT    NOT NULL,
        updated_at       TEXT    NOT NULL,
        UNIQUE (environment, provided_id)
      ) STRICT`.execute(db);
    await sql`
      CREATE TABLE api_keys (
        id           TEXT PRIMARY KEY,
        name         TEXT,
        environment  TEXT NOT NULL CHECK (environment IN ('Customer', 'Testing')),
        access       TEXT NOT NULL CHECK (access IN ('read-write', 'read-only')),
        key_hash     BLOB NOT NULL UNIQUE,
        created_at   TEXT NOT NULL,
        last_used_at TEXT,
        revoked_at   TEXT
      ) STRICT`.execute(db);
    await sql`CREATE TABLE settings (name TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT`.execute(db);
  },
};
