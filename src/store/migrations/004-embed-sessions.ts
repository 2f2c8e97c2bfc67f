import { BIGINT, BYTEA, ddl, IDENTITY, JSONB, STRICT, TIMESTAMPTZ, type Migration } from './migration.js';

export const embedSessions: Migration = [
  // api_keys admits the `embed` access level. SQLite cannot alter a CHECK: the table is rebuilt.
  {
    sqlite: [
      `
      CREATE TABLE api_keys_next (
        id           TEXT PRIMARY KEY,
        name         TEXT,
        environment  TEXT NOT NULL CHECK (environment IN ('Customer', 'Testing')),
        access       TEXT NOT NULL CHECK (access IN ('read-write', 'read-only', 'embed')),
        key_hash     BLOB NOT NULL UNIQUE,
        created_at   TEXT NOT NULL,
        last_used_at TEXT,
        revoked_at   TEXT
      ) STRICT`,
      'INSERT INTO api_keys_next SELECT id, name, environment, access, key_hash, created_at, last_used_at, revoked_at FROM api_keys',
      'DROP TABLE api_keys',
      'ALTER TABLE api_keys_next RENAME TO api_keys',
    ],
    postgres: [
      'ALTER TABLE api_keys DROP CONSTRAINT api_keys_access_check',
      "ALTER TABLE api_keys ADD CONSTRAINT api_keys_access_check CHECK (access IN ('read-write', 'read-only', 'embed'))",
    ],
  },
  ddl`
      CREATE TABLE signing_keys (
        kid                    TEXT    PRIMARY KEY,
        generation             INTEGER NOT NULL UNIQUE,
        algorithm              TEXT    NOT NULL CHECK (algorithm IN ('EdDSA', 'ES256', 'RS256')),
        public_jwk             ${JSONB}    NOT NULL,
        private_key_ciphertext ${BYTEA}    NOT NULL,
        created_at             ${TIMESTAMPTZ}    NOT NULL,
        activates_at           ${TIMESTAMPTZ}    NOT NULL
      ) ${STRICT}`,
  ddl`
      CREATE TABLE embed_sessions (
        session_id    TEXT    PRIMARY KEY,
        environment   TEXT    NOT NULL,
        team_id       ${BIGINT} NOT NULL,
        provided_id   TEXT    NOT NULL,
        token_version TEXT    NOT NULL,
        created_at    ${TIMESTAMPTZ}    NOT NULL,
        expires_at    ${TIMESTAMPTZ}    NOT NULL,
        revoked_at    ${TIMESTAMPTZ}
      ) ${STRICT}`,
  'CREATE INDEX embed_sessions_expires_at ON embed_sessions (expires_at)',
  ddl`
      CREATE TABLE embed_revocations (
        sequence      ${IDENTITY},
        environment   TEXT    NOT NULL,
        session_id    TEXT,
        provided_id   TEXT    NOT NULL,
        token_version TEXT,
        reason        TEXT    NOT NULL,
        revoked_at    ${TIMESTAMPTZ}    NOT NULL,
        expires_at    ${TIMESTAMPTZ}    NOT NULL
      ) ${STRICT}`,
  'CREATE INDEX embed_revocations_environment ON embed_revocations (environment, sequence)',
  'CREATE INDEX embed_revocations_expires_at ON embed_revocations (expires_at)',
];
