import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { StartupError } from './domain/errors.js';
import { createTokenCipher, isUsableServerSecret, SERVER_SECRET_RULE, type TokenCipher } from './domain/token-cipher.js';
import type { Store } from './store/store.js';

const SECRET_FILE = 'server-secret';
const SECRET_CHECK_SETTING = 'server_secret_check';

interface CandidateSecret {
  value: string;
  source: string;
  /** True when made up just now: it may be saved only if the store has never seen a secret. */
  generated: boolean;
}

function readCandidate(dataDir: string, fromEnv: string | undefined): CandidateSecret {
  if (fromEnv !== undefined) return { value: fromEnv, source: 'UGS_SECRET', generated: false };
  const path = join(dataDir, SECRET_FILE);
  try {
    const value = readFileSync(path, 'utf8').trim();
    if (!isUsableServerSecret(value)) throw new StartupError(`The server secret in ${path} is too short: it must be ${SERVER_SECRET_RULE}.`);
    return { value, source: path, generated: false };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    return { value: randomBytes(32).toString('hex'), source: path, generated: true };
  }
}

/** Saves a generated secret with mode 0600; if another process saved one first, that one wins. */
function persistGenerated(dataDir: string, candidate: CandidateSecret): CandidateSecret {
  const path = join(dataDir, SECRET_FILE);
  try {
    writeFileSync(path, `${candidate.value}\n`, { mode: 0o600, flag: 'wx' });
    return { ...candidate, generated: false };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return readCandidate(dataDir, undefined);
  }
}

/**
 * The server secret, from UGS_SECRET or the data dir (generated there on first
 * start), checked against the fingerprint the store keeps, so a missing or
 * wrong secret stops start-up instead of failing every token read later.
 */
export async function loadServerSecret(store: Store, dataDir: string, fromEnv: string | undefined): Promise<TokenCipher> {
  let candidate = readCandidate(dataDir, fromEnv);
  const recorded = await store.getSetting(SECRET_CHECK_SETTING);
  if (recorded === null && candidate.generated) candidate = persistGenerated(dataDir, candidate);

  const cipher = createTokenCipher(candidate.value);
  const expected = recorded ?? (await store.putSettingIfAbsent(SECRET_CHECK_SETTING, cipher.secretCheck));
  if (expected === cipher.secretCheck) return cipher;
  if (candidate.generated) {
    throw new StartupError(
      `This store was created with a server secret, but none was found: set UGS_SECRET or restore ${candidate.source}.`,
    );
  }
  throw new StartupError(`The server secret from ${candidate.source} is not the one this store was created with; use the original secret.`);
}
