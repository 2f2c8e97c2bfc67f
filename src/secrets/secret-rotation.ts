import { invalidRequest, ServiceError } from '../kernel/errors.js';
import { ENVIRONMENTS } from '../kernel/environment.js';
import type { UserGroupRecord } from '../user-groups/user-group.js';
import { UnknownSecretError, type TokenCipher } from './token-cipher.js';
import { signingKeySealContext } from '../signing-keys/signing-key.js';
import type { SigningKeyStore } from '../signing-keys/signing-key-store.js';
import { webhookSecretSealContext } from '../webhooks/webhook.js';
import type { WebhookSecretResealStore } from '../webhooks/webhook-store.js';

const PAGE = 500;

export interface ResealSummary {
  scanned: number;
  resealed: number;
}

/** A running server, as it records itself in the store (see src/secrets/secret-holders.ts). */
export interface SecretHolder {
  pid: number;
  host: string;
  /** Where its secrets come from; a data-dir server follows `ugs secret rotate` on its own. */
  source: 'UGS_SECRET' | 'data dir';
  /** The data dir, resolved, when `source` is the data dir. */
  dataDir: string | null;
  /** Check of the secret it is configured with (UGS_SECRET, or the data dir's current one). */
  configured: string;
  /** Checks of every secret it can open. */
  known: string[];
  /** Check of the secret it seals new tokens under: the store's, as last seen. */
  sealing: string;
  seenAt: string;
  /** How long after `seenAt` it counts as gone if it has not written again. */
  ttlMs: number;
}

/** A rotation between two secrets, by their checks, as recorded in the store while it runs. */
export interface Rotation {
  from: string;
  to: string;
  finishedAt: string | null;
}

export function isLive(holder: SecretHolder, now: Date): boolean {
  return Date.parse(holder.seenAt) + holder.ttlMs > now.getTime();
}

export function describeHolder(holder: SecretHolder, now: Date): string {
  const ago = Math.max(0, Math.round((now.getTime() - Date.parse(holder.seenAt)) / 1000));
  return `the server with pid ${holder.pid} on ${holder.host} (seen ${ago} s ago)`;
}

/**
 * Why each live server could not follow `rotation` (empty when all can): a
 * server that cannot open tokens sealed under `rotation.to` would fail on
 * them. Environment mode needs every server already configured with the new
 * UGS_SECRET (and the old one as UGS_PREVIOUS_SECRET); data-dir mode needs
 * every server to read this same data dir, as it follows the files there.
 */
export function holdersThatCannotFollow(
  holders: SecretHolder[],
  rotation: { mode: 'UGS_SECRET' | 'data dir'; from: string; to: string; host: string; dataDir: string },
  now: Date,
): string[] {
  const reasons: string[] = [];
  for (const holder of holders.filter((h) => isLive(h, now))) {
    const who = describeHolder(holder, now);
    if (rotation.mode === 'data dir') {
      if (holder.source === 'UGS_SECRET') {
        reasons.push(
          `${who} takes its secret from UGS_SECRET and cannot follow a data-dir rotation: restart it without UGS_SECRET, or rotate with UGS_SECRET=<new> and UGS_PREVIOUS_SECRET=<old> everywhere`,
        );
      } else if (holder.host !== rotation.host || holder.dataDir !== rotation.dataDir) {
        reasons.push(
          `${who} reads its secret from another data dir (${holder.dataDir}) and would not see the new one: rotate with UGS_SECRET=<new> and UGS_PREVIOUS_SECRET=<old> everywhere instead`,
        );
      }
    } else if (holder.configured !== rotation.to) {
      if (holder.source === 'data dir') {
        reasons.push(
          `${who} takes its secret from the data dir ${holder.dataDir} and cannot follow a rotation of UGS_SECRET: run \`ugs secret rotate\` without UGS_SECRET, or restart it with UGS_SECRET=<new> and UGS_PREVIOUS_SECRET=<old>`,
        );
      } else if (holder.configured === rotation.from && holder.known.includes(rotation.to)) {
        reasons.push(
          `${who} runs with UGS_SECRET set to this run's UGS_PREVIOUS_SECRET: UGS_SECRET and UGS_PREVIOUS_SECRET are swapped, here or there`,
        );
      } else if (!holder.known.includes(rotation.to)) {
        reasons.push(
          `${who} does not have the new secret: deploy UGS_SECRET=<new> with UGS_PREVIOUS_SECRET=<old> to every server first, then run this again`,
        );
      } else {
        reasons.push(
          `${who} runs with another UGS_SECRET than this run: run \`ugs secret rotate\` with the same UGS_SECRET and UGS_PREVIOUS_SECRET as the servers`,
        );
      }
    }
  }
  return reasons;
}

/**
 * Which rotation an environment-mode run (UGS_SECRET=`current`,
 * UGS_PREVIOUS_SECRET=`previous`, by their checks) asks for, given the
 * store's fingerprint and its last recorded rotation: a new one, the one under
 * way (resumed), or none. Refuses what would strand tokens or mislead: the two
 * secrets swapped, or an unfinished rotation from a secret this run lacks.
 */
