import { BYTEA, ddl, IDENTITY, STRICT, TIMESTAMPTZ, type Migration } from './migration.js';

export const initial: Migration = [
  // A team_id is never reused (IDENTITY). mapping and properties are JSON text on PostgreSQL too, not jsonb:
  // jsonb rejects \u0000 and reorders keys, and the service never queries inside them.
  ddl`
      CREATE TABLE user_groups (
        team_id          ${IDENTITY},
        environment      TEXT    NOT NULL CHECK (environment IN ('Customer', 'Testing')),
        provided_id      TEXT    NOT NULL,
        name             TEXT    NOT NULL,
        mapping          TEXT,
        properties       TEXT,
        token_hash       ${BYTEA}    NOT NULL UNIQUE,
        token_ciphertext ${BYTEA}    NOT NULL,
        created_at       ${TIMESTAMPTZ}    NOT NULL,
        updated_at       ${TIMESTAMPTZ}    NOT NULL,
        UNIQUE (environment, provided_id)
      ) ${STRICT}`,
  ddl`
      CREATE TABLE api_keys (
        id           TEXT PRIMARY KEY,
        name         TEXT,
        environment  TEXT NOT NULL CHECK (environment IN ('Customer', 'Testing')),
        access       TEXT NOT NULL CHECK (access IN ('read-write', 'read-only')),
        key_hash     ${BYTEA} NOT NULL UNIQUE,
        created_at   ${TIMESTAMPTZ} NOT NULL,
        last_used_at ${TIMESTAMPTZ},
        revoked_at   ${TIMESTAMPTZ}
      ) ${STRICT}`,
  ddl`CREATE TABLE settings (name TEXT PRIMARY KEY, value TEXT NOT NULL) ${STRICT}`,
];
