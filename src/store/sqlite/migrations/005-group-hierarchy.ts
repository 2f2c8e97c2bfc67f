import { sql, type Kysely, type Migration } from 'kysely';

export const groupHierarchy: Migration = {
  async up(db: Kysely<unknown>) {
    // SQLite cannot add a table constraint to an existing table, so the parent
    // must be in the same environment is held by the store: every placement is
    // checked inside the write transaction, and SQLite has one writer at a time.
    await sql`ALTER TABLE user_groups ADD COLUMN parent_team_id INTEGER REFERENCES user_groups (team_id)`.execute(db);
    await sql`CREATE INDEX user_groups_parent ON user_groups (parent_team_id) WHERE parent_team_id IS NOT NULL`.execute(db);
  },
};
