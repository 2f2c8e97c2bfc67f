import { BYTEA, ddl, STRICT, TIMESTAMPTZ, type Migration } from './migration.js';

export const consoleSessions: Migration = [
  // The operator console's sessions (issue 19): the SHA-256 of the browser's random id, never the id or the API key.
  ddl`
      CREATE TABLE console_sessions (
        id_hash      ${BYTEA} PRIMARY KEY,
        key_id       TEXT NOT NULL,
        environment  TEXT NOT NULL,
        access       TEXT NOT NULL,
        created_at   ${TIMESTAMPTZ} NOT NULL,
        last_seen_at ${TIMESTAMPTZ} NOT NULL
      ) ${STRICT}`,
  'CREATE INDEX console_sessions_last_seen_at ON console_sessions (last_seen_at)',
  'CREATE INDEX console_sessions_created_at ON console_sessions (created_at)',
];
