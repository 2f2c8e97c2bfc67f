import type { Environment } from '../../kernel/environment.js';
import type { WriteConsequences } from '../../consequences/write-consequences.js';
import type { MetabaseSettingsRecord } from '../../metabase/metabase-settings.js';
import type { MetabaseSecretResealStore, MetabaseStore } from '../../metabase/metabase-store.js';
import { append, run, type SqlDatabase } from './sql-database.js';
import { statement } from './sql-statement.js';

interface MetabaseRow {
  environment: string;
  site_url: string;
  secret_ciphertext: Buffer;
  max_expires_in: number | string;
  created_at: string;
  updated_at: string;
}

function toSettings(row: MetabaseRow): MetabaseSettingsRecord {
  return {
    environment: row.environment as Environment,
    siteUrl: row.site_url,
    secretCiphertext: row.secret_ciphertext,
    maxExpiresIn: Number(row.max_expires_in),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

const FIND = statement<MetabaseRow>('findMetabaseSettings', 'SELECT * FROM metabase_settings WHERE environment = @environment');
const PUT = statement<MetabaseRow>(
  'putMetabaseSettings',
  `INSERT INTO metabase_settings (environment, site_url, secret_ciphertext, max_expires_in, created_at, updated_at)
   VALUES (@environment, @siteUrl, @secretCiphertext, @maxExpiresIn, @createdAt, @updatedAt)
   ON CONFLICT (environment) DO UPDATE SET site_url = excluded.site_url, secret_ciphertext = excluded.secret_ciphertext,
          max_expires_in = excluded.max_expires_in, updated_at = excluded.updated_at
   RETURNING *`,
);
/** `ugs import`: an environment's settings as exported, their times kept; a repeat fails (the import checks for none first). */
export const IMPORT_METABASE_SETTINGS = statement(
  'importMetabaseSettings',
  `INSERT INTO metabase_settings (environment, site_url, secret_ciphertext, max_expires_in, created_at, updated_at)
   VALUES (@environment, @siteUrl, @secretCiphertext, @maxExpiresIn, @createdAt, @updatedAt)`,
);
const DELETE = statement<{ environment: string }>(
  'deleteMetabaseSettings',
  'DELETE FROM metabase_settings WHERE environment = @environment RETURNING environment',
);
const SECRETS = statement<{ environment: string; secret_ciphertext: Buffer }>(
  'listMetabaseSecrets',
  'SELECT environment, secret_ciphertext FROM metabase_settings ORDER BY environment',
);
const REPLACE_SECRET = statement<{ environment: string }>(
  'replaceMetabaseSecret',
  `UPDATE metabase_settings SET secret_ciphertext = @next
   WHERE environment = @environment AND secret_ciphertext = @expected RETURNING environment`,
);

/** Metabase settings, written once for both databases: each change and its audit record in one transaction. */
export class SqlMetabase implements MetabaseStore, MetabaseSecretResealStore {
  constructor(private readonly db: SqlDatabase) {}

  async findMetabaseSettings(environment: Environment): Promise<MetabaseSettingsRecord | null> {
    const row = await this.db.first(FIND, { environment });
    return row ? toSettings(row) : null;
  }

  async putMetabaseSettings(record: MetabaseSettingsRecord, consequences: WriteConsequences): Promise<MetabaseSettingsRecord> {
    const [row] = await this.db.write(PUT, { ...record }, { consequences });
    return toSettings(row!);
  }

  deleteMetabaseSettings(environment: Environment, consequences: WriteConsequences): Promise<boolean> {
    return this.db.transaction(function* () {
      if ((yield* run(DELETE, { environment })).length === 0) return false;
      yield* append({ consequences });
      return true;
    });
  }

  appendRecord(consequences: WriteConsequences): Promise<void> {
    return this.db.transaction(function* () {
      yield* append({ consequences });
    });
  }

  async listMetabaseSecrets(): Promise<{ environment: Environment; secretCiphertext: Buffer }[]> {
    return (await this.db.all(SECRETS)).map((row) => ({
      environment: row.environment as Environment,
      secretCiphertext: row.secret_ciphertext,
    }));
  }

  async replaceMetabaseSecretCiphertext(environment: Environment, expected: Buffer, next: Buffer): Promise<boolean> {
    return (await this.db.write(REPLACE_SECRET, { environment, expected, next })).length > 0;
  }
}
