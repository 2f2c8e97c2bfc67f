import { BIGINT, ddl, STRICT_WITHOUT_ROWID, TIMESTAMPTZ, type Migration } from './migration.js';

export const viewers: Migration = [
  // Issue 29: a viewer's sessions end in every group, so a feed entry may name a viewer and no group.
  {
    // SQLite cannot drop a NOT NULL in place: the table is rebuilt, its AUTOINCREMENT sequence carried
    // over, so that no position a verifier's cursor has passed is handed out again.
    sqlite: [
      `
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
      ) STRICT`,
      `INSERT INTO embed_revocations_next (sequence, environment, session_id, provided_id, token_version, reason, revoked_at, expires_at)
              SELECT sequence, environment, session_id, provided_id, token_version, reason, revoked_at, expires_at FROM embed_revocations`,
      `UPDATE sqlite_sequence SET seq = max(seq, (SELECT coalesce(max(seq), 0) FROM sqlite_sequence WHERE name = 'embed_revocations'))
              WHERE name = 'embed_revocations_next'`,
      `INSERT INTO sqlite_sequence (name, seq)
              SELECT 'embed_revocations_next', seq FROM sqlite_sequence WHERE name = 'embed_revocations'
              AND NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'embed_revocations_next')`,
      'DROP TABLE embed_revocations',
      'ALTER TABLE embed_revocations_next RENAME TO embed_revocations',
      'CREATE INDEX embed_revocations_environment ON embed_revocations (environment, sequence)',
      'CREATE INDEX embed_revocations_expires_at ON embed_revocations (expires_at)',
    ],
    postgres: [
      'ALTER TABLE embed_revocations ALTER COLUMN provided_id DROP NOT NULL',
      'ALTER TABLE embed_revocations ADD COLUMN viewer_id TEXT',
    ],
  },
  'CREATE INDEX embed_revocations_viewer ON embed_revocations (environment, viewer_id) WHERE viewer_id IS NOT NULL',
  'ALTER TABLE audit_log ADD COLUMN viewer_id TEXT',
  // The viewers seen in a group's sessions, summed from the counted batches (as session_activity is).
  ddl`
      CREATE TABLE viewer_activity (
        environment   TEXT    NOT NULL CHECK (environment IN ('Customer', 'Testing')),
        team_id       ${BIGINT} NOT NULL,
        viewer_id     TEXT    NOT NULL,
        first_seen_at ${TIMESTAMPTZ}    NOT NULL,
        last_seen_at  ${TIMESTAMPTZ}    NOT NULL,
        sessions      ${BIGINT} NOT NULL,
        PRIMARY KEY (environment, team_id, viewer_id)
      ) ${STRICT_WITHOUT_ROWID}`,
  'CREATE INDEX viewer_activity_recent ON viewer_activity (environment, team_id, last_seen_at DESC, viewer_id)',
];
