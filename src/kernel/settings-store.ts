/**
 * The store's own named values: facts about the store itself rather than
 * about a user group or a key, such as the server secret's fingerprint, the
 * secret rotation under way and the servers running on the store (see
 * src/app/server-secret.ts and src/secrets/secret-holders.ts). A port, implemented in
 * src/store for each database. Settings are not audited and not exported.
 */
export interface SettingsStore {
  /** The value stored under `name`, or null. */
  getSetting(name: string): Promise<string | null>;
  /** Stores `value` under `name` unless one is there already; returns the value now stored. */
  putSettingIfAbsent(name: string, value: string): Promise<string>;
  /** Replaces the setting if it still holds `expected`; false otherwise. */
  replaceSetting(name: string, expected: string, value: string): Promise<boolean>;
  /** Stores `value` under `name`, replacing any value there. */
  putSetting(name: string, value: string): Promise<void>;
  /** Every setting whose name starts with `prefix` (taken literally), in name order. */
  listSettings(prefix: string): Promise<{ name: string; value: string }[]>;
  /** Removes the setting; nothing happens when there is none. */
  deleteSetting(name: string): Promise<void>;
}
