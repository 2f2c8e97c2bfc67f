import { sql, type Kysely, type Migration } from 'kysely';

export const viewers: Migration = {
  async up(db: Kysely<unknown>) {
    // Issue 29: a viewer's sessions end in every group, so a feed entry may name a viewer and no group.
    // SQLite cannot drop a NOT NULL in place: the table is rebuilt, its AUTOINCREMENT sequence carried
    // over, so that no position a verifier's cursor has passed is handed out again.
    await sql`
      CREATE TABLE embed_revocations_next (
        sequence      INTEGER PRIMARY KEY AUTOINCREMENT,
        environment   TEXT    NOT NULL,
        session_id    TEXT,
        provided_id   TEXT,
        token_version TEXT,
        viewer_id     TEXT,
        reason        TEXT    NOT NULL,
        revoked_at    TEXT    NOT NULL,
        expires_at    TEXT    NOT NULL
      ) STRICT`.execute(db);
    await sql`INSERT INTO embed_revocations_next (sequence, environment, session_id, provided_id, token_version, reason, revoked_at, expires_at)
              SELECT sequence, environment, session_id, provided_id, token_version, reason, revoked_at, expires_at FROM embed_revocations`.execute(
      db,
    );
    await sql`UPDATE sqlite_sequence SET seq = max(seq, (SELECT coalesce(max(seq), 0) FROM sqlite_sequence WHERE name = 'embed_revocations'))
              WHERE name = 'embed_revocations_next'`.execute(db);
    await sql`INSERT INTO sqlite_sequence (name, seq)
              SELECT 'embed_revocations_next', seq FROM sqlite_sequence WHERE name = 'embed_revocations'
              AND NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'embed_revocations_next')`.execute(db);
    await sql`DROP TABLE embed_revocations`.execute(db);
    await sql`ALTER TABLE embed_revocations_next RENAME TO embed_revocations`.execute(db);
    await sql`CREATE INDEX embed_revocations_environment ON embed_revocations (environment, sequence)`.execute(db);
    await sql`CREATE INDEX embed_revocations_expires_at ON embed_revocations (expires_at)`.execute(db);
    await sql`CREATE INDEX embed_revocations_viewer ON embed_revocations (environment, viewer_id) WHERE viewer_id IS NOT NULL`.execute(db);

    await sql`ALTER TABLE audit_log ADD COLUMN viewer_id TEXT`.execute(db);

    // The viewers seen in a group's sessions, summed from the counted batches (as session_activity is).
    await sql`
      CREATE TABLE viewer_activity (
        environment   TEXT    NOT NULL CHECK (environment IN ('Customer', 'Testing')),
        team_id       INTEGER NOT NULL,
        viewer_id     TEXT    NOT NULL,
        first_seen_at TEXT    NOT NULL,
        last_seen_at  TEXT    NOT NULL,
        sessions      INTEGER NOT NULL,
        PRIMARY KEY (environment, team_id, viewer_id)
      ) STRICT, WITHOUT ROWID`.execute(db);
    await sql`CREATE INDEX viewer_activity_recent ON viewer_activity (environment, team_id, last_seen_at DESC, viewer_id)`.execute(db);
  },
};