export function planEnvironmentRotation(recorded: string, current: string, previous: string | undefined, last: Rotation | null): Rotation {
  if (previous !== undefined && recorded === previous) {
    if (last !== null && last.finishedAt === null && last.to !== current) {
      throw invalidRequest(
        'The previous server secret rotation is unfinished: run `ugs secret rotate` with its two secrets again to finish it before starting another.',
      );
    }
    return { from: previous, to: current, finishedAt: null };
  }
  if (recorded !== current) throw invalidRequest('Neither UGS_SECRET nor UGS_PREVIOUS_SECRET is the server secret this store uses.');
  const underWay = last !== null && last.finishedAt === null && last.to === current ? last : null;
  if (underWay && previous !== underWay.from) {
    throw invalidRequest(
      'A rotation to this UGS_SECRET is unfinished and some tokens may still be sealed under the previous secret: run again with UGS_PREVIOUS_SECRET set to it.',
    );
  }
  if (underWay) return underWay;
  if (previous !== undefined && !(last?.to === current && last.from === previous)) {
    throw invalidRequest(
      'The store already uses UGS_SECRET, and UGS_PREVIOUS_SECRET is no secret it has used: UGS_SECRET and UGS_PREVIOUS_SECRET look swapped. Run with UGS_SECRET=<new> and UGS_PREVIOUS_SECRET=<old>, as the servers run.',
    );
  }
  // The rotation to this secret has finished (or none was ever needed): a pass re-seals any stragglers.
  return { from: previous ?? current, to: current, finishedAt: last?.finishedAt ?? null };
}

/**
 * Re-encrypts, under the cipher's current secret, every stored token sealed
 * under another one. Tokens do not change; only their ciphertexts do. Each row
 * is swapped only if it still holds the ciphertext read, so a rotation racing
 * with this (whose new token is sealed under the current secret) wins.
 */
/** The storage resealing needs: a port, implemented in src/store for each database. */
export interface TokenResealStore {
  listUserGroupsAfter(afterTeamId: number, limit: number): Promise<UserGroupRecord[]>;
  /**
   * Re-seals a group's unchanged token (server secret rotation): swaps the
   * ciphertext if the row still holds `expected`; false otherwise (e.g. the
   * token was rotated meanwhile, already under the new secret). Not audited:
   * nothing a caller can see changes.
   */
  replaceTokenCiphertext(teamId: number, expected: Buffer, next: Buffer): Promise<boolean>;
}

export async function resealTokens(store: TokenResealStore, cipher: TokenCipher): Promise<ResealSummary> {
  const summary: ResealSummary = { scanned: 0, resealed: 0 };
  for (let after = 0; ;) {
    const page = await store.listUserGroupsAfter(after, PAGE);
    for (const group of page) {
      summary.scanned++;
      if (cipher.isCurrent(group.tokenCiphertext)) continue;
      const token = openOrExplain(cipher, group.tokenCiphertext, group.environment, group.providedId, group.teamId);
      const next = cipher.encrypt(token, group.environment, group.providedId);
      if (await store.replaceTokenCiphertext(group.teamId, group.tokenCiphertext, next)) summary.resealed++;
    }
    if (page.length < PAGE) return summary;
    after = page.at(-1)!.teamId;
  }
}

/**
 * Re-encrypts, under the cipher's current secret, every signing key's private
 * half sealed under another one (the keys themselves do not change, so no
 * token or JWKS does). Returns how many were re-sealed.
 */
export async function resealSigningKeys(
  store: Pick<SigningKeyStore, 'listSigningKeys' | 'replaceSigningKeyCiphertext'>,
  cipher: TokenCipher,
): Promise<number> {
  let resealed = 0;
  for (const environment of ENVIRONMENTS) {
    for (const key of await store.listSigningKeys(environment)) {
      if (cipher.isCurrent(key.privateKeyCiphertext)) continue;
      const context = signingKeySealContext(key.kid);
      let privateKey: string;
      try {
        privateKey = cipher.open(key.privateKeyCiphertext, context);
      } catch (error) {
        if (!(error instanceof UnknownSecretError)) throw error;
        throw new ServiceError(
          'invalid_request',
          `The ${environment} signing key ${key.kid} is sealed under a server secret this run does not have (neither UGS_SECRET nor UGS_PREVIOUS_SECRET).`,
        );
      }
      if (await store.replaceSigningKeyCiphertext(environment, key.kid, key.privateKeyCiphertext, cipher.seal(privateKey, context)))
        resealed++;
    }
  }
  return resealed;
}

/**
 * Re-encrypts, under the cipher's current secret, every webhook signing
 * secret (current and previous) sealed under another one. Receivers see no
 * change. Returns how many were re-sealed.
 */
export async function resealWebhookSecrets(store: WebhookSecretResealStore, cipher: TokenCipher): Promise<number> {
  let resealed = 0;
  for (const webhook of await store.listWebhookSecrets()) {
    const context = webhookSecretSealContext(webhook.id);
    for (const [which, sealed] of [
      ['current', webhook.secretCiphertext],
      ['previous', webhook.previousSecretCiphertext],
    ] as const) {
      if (sealed === null || cipher.isCurrent(sealed)) continue;
      let secret: string;
      try {
        secret = cipher.open(sealed, context);
      } catch (error) {
        if (!(error instanceof UnknownSecretError)) throw error;
        throw new ServiceError(
          'invalid_request',
          `The secret of webhook ${webhook.id} is sealed under a server secret this run does not have (neither UGS_SECRET nor UGS_PREVIOUS_SECRET).`,
        );
      }
      if (await store.replaceWebhookSecretCiphertext(webhook.id, which, sealed, cipher.seal(secret, context))) resealed++;
    }
  }
  return resealed;
}

function openOrExplain(
  cipher: TokenCipher,
  ciphertext: Buffer,
  environment: Parameters<TokenCipher['decrypt']>[1],
  providedId: string,
  teamId: number,
): string {
  try {
    return cipher.decrypt(ciphertext, environment, providedId);
  } catch (error) {
    if (!(error instanceof UnknownSecretError)) throw error;
    throw new ServiceError(
      'invalid_request',
      `The token of team_id ${teamId} is sealed under a server secret this run does not have (neither UGS_SECRET nor UGS_PREVIOUS_SECRET); nothing else was changed for it.`,
    );
  }
}
