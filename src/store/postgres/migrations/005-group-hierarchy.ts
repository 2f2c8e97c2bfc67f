import { sql, type Kysely, type Migration } from 'kysely';

export const groupHierarchy: Migration = {
  async up(db: Kysely<unknown>) {
    // The composite key makes the database itself refuse a parent in another environment. Deferrable
    // so an import may insert a child before its parent, checked at COMMIT.
    await sql`ALTER TABLE user_groups ADD CONSTRAINT user_groups_team_environment UNIQUE (team_id, environment)`.execute(db);
    await sql`ALTER TABLE user_groups ADD COLUMN parent_team_id BIGINT`.execute(db);
    await sql`
      ALTER TABLE user_groups ADD CONSTRAINT user_groups_parent
        FOREIGN KEY (parent_team_id, environment) REFERENCES user_groups (team_id, environment)
        DEFERRABLE INITIALLY IMMEDIATE`.execute(db);
    await sql`CREATE INDEX user_groups_parent ON user_groups (parent_team_id) WHERE parent_team_id IS NOT NULL`.execute(db);
  },
};
