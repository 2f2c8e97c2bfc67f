import { BIGINT, BOOLEAN, ddl, FALSE, STRICT, TIMESTAMPTZ, type Migration } from './migration.js';

/**
 * Issue 41: what the Customer API keeps of a group beside this service's own fields. emails and group_tags are
 * JSON arrays as text (as mapping and properties are); a tag is carried by name, so renaming or deleting one
 * rewrites every group that carries it in the same transaction as the tag itself. A tag's position orders the list
 * as the tags were made (two made in one millisecond keep their order; a rename keeps its place).
 */
export const customers: Migration = [
  'ALTER TABLE user_groups ADD COLUMN emails TEXT',
  ddl`ALTER TABLE user_groups ADD COLUMN is_demo_group ${BOOLEAN} NOT NULL DEFAULT ${FALSE}`,
  'ALTER TABLE user_groups ADD COLUMN hierarchy_level TEXT',
  'ALTER TABLE user_groups ADD COLUMN group_tags TEXT',
  ddl`
      CREATE TABLE group_tags (
        environment TEXT NOT NULL CHECK (environment IN ('Customer', 'Testing')),
        name        TEXT NOT NULL,
        created_at  ${TIMESTAMPTZ} NOT NULL,
        position    ${BIGINT} NOT NULL,
        PRIMARY KEY (environment, name)
      ) ${STRICT}`,
];
