import type { WriteConsequences } from '../../consequences/write-consequences.js';
import { FEED_ORDER_LOCK } from './postgres-feed-order.js';

/**
 * The consequences of a statement's writes (src/consequences/write-consequences.ts)
 * as three jsonb parameters: its audit records, events and revocation feed
 * entries, each tagged with `n`, the 1-based number of the write (the input of
 * a batch) it belongs to, and `i`, its place in the array. The values are the
 * domain's, unchanged; SQL only unpacks them.
 */
export function consequenceParameters(perWrite: readonly WriteConsequences[]): [string, string, string] {
  const audit: unknown[] = [];
  const events: unknown[] = [];
  const revocations: unknown[] = [];
  perWrite.forEach((c, index) => {
    const n = index + 1;
    for (const r of c.audit) {
      audit.push({
        n,
        i: audit.length,
        at: r.at,
        action: r.action,
        environment: r.environment,
        team_id: r.teamId,
        provided_id: r.providedId,
        key_id: r.keyId,
        fields: JSON.stringify(r.fields),
        client_address: r.clientAddress,
        webhook_id: r.webhookId ?? null,
        viewer_id: r.viewerId ?? null,
        data_source_id: r.dataSourceId ?? null,
      });
    }
    for (const e of c.events)
      events.push({ n, i: events.length, id: e.id, environment: e.environment, type: e.type, at: e.at, data: e.data });
    for (const r of c.revocations) {
      revocations.push({
        n,
        i: revocations.length,
        environment: r.environment,
        session_id: r.sessionId,
        provided_id: r.providedId,
        token_version: r.tokenVersion,
        viewer_id: r.viewerId,
        reason: r.reason,
        revoked_at: r.revokedAt,
        expires_at: r.expiresAt,
      });
    }
  });
  return [JSON.stringify(audit), JSON.stringify(events), JSON.stringify(revocations)];
}

/**
 * The CTEs (to follow a statement's other CTEs after a comma) that append the
 * consequences passed as parameters `$first` (audit), `$first+1` (events) and
 * `$first+2` (revocations).
 *
 * With `written`, the name of a CTE with one row (`input_n`) per write that
 * happened, only the consequences of those writes are appended; without it,
 * all are. With `teamIdOfRow` too, that CTE also has the `team_id` of the
 * group each write wrote, which fills what the caller left open (null) for
 * the write to learn (see GroupWriteConsequences in user-group-store.ts): the
 * audit record's column, and `team_id` in the event's data.
 *
 * Events and revocations are numbered under the feeds' lock (FEED_ORDER_LOCK),
 * held until commit, so each feed's sequence follows commit order. An event id
 * seen already (a statement retried after its commit was lost) is skipped: by
 * an index probe, not ON CONFLICT, whose speculative insertion (a lock and a
 * WAL record per row) made a batch of updates measurably slower. A retry that
 * overtakes the first attempt's commit cannot duplicate the event either: the
 * unique index refuses it, and the write fails instead.
 */
export function appendConsequences(first: number, written?: string, teamIdOfRow = false): string {
  const join = (alias: string) => (written ? `JOIN ${written} w ON w.input_n = ${alias}.n` : '');
  const teamId = teamIdOfRow ? 'coalesce(c.team_id, w.team_id)' : 'c.team_id';
  const data = teamIdOfRow
    ? `CASE WHEN c.data ? 'team_id' THEN c.data ELSE c.data || jsonb_build_object('team_id', w.team_id) END`
    : 'c.data';
  return `appended_audit AS (
    INSERT INTO audit_log (at, action, environment, team_id, provided_id, key_id, fields, client_address, webhook_id, viewer_id, data_source_id)
    SELECT c.at, c.action, c.environment, ${teamId}, c.provided_id, c.key_id, c.fields, c.client_address, c.webhook_id, c.viewer_id, c.data_source_id
    FROM jsonb_to_recordset($${first}::jsonb) AS c (n int, i int, at timestamptz, action text, environment text, team_id bigint, provided_id text,
                                                  key_id text, fields text, client_address text, webhook_id text, viewer_id text,
                                                  data_source_id text) ${join('c')}
    ORDER BY c.i
  ), appended_events AS (
    INSERT INTO events (id, environment, type, at, data)
    SELECT c.id, c.environment, c.type, c.at, ${data}
    FROM jsonb_to_recordset($${first + 1}::jsonb) AS c (n int, i int, id text, environment text, type text, at timestamptz, data jsonb) ${join('c')}, ${FEED_ORDER_LOCK}
    WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.id = c.id)
    ORDER BY c.i
  ), appended_revocations AS (
    INSERT INTO embed_revocations (environment, session_id, provided_id, token_version, viewer_id, reason, revoked_at, expires_at)
    SELECT c.environment, c.session_id, c.provided_id, c.token_version, c.viewer_id, c.reason, c.revoked_at, c.expires_at
    FROM jsonb_to_recordset($${first + 2}::jsonb) AS c (n int, i int, environment text, session_id text, provided_id text, token_version text,
                                                      viewer_id text, reason text, revoked_at timestamptz, expires_at timestamptz) ${join('c')}, ${FEED_ORDER_LOCK}
    ORDER BY c.i
  )`;
}

/** A statement that appends consequences alone ($1 to $3), for a change made by the transaction's earlier statements. */
export const APPEND_CONSEQUENCES = `WITH ${appendConsequences(1)} SELECT 1`;
