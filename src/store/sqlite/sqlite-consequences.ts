import type Database from 'better-sqlite3';
import type { WriteConsequences } from '../../consequences/write-consequences.js';

/**
 * Appends a write's consequences (src/consequences/write-consequences.ts) as they
 * are given: audit records, events, revocation feed entries. Call inside the
 * write's group-commit transaction; SQLite has one writer at a time, so each
 * sequence follows commit order.
 */
export class SqliteConsequences {
  private readonly statements;

  constructor(db: Database.Database) {
    this.statements = {
      // Positional parameters: named ones cost a property lookup each, and the record a copy to hold them.
      audit: db.prepare(
        `INSERT INTO audit_log (at, action, environment, team_id, provided_id, key_id, fields, client_address, webhook_id, viewer_id, data_source_id)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      event: db.prepare('INSERT INTO events (id, environment, type, at, data) VALUES (?, ?, ?, ?, ?)'),
      revocation: db.prepare(
        `INSERT INTO embed_revocations (environment, session_id, provided_id, token_version, viewer_id, reason, revoked_at, expires_at)
         VALUES (@environment, @sessionId, @providedId, @tokenVersion, @viewerId, @reason, @revokedAt, @expiresAt)`,
      ),
    };
  }

  persist(consequences: WriteConsequences): void {
    for (const record of consequences.audit)
      this.statements.audit.run(
        record.at,
        record.action,
        record.environment,
        record.teamId,
        record.providedId,
        record.keyId,
        JSON.stringify(record.fields),
        record.clientAddress,
        record.webhookId ?? null,
        record.viewerId ?? null,
        record.dataSourceId ?? null,
      );
    for (const event of consequences.events)
      this.statements.event.run(event.id, event.environment, event.type, event.at, JSON.stringify(event.data));
    for (const revocation of consequences.revocations) this.statements.revocation.run(revocation);
  }
}
