import { sql, type Kysely, type Migration } from 'kysely';

export const viewers: Migration = {
  async up(db: Kysely<unknown>) {
    // Issue 29: a viewer's sessions end in every group, so a feed entry may name a viewer and no group.
    await sql`ALTER TABLE embed_revocations ALTER COLUMN provided_id DROP NOT NULL`.execute(db);
    await sql`ALTER TABLE embed_revocations ADD COLUMN viewer_id TEXT`.execute(db);
    await sql`CREATE INDEX embed_revocations_viewer ON embed_revocations (environment, viewer_id) WHERE viewer_id IS NOT NULL`.execute(db);
    await sql`ALTER TABLE audit_log ADD COLUMN viewer_id TEXT`.execute(db);
    // The viewers seen in a group's sessions, summed from the counted batches (as session_activity is).
    await sql`
      CREATE TABLE viewer_activity (
        environment   TEXT        NOT NULL CHECK (environment IN ('Customer', 'Testing')),
        team_id       BIGINT      NOT NULL,
        viewer_id     TEXT        NOT NULL,
        first_seen_at TIMESTAMPTZ NOT NULL,
        last_seen_at  TIMESTAMPTZ NOT NULL,
        sessions      BIGINT      NOT NULL,
        PRIMARY KEY (environment, team_id, viewer_id)
      )`.execute(db);
    await sql`CREATE INDEX viewer_activity_recent ON viewer_activity (environment, team_id, last_seen_at DESC, viewer_id)`.execute(db);
  },
};
