import type { Migration } from './migration.js';

export const signingKeysPerEnvironment: Migration = [
  // Issue 26: each environment signs with its own keys, so a Testing token never verifies
  // against Customer's JWKS. The keys both environments shared become Customer's, whose
  // JWKS URL, issuer and audience stay as they were; Testing gets its first key on the next start.
  {
    // SQLite cannot change a table's UNIQUE constraint in place: the table is rebuilt.
    sqlite: [
      `
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
      ) STRICT`,
      `
      INSERT INTO signing_keys_per_environment (kid, environment, generation, algorithm, public_jwk, private_key_ciphertext, created_at, activates_at)
      SELECT kid, 'Customer', generation, algorithm, public_jwk, private_key_ciphertext, created_at, activates_at FROM signing_keys`,
      'DROP TABLE signing_keys',
      'ALTER TABLE signing_keys_per_environment RENAME TO signing_keys',
    ],
    postgres: [
      "ALTER TABLE signing_keys ADD COLUMN environment TEXT NOT NULL DEFAULT 'Customer' CHECK (environment IN ('Customer', 'Testing'))",
      // Only the rows already there are Customer's by default; every new key names its environment.
      'ALTER TABLE signing_keys ALTER COLUMN environment DROP DEFAULT',
      'ALTER TABLE signing_keys DROP CONSTRAINT signing_keys_generation_key',
      'ALTER TABLE signing_keys ADD CONSTRAINT signing_keys_environment_generation_key UNIQUE (environment, generation)',
    ],
  },
];
