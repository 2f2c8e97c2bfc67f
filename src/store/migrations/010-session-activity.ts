import { BIGINT, ddl, STRICT_WITHOUT_ROWID, TIMESTAMPTZ, type Migration } from './migration.js';

export const sessionActivity: Migration = [
  // Issue 28: minting stores no session; what it leaves is a count, added per group and hour in batches.
  ddl`
      CREATE TABLE session_activity (
        environment TEXT    NOT NULL CHECK (environment IN ('Customer', 'Testing')),
        team_id     ${BIGINT} NOT NULL,
        hour_start  ${TIMESTAMPTZ}    NOT NULL,
        minted      ${BIGINT} NOT NULL,
        PRIMARY KEY (environment, team_id, hour_start)
      ) ${STRICT_WITHOUT_ROWID}`,
  // The batches applied, so a batch sent again (its answer lost) is counted once.
  ddl`
      CREATE TABLE session_activity_batches (
        batch_id   TEXT PRIMARY KEY,
        applied_at ${TIMESTAMPTZ} NOT NULL
      ) ${STRICT_WITHOUT_ROWID}`,
  'CREATE INDEX session_activity_batches_applied_at ON session_activity_batches (applied_at)',
];
