import { BIGINT, ddl, STRICT_WITHOUT_ROWID, TIMESTAMPTZ, type Migration } from './migration.js';

export const usage: Migration = [
  // Issue 32: renewals are counted beside mints, and each hour keeps its latest mint (a group's last_session_at).
  ddl`ALTER TABLE session_activity ADD COLUMN renewed ${BIGINT} NOT NULL DEFAULT 0`,
  ddl`ALTER TABLE session_activity ADD COLUMN last_minted_at ${TIMESTAMPTZ}`,
  // An environment's hours (its totals, its ranking) and the retention's pruning read by hour.
  'CREATE INDEX session_activity_hour ON session_activity (hour_start, environment)',
  // The viewers active per group and hour, as a set: distinct viewers of any hour, day or range are exact
  // however many processes counted them, and a row inserted twice is one row.
  ddl`
      CREATE TABLE viewer_hours (
        environment TEXT    NOT NULL CHECK (environment IN ('Customer', 'Testing')),
        team_id     ${BIGINT} NOT NULL,
        hour_start  ${TIMESTAMPTZ}    NOT NULL,
        viewer_id   TEXT    NOT NULL,
        PRIMARY KEY (environment, team_id, hour_start, viewer_id)
      ) ${STRICT_WITHOUT_ROWID}`,
  'CREATE INDEX viewer_hours_hour ON viewer_hours (hour_start, environment)',
];
