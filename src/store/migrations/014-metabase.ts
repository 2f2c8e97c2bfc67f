import { BIGINT, BYTEA, ddl, STRICT, TIMESTAMPTZ, type Migration } from './migration.js';

/** Issue 40: each environment's Metabase static embedding, its embedding secret key sealed with the server secret. */
export const metabase: Migration = [
  ddl`
      CREATE TABLE metabase_settings (
        environment       TEXT      NOT NULL PRIMARY KEY CHECK (environment IN ('Customer', 'Testing')),
        site_url          TEXT      NOT NULL,
        secret_ciphertext ${BYTEA}  NOT NULL,
        max_expires_in    ${BIGINT} NOT NULL,
        created_at        ${TIMESTAMPTZ} NOT NULL,
        updated_at        ${TIMESTAMPTZ} NOT NULL
      ) ${STRICT}`,
];
