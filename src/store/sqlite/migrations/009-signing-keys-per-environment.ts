import { sql, type Kysely, type Migration } from 'kysely';

export const signingKeysPerEnvironment: Migration = {
  async up(db: Kysely<unknown>) {
    // Issue 26: each environment signs with its own keys, so a Testing token never verifies
    // against Customer's JWKS. The keys both environments shared become Customer's, whose
    // JWKS URL, issuer and audience stay as they were; Testing gets its first key on the next start.
    // SQLite cannot change a table's UNIQUE constraint in place: the table is rebuilt.
    await sql`
      CREATE TABLE signing_keys_per_environment (
        kid                    TEXT    PRIMARY KEY,
        environment            TEXT    NOT NULL CHECK (environment IN ('Customer', 'Testing')),
        generation             INTEGER NOT NULL,
        algorithm              TEXT    NOT NULL CHECK (algorithm IN ('EdDSA', 'ES256', 'RS256')),
        public_jwk             TEXT    NOT NULL,
        private_key_ciphertext BLOB    NOT NULL,
        created_at             TEXT    NOT NULL,
        activates_at           TEXT    NOT NULL,
        UNIQUE (environment, generation)
      ) STRICT`.execute(db);
    await sql`
      INSERT INTO signing_keys_per_environment (kid, environment, generation, algorithm, public_jwk, private_key_ciphertext, created_at, activates_at)
      SELECT kid, 'Customer', generation, algorithm, public_jwk, private_key_ciphertext, created_at, activates_at FROM signing_keys`.execute(
      db,
    );
    await sql`DROP TABLE signing_keys`.execute(db);
    await sql`ALTER TABLE signing_keys_per_environment RENAME TO signing_keys`.execute(db);
  },
};
