import type { SettingsStore } from '../../kernel/settings-store.js';
import type { PostgresQueries } from './postgres-queries.js';

/** The PostgreSQL `settings` table: the store's own named values. */
export class PostgresSettings implements SettingsStore {
  constructor(private readonly queries: PostgresQueries) {}

  async getSetting(name: string): Promise<string | null> {
    return (await this.queries.query<{ value: string }>('getSetting', [name])).rows[0]?.value ?? null;
  }

  async putSettingIfAbsent(name: string, value: string): Promise<string> {
    await this.queries.query('putSettingIfAbsent', [name, value]);
    return (await this.getSetting(name))!;
  }

  async replaceSetting(name: string, expected: string, value: string): Promise<boolean> {
    return ((await this.queries.query('replaceSetting', [value, name, expected])).rowCount ?? 0) > 0;
  }

  async putSetting(name: string, value: string): Promise<void> {
    await this.queries.query('putSetting', [name, value]);
  }

  async listSettings(prefix: string): Promise<{ name: string; value: string }[]> {
    return (await this.queries.query<{ name: string; value: string }>('listSettings', [prefix])).rows;
  }

  async deleteSetting(name: string): Promise<void> {
    await this.queries.query('deleteSetting', [name]);
  }
}
