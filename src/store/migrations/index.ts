import type { Migration as KyselyMigration } from 'kysely';
import { initial } from './001-initial.js';
import { auditLog } from './002-audit-log.js';
import { auditClientAddress } from './003-audit-client-address.js';
import { embedSessions } from './004-embed-sessions.js';
import { groupHierarchy } from './005-group-hierarchy.js';
import { events } from './006-events.js';
import { webhooks } from './007-webhooks.js';
import { consoleSessions } from './008-console-sessions.js';
import { signingKeysPerEnvironment } from './009-signing-keys-per-environment.js';
import { sessionActivity } from './010-session-activity.js';
import { viewers } from './011-viewers.js';
import { usage } from './012-usage.js';
import { dataSources } from './013-data-sources.js';
import { metabase } from './014-metabase.js';
import { customers } from './015-customers.js';
import { kyselyMigrations, type Dialect, type Migration } from './migration.js';

/**
 * Every migration of both stores, in order, each named after its file (existing databases record the names in
 * kysely_migration). Names sort in application order; never rename or edit a shipped one: add the next here.
 */
export const migrationHistory: Readonly<Record<string, Migration>> = {
  '001-initial': initial,
  '002-audit-log': auditLog,
  '003-audit-client-address': auditClientAddress,
  '004-embed-sessions': embedSessions,
  '005-group-hierarchy': groupHierarchy,
  '006-events': events,
  '007-webhooks': webhooks,
  '008-console-sessions': consoleSessions,
  '009-signing-keys-per-environment': signingKeysPerEnvironment,
  '010-session-activity': sessionActivity,
  '011-viewers': viewers,
  '012-usage': usage,
  '013-data-sources': dataSources,
  '014-metabase': metabase,
  '015-customers': customers,
};

/** The history as Kysely's migrator runs it on `dialect`. */
export function migrationsFor(dialect: Dialect): Record<string, KyselyMigration> {
  return kyselyMigrations(migrationHistory, dialect);
}
