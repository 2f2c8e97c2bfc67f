import { BIGINT, BYTEA, ddl, STRICT, TIMESTAMPTZ, type Migration } from './migration.js';

export const dataSources: Migration = [
  // api_keys admits the `dashboard` access level. SQLite cannot alter a CHECK: the table is rebuilt.
  {
    sqlite: [
      `
      CREATE TABLE api_keys_next (
        id           TEXT PRIMARY KEY,
        name         TEXT,
        environment  TEXT NOT NULL CHECK (environment IN ('Customer', 'Testing')),
        access       TEXT NOT NULL CHECK (access IN ('read-write', 'read-only', 'embed', 'dashboard')),
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
      "ALTER TABLE api_keys ADD CONSTRAINT api_keys_access_check CHECK (access IN ('read-write', 'read-only', 'embed', 'dashboard'))",
    ],
  },
  // Issue 39. `connection` is the kind's JSON without the password, which is sealed apart; `version` counts changes
  // (a router's pool is stale once it differs).
  ddl`
      CREATE TABLE data_sources (
        environment         TEXT    NOT NULL CHECK (environment IN ('Customer', 'Testing')),
        id                  TEXT    NOT NULL,
        name                TEXT    NOT NULL,
        kind                TEXT    NOT NULL,
        connection          TEXT    NOT NULL,
        password_ciphertext ${BYTEA},
        version             ${BIGINT} NOT NULL,
        created_at          ${TIMESTAMPTZ}    NOT NULL,
        updated_at          ${TIMESTAMPTZ}    NOT NULL,
        PRIMARY KEY (environment, id)
      ) ${STRICT}`,
  'ALTER TABLE audit_log ADD COLUMN data_source_id TEXT',
];
