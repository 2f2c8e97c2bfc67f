import { sql, type Kysely, type Migration } from 'kysely';

export const embedSessions: Migration = {
  async up(db: Kysely<unknown>) {
    // SQLite cannot alter a CHECK: the api_keys table is rebuilt to admit the `embed` access level.
    await sql`
      CREATE TABLE api_keys_next (
        id           TEXT PRIMARY KEY,
        name         TEXT,
        environment  TEXT NOT NULL CHECK (environment IN ('Customer', 'Testing')),
        access       TEXT NOT NULL CHECK (access IN ('read-write', 'read-only', 'embed')),
        key_hash     BLOB NOT NULL UNIQUE,
        created_at   TEXT NOT NULL,
        last_used_at TEXT,
        revoked_at   TEXT
      ) STRICT`.execute(db);
    await sql`INSERT INTO api_keys_next SELECT id, name, environment, access, key_hash, created_at, last_used_at, revoked_at FROM api_keys`.execute(
      db,
    );
    await sql`DROP TABLE api_keys`.execute(db);
    await sql`ALTER TABLE api_keys_next RENAME TO api_keys`.execute(db);

    await sql`
      CREATE TABLE signing_keys (
        kid                    TEXT    PRIMARY KEY,
        generation             INTEGER NOT NULL UNIQUE,
        algorithm              TEXT    NOT NULL CHECK (algorithm IN ('EdDSA', 'ES256', 'RS256')),
        public_jwk             TEXT    NOT NULL,
        private_key_ciphertext BLOB    NOT NULL,
        created_at             TEXT    NOT NULL,
        activates_at           TEXT    NOT NULL
      ) STRICT`.execute(db);
    await sql`
      CREATE TABLE embed_sessions (
        session_id    TEXT    PRIMARY KEY,
        environment   TEXT    NOT NULL,
        team_id       INTEGER NOT NULL,
        provided_id   TEXT    NOT NULL,
        token_version TEXT    NOT NULL,
        created_at    TEXT    NOT NULL,
        expires_at    TEXT    NOT NULL,
        revoked_at    TEXT
      ) STRICT`.execute(db);
    await sql`CREATE INDEX embed_sessions_expires_at ON embed_sessions (expires_at)`.execute(db);
    await sql`
      CREATE TABLE embed_revocations (
        sequence      INTEGER PRIMARY KEY AUTOINCREMENT,
        environment   TEXT    NOT NULL,
        session_id    TEXT,
        provided_id   TEXT    NOT NULL,
        token_version TEXT,
        reason        TEXT    NOT NULL,
        revoked_at    TEXT    NOT NULL,
        expires_at    TEXT    NOT NULL
      ) STRICT`.execute(db);
    await sql`CREATE INDEX embed_revocations_environment ON embed_revocations (environment, sequence)`.execute(db);
    await sql`CREATE INDEX embed_revocations_expires_at ON embed_revocations (expires_at)`.execute(db);
  },
};
