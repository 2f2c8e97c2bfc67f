import { sql, type Kysely, type Migration } from 'kysely';

export const usage: Migration = {
  async up(db: Kysely<unknown>) {
    // Issue 32: renewals are counted beside mints, and each hour keeps its latest mint (a group's last_session_at).
    await sql`ALTER TABLE session_activity ADD COLUMN renewed BIGINT NOT NULL DEFAULT 0`.execute(db);
    await sql`ALTER TABLE session_activity ADD COLUMN last_minted_at TIMESTAMPTZ`.execute(db);
    // An environment's hours (its totals, its ranking) and the retention's pruning read by hour.
    await sql`CREATE INDEX session_activity_hour ON session_activity (hour_start, environment)`.execute(db);
    // The viewers active per group and hour, as a set: distinct viewers of any hour, day or range are exact
    // however many processes counted them, and a row inserted twice is one row.
    await sql`
      CREATE TABLE viewer_hours (
        environment TEXT        NOT NULL CHECK (environment IN ('Customer', 'Testing')),
        team_id     BIGINT      NOT NULL,
        hour_start  TIMESTAMPTZ NOT NULL,
        viewer_id   TEXT        NOT NULL,
        PRIMARY KEY (environment, team_id, hour_start, viewer_id)
      )`.execute(db);
    await sql`CREATE INDEX viewer_hours_hour ON viewer_hours (hour_start, environment)`.execute(db);
  },
};
