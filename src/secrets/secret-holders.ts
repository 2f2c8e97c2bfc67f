import { randomUUID } from 'node:crypto';
import { isLive, type Rotation, type SecretHolder } from './secret-rotation.js';
import type { SettingsStore } from '../kernel/settings-store.js';

/**
 * Running servers record themselves in the store's settings, one row per
 * process (`secret_holder:<uuid>`), saying which server secrets they can open
 * and which they seal under, so `ugs secret rotate` can refuse while a live
 * server could not follow and can wait until every server has switched. A
 * server rewrites its row when that changes and a few times per TTL, deletes
 * it on a clean stop; a crashed server's row counts as gone after its TTL.
 */
export const SECRET_HOLDER_PREFIX = 'secret_holder:';
/** The rotation under way or last finished (JSON of `Rotation`). */
export const ROTATION_SETTING = 'server_secret_rotation';

export function newHolderName(): string {
  return `${SECRET_HOLDER_PREFIX}${randomUUID()}`;
}

/** How long a server's row stays valid without a rewrite: several of its checks, and never under 30 s, so a busy host is not taken for a
 * dead one. */
export function holderTtlMs(pollMs: number): number {
  return Math.max(30_000, pollMs * 6);
}

export async function recordHolder(store: SettingsStore, name: string, holder: SecretHolder): Promise<void> {
  await store.putSetting(name, JSON.stringify(holder));
}

/** Every recorded server with its row's name (rows that do not parse are skipped), live or not. */
async function listHolders(store: SettingsStore): Promise<{ name: string; holder: SecretHolder }[]> {
  const holders: { name: string; holder: SecretHolder }[] = [];
  for (const { name, value } of await store.listSettings(SECRET_HOLDER_PREFIX)) {
    try {
      holders.push({ name, holder: JSON.parse(value) as SecretHolder });
    } catch {
      // A row from a newer or broken writer: not ours to judge.
    }
  }
  return holders;
}

export async function listLiveHolders(store: SettingsStore, now = new Date()): Promise<SecretHolder[]> {
  return (await listHolders(store)).map(({ holder }) => holder).filter((holder) => isLive(holder, now));
}

/** Deletes the rows of servers gone without a clean stop (a crash, SIGKILL), so they do not pile up. */
export async function pruneHolders(store: SettingsStore, now = new Date()): Promise<void> {
  for (const { name, holder } of await listHolders(store)) if (!isLive(holder, now)) await store.deleteSetting(name);
}

export async function readRotation(store: SettingsStore): Promise<Rotation | null> {
  const text = await store.getSetting(ROTATION_SETTING);
  if (text === null) return null;
  try {
    return JSON.parse(text) as Rotation;
  } catch {
    return null;
  }
}

export async function recordRotation(store: SettingsStore, rotation: Rotation): Promise<void> {
  await store.putSetting(ROTATION_SETTING, JSON.stringify(rotation));
}
