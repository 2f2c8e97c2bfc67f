import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { writeFileDurably } from '../platform/durable-file.js';
import { invalidRequest } from '../kernel/errors.js';
import { describeHolder, holdersThatCannotFollow, planEnvironmentRotation, type Rotation } from '../secrets/secret-rotation.js';
import {
  resealDataSourcePasswords,
  resealMetabaseSecrets,
  resealSigningKeys,
  resealTokens,
  resealWebhookSecrets,
  type ResealSummary,
} from './reseal-secrets.js';
import { secretCheckOf } from '../secrets/token-cipher.js';
import { listLiveHolders, readRotation, recordRotation } from '../secrets/secret-holders.js';
import { PREVIOUS_SECRET_FILE, SECRET_CHECK_SETTING, SECRET_FILE, type SecretSettings } from './server-secret.js';
import type { Core } from './core.js';

export interface RotationResult extends ResealSummary {
  mode: 'environment' | 'data dir';
}

const HOLDER_POLL_MS = 100;

/** What a rotation reads and writes: the store's settings (fingerprint, rotation, servers), every token, and this run's cipher. */
type RotationServices = Pick<Core, 'secretRotation' | 'cipher'>;

/**
 * Moves every stored token to a new server secret while servers keep serving,
 * in an order no server can be caught out by:
 *
 * 1. refuses, naming the server, while a live server could not open tokens
 *    sealed under the new secret (see `holdersThatCannotFollow`);
 * 2. records the rotation, then the new secret's fingerprint: servers switch
 *    to sealing under it within one of their checks;
 * 3. waits until every live server reports it has switched (at most
 *    `graceMs`; past that it stops, the rotation recorded, and a rerun resumes);
 * 4. re-encrypts every token, twice over (the second pass catches tokens a
 *    server sealed just before switching), and marks the rotation finished;
 *    in data-dir mode deletes the previous secret.
 *
 * Environment (replicas): UGS_SECRET is the new secret and UGS_PREVIOUS_SECRET
 * the old one, as on every server. Data dir (one host): a new secret is
 * generated there; the old one stays as `server-secret.previous` until done.
 */
export async function rotateServerSecret(services: RotationServices, settings: SecretSettings, graceMs: number): Promise<RotationResult> {
  const { settings: storeSettings, tokenReseal, signingKeyReseal, webhookReseal } = services.secretRotation;
  const recorded = (await storeSettings.getSetting(SECRET_CHECK_SETTING))!;
  const last = await readRotation(storeSettings);
  const mode = settings.secret !== undefined ? 'environment' : 'data dir';
  const currentPath = join(settings.dataDir, SECRET_FILE);
  const previousPath = join(settings.dataDir, PREVIOUS_SECRET_FILE);

  let rotation: Rotation;
  let newSecret: string | undefined;
  if (settings.secret !== undefined) {
    const previous = settings.previousSecret === undefined ? undefined : secretCheckOf(settings.previousSecret);
    rotation = planEnvironmentRotation(recorded, secretCheckOf(settings.secret), previous, last);
  } else if (existsSync(previousPath)) {
    // A run that stopped half way: resume it.
    rotation = {
      from: secretCheckOf(readFileSync(previousPath, 'utf8').trim()),
      to: secretCheckOf(readFileSync(currentPath, 'utf8').trim()),
      finishedAt: null,
    };
  } else {
    newSecret = randomBytes(32).toString('hex');
    rotation = { from: recorded, to: secretCheckOf(newSecret), finishedAt: null };
  }

  const now = new Date();
  const blockers = holdersThatCannotFollow(
    await listLiveHolders(storeSettings, now),
    {
      mode: settings.secret !== undefined ? 'UGS_SECRET' : 'data dir',
      from: rotation.from,
      to: rotation.to,
      host: hostname(),
      dataDir: resolve(settings.dataDir),
    },
    now,
  );
  if (blockers.length > 0) {
    const more = blockers.length > 1 ? ` (and ${blockers.length - 1} more server${blockers.length > 2 ? 's' : ''})` : '';
    throw invalidRequest(
      `Not rotating: ${blockers[0]}${more}. Nothing was changed. A server that has stopped counts until its record expires (30 s or so).`,
    );
  }

  if (newSecret !== undefined) {
    writeFileDurably(previousPath, readFileSync(currentPath, 'utf8'), { exclusive: true });
    writeFileDurably(currentPath, `${newSecret}\n`, { exclusive: false });
  }
  if (rotation.from !== rotation.to && rotation.finishedAt === null) {
    await recordRotation(storeSettings, rotation);
    if (recorded !== rotation.to && !(await storeSettings.replaceSetting(SECRET_CHECK_SETTING, recorded, rotation.to))) {
      throw invalidRequest('Another `ugs secret rotate` changed the server secret meanwhile; run this again once it has finished.');
    }
  }
  if (!services.cipher.follow(rotation.to)) throw invalidRequest('This run does not have the new server secret.');
  await waitUntilEveryServerSeals(services, rotation.to, graceMs);

  const first = await resealTokens(tokenReseal, services.cipher);
  const second = await resealTokens(tokenReseal, services.cipher);
  await resealSigningKeys(signingKeyReseal, services.cipher);
  await resealWebhookSecrets(webhookReseal, services.cipher);
  await resealDataSourcePasswords(services.secretRotation.dataSourceReseal, services.cipher);
  await resealMetabaseSecrets(services.secretRotation.metabaseReseal, services.cipher);
  if (rotation.finishedAt === null) await recordRotation(storeSettings, { ...rotation, finishedAt: new Date().toISOString() });
  if (mode === 'data dir') rmSync(previousPath, { force: true });
  return { scanned: first.scanned, resealed: first.resealed + second.resealed, mode };
}

/** Until every live server seals under `to`; fails at once for a server that cannot, and after `graceMs` for one that has not yet. */
async function waitUntilEveryServerSeals(services: RotationServices, to: string, graceMs: number): Promise<void> {
  const deadline = Date.now() + graceMs;
  for (;;) {
    const now = new Date();
    const holders = await listLiveHolders(services.secretRotation.settings, now);
    // A data-dir server learns the new secret from the files when it notices the fingerprint; one with UGS_SECRET never can.
    const stranded = holders.find((holder) => holder.source === 'UGS_SECRET' && !holder.known.includes(to));
    if (stranded) {
      throw invalidRequest(
        `${describeHolder(stranded, now)} started meanwhile without the new secret and cannot read tokens sealed under it: restart it with UGS_SECRET=<new> and UGS_PREVIOUS_SECRET=<old>, then run \`ugs secret rotate\` again to finish.`,
      );
    }
    const waiting = holders.find((holder) => holder.sealing !== to);
    if (!waiting) return;
    if (Date.now() >= deadline) {
      throw invalidRequest(
        `${describeHolder(waiting, now)} has not switched to the new secret within ${graceMs} ms. The rotation is recorded and every server can read both secrets: run \`ugs secret rotate\` again with the same settings to finish it.`,
      );
    }
    await sleep(HOLDER_POLL_MS);
  }
}
