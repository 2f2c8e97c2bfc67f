import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { writeFileDurably } from './durable-file.js';
import { resealTokens, type ResealSummary } from './domain/secret-rotation.js';
import { PREVIOUS_SECRET_FILE, SECRET_CHECK_SETTING, SECRET_FILE, type SecretSettings } from './server-secret.js';
import type { Services } from './services.js';

export interface RotationResult extends ResealSummary {
  mode: 'environment' | 'data dir';
}

/** Points the store's fingerprint at the keyring's current secret. */
async function recordCurrentSecret(services: Services): Promise<void> {
  const recorded = await services.store.getSetting(SECRET_CHECK_SETTING);
  if (recorded !== null && recorded !== services.cipher.secretCheck) {
    await services.store.replaceSetting(SECRET_CHECK_SETTING, recorded, services.cipher.secretCheck);
  }
}

/**
 * Moves every stored token to a new server secret while servers keep serving.
 *
 * Environment (replicas): UGS_SECRET already is the new secret and
 * UGS_PREVIOUS_SECRET the old one on every replica; this re-encrypts every
 * token and records the new fingerprint. UGS_PREVIOUS_SECRET can go after.
 *
 * Data dir (one server): generates the new secret, keeps the old one as
 * `server-secret.previous`, records the new fingerprint, waits `graceMs` for
 * running servers to notice it (they check every few seconds, and reload on any
 * token sealed under a secret they do not know), re-encrypts every token twice
 * over (the second pass catches tokens a server sealed before it noticed), then
 * deletes the old secret. Running it again after an interruption resumes.
 */
export async function rotateServerSecret(services: Services, settings: SecretSettings, graceMs: number): Promise<RotationResult> {
  if (settings.secret !== undefined) {
    const summary = await resealTokens(services.store, services.cipher);
    await recordCurrentSecret(services);
    return { ...summary, mode: 'environment' };
  }
  const currentPath = join(settings.dataDir, SECRET_FILE);
  const previousPath = join(settings.dataDir, PREVIOUS_SECRET_FILE);
  if (!existsSync(previousPath)) {
    writeFileDurably(previousPath, readFileSync(currentPath, 'utf8'), { exclusive: true });
    writeFileDurably(currentPath, `${randomBytes(32).toString('hex')}\n`, { exclusive: false });
  }
  services.cipher.reload();
  await recordCurrentSecret(services);
  await sleep(graceMs);
  const first = await resealTokens(services.store, services.cipher);
  const second = await resealTokens(services.store, services.cipher);
  rmSync(previousPath);
  return { scanned: first.scanned, resealed: first.resealed + second.resealed, mode: 'data dir' };
}
