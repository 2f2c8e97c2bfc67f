import type { Migration } from './migration.js';

export const groupHierarchy: Migration = [
  {
    // SQLite cannot add a table constraint to an existing table, so the parent
    // must be in the same environment is held by the store: every placement is
    // checked inside the write transaction, and SQLite has one writer at a time.
    sqlite: 'ALTER TABLE user_groups ADD COLUMN parent_team_id INTEGER REFERENCES user_groups (team_id)',
    // On PostgreSQL the composite key makes the database itself refuse a parent in another environment.
    // Deferrable so an import may insert a child before its parent, checked at COMMIT.
    postgres: [
      'ALTER TABLE user_groups ADD CONSTRAINT user_groups_team_environment UNIQUE (team_id, environment)',
      'ALTER TABLE user_groups ADD COLUMN parent_team_id BIGINT',
      `
      ALTER TABLE user_groups ADD CONSTRAINT user_groups_parent
        FOREIGN KEY (parent_team_id, environment) REFERENCES user_groups (team_id, environment)
        DEFERRABLE INITIALLY IMMEDIATE`,
    ],
  },
  'CREATE INDEX user_groups_parent ON user_groups (parent_team_id) WHERE parent_team_id IS NOT NULL',
];
