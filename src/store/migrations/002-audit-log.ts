import { BIGINT, ddl, IDENTITY, STRICT, TIMESTAMPTZ, type Migration } from './migration.js';

export const auditLog: Migration = [
  // No foreign key to user_groups: the record outlives the group it describes.
  ddl`
      CREATE TABLE audit_log (
        id          ${IDENTITY},
        at          ${TIMESTAMPTZ}    NOT NULL,
        action      TEXT    NOT NULL,
        environment TEXT    NOT NULL,
        team_id     ${BIGINT},
        provided_id TEXT,
        key_id      TEXT,
        fields      TEXT    NOT NULL
      ) ${STRICT}`,
  'CREATE INDEX audit_log_team_id ON audit_log (team_id, id)',
  'CREATE INDEX audit_log_provided_id ON audit_log (provided_id, id)',
  'CREATE INDEX audit_log_at ON audit_log (at, id)',
];
