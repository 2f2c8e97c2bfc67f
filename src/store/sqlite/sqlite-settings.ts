import type Database from 'better-sqlite3';
import type { SettingsStore } from '../../kernel/settings-store.js';
import type { GroupCommit } from './group-commit.js';
import type { SqliteHealth } from './sqlite-health.js';

/** The SQLite `settings` table: the store's own named values. */
export class SqliteSettings implements SettingsStore {
  private readonly statements;

  constructor(
    db: Database.Database,
    private readonly health: SqliteHealth,
    private readonly groupCommit: GroupCommit,
  ) {
    this.statements = {
      get: db.prepare<[string], { value: string }>('SELECT value FROM settings WHERE name = ?'),
      putIfAbsent: db.prepare('INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING'),
      replace: db.prepare('UPDATE settings SET value = ? WHERE name = ? AND value = ?'),
      put: db.prepare('INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value'),
      list: db.prepare<[number, string], { name: string; value: string }>(
        'SELECT name, value FROM settings WHERE substr(name, 1, ?) = ? ORDER BY name',
      ),
      delete: db.prepare('DELETE FROM settings WHERE name = ?'),
    };
  }

  async getSetting(name: string): Promise<string | null> {
    this.health.assertUsable();
    return this.statements.get.get(name)?.value ?? null;
  }

  async putSettingIfAbsent(name: string, value: string): Promise<string> {
    await this.groupCommit.run(() => this.insertIfAbsent(name, value));
    return this.statements.get.get(name)!.value;
  }

  /** Stores `value` unless `name` has one; call inside a transaction (the import's, a group commit's). */
  insertIfAbsent(name: string, value: string): void {
    this.statements.putIfAbsent.run(name, value);
  }

  async replaceSetting(name: string, expected: string, value: string): Promise<boolean> {
    return this.groupCommit.run(() => this.statements.replace.run(value, name, expected).changes > 0);
  }

  async putSetting(name: string, value: string): Promise<void> {
    await this.groupCommit.run(() => this.statements.put.run(name, value));
  }

  async listSettings(prefix: string): Promise<{ name: string; value: string }[]> {
    return this.statements.list.all(prefix.length, prefix);
  }

  async deleteSetting(name: string): Promise<void> {
    await this.groupCommit.run(() => this.statements.delete.run(name));
  }
}
