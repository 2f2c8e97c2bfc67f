import { sql, type Kysely, type Migration } from 'kysely';

export const auditClientAddress: Migration = {
  async up(db: Kysely<unknown>) {
    // Nullable: records written before it, and changes made with the CLI, have no client address.
    await sql`ALTER TABLE audit_log ADD COLUMN client_address TEXT`.execute(db);
  },
};
