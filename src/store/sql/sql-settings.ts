import type { SettingsStore } from '../../kernel/settings-store.js';
import type { SqlDatabase } from './sql-database.js';
import { BYTEWISE, statement } from './sql-statement.js';

const GET = statement<{ value: string }>('getSetting', 'SELECT value FROM settings WHERE name = @name');
/** Stores a value unless the name has one (parameters: name, value); also what an import runs, inside its transaction. */
export const PUT_SETTING_IF_ABSENT = statement(
  'putSettingIfAbsent',
  'INSERT INTO settings (name, value) VALUES (@name, @value) ON CONFLICT (name) DO NOTHING',
);
const REPLACE = statement<{ name: string }>(
  'replaceSetting',
  'UPDATE settings SET value = @value WHERE name = @name AND value = @expected RETURNING name',
);
const PUT = statement(
  'putSetting',
  'INSERT INTO settings (name, value) VALUES (@name, @value) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
);
const LIST = statement<{ name: string; value: string }>(
  'listSettings',
  (dialect) => `SELECT name, value FROM settings WHERE substr(name, 1, length(@prefix)) = @prefix ORDER BY name${BYTEWISE[dialect]}`,
);
const DELETE = statement('deleteSetting', 'DELETE FROM settings WHERE name = @name');

/** The `settings` table: the store's own named values. */
export class SqlSettings implements SettingsStore {
  constructor(private readonly db: SqlDatabase) {}

  async getSetting(name: string): Promise<string | null> {
    return (await this.db.first(GET, { name }))?.value ?? null;
  }

  async putSettingIfAbsent(name: string, value: string): Promise<string> {
    await this.db.write(PUT_SETTING_IF_ABSENT, { name, value });
    return (await this.getSetting(name))!;
  }

  async replaceSetting(name: string, expected: string, value: string): Promise<boolean> {
    return (await this.db.write(REPLACE, { name, expected, value })).length > 0;
  }

  async putSetting(name: string, value: string): Promise<void> {
    await this.db.write(PUT, { name, value });
  }

  async listSettings(prefix: string): Promise<{ name: string; value: string }[]> {
    return this.db.all(LIST, { prefix });
  }

  async deleteSetting(name: string): Promise<void> {
    await this.db.write(DELETE, { name });
  }
}
