import { sql, type Kysely, type Migration } from 'kysely';

export const signingKeysPerEnvironment: Migration = {
  async up(db: Kysely<unknown>) {
    // Issue 26: each environment signs with its own keys, so a Testing token never verifies
    // against Customer's JWKS. The keys both environments shared become Customer's, whose
    // JWKS URL, issuer and audience stay as they were; Testing gets its first key on the next start.
    await sql`ALTER TABLE signing_keys ADD COLUMN environment TEXT NOT NULL DEFAULT 'Customer' CHECK (environment IN ('Customer', 'Testing'))`.execute(
      db,
    );
    // Only the rows already there are Customer's by default; every new key names its environment.
    await sql`ALTER TABLE signing_keys ALTER COLUMN environment DROP DEFAULT`.execute(db);
    await sql`ALTER TABLE signing_keys DROP CONSTRAINT signing_keys_generation_key`.execute(db);
    await sql`ALTER TABLE signing_keys ADD CONSTRAINT signing_keys_environment_generation_key UNIQUE (environment, generation)`.execute(db);
  },
};
