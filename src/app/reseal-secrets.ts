import { ServiceError } from '../kernel/errors.js';
import { ENVIRONMENTS } from '../kernel/environment.js';
import { UnknownSecretError, type TokenCipher } from '../secrets/token-cipher.js';
import { signingKeySealContext } from '../signing-keys/signing-key.js';
import type { SigningKeyStore } from '../signing-keys/signing-key-store.js';
import type { TokenResealStore } from '../user-groups/user-group-store.js';
import { webhookSecretSealContext } from '../webhooks/webhook.js';
import type { WebhookSecretResealStore } from '../webhooks/webhook-store.js';
import { dataSourcePasswordSealContext } from '../data-sources/data-source.js';
import type { DataSourceSecretResealStore } from '../data-sources/data-source-store.js';
import { metabaseSecretSealContext } from '../metabase/metabase-settings.js';
import type { MetabaseSecretResealStore } from '../metabase/metabase-store.js';

/**
 * Re-sealing, under the server secret a rotation moves to, of every secret the concepts keep sealed: user group
 * tokens, signing keys' private halves, webhook signing secrets, data source passwords, Metabase embedding secret
 * keys. Here in the root because it reaches into each of them (their seal contexts and storage ports); a concept
 * that comes to keep a sealed secret adds its pass here, and `ugs secret rotate` (rotate-server-secret.ts) runs it.
 */

const PAGE = 500;

export interface ResealSummary {
  scanned: number;
  resealed: number;
}

/**
 * Re-encrypts, under the cipher's current secret, every stored token sealed
 * under another one. Tokens do not change; only their ciphertexts do. Each row
 * is swapped only if it still holds the ciphertext read, so a rotation racing
 * with this (whose new token is sealed under the current secret) wins.
 */
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

/**
 * Re-encrypts, under the cipher's current secret, every data source password sealed under another one. Routers
 * see no change (the password, and the data source's version, stay). Returns how many were re-sealed.
 */
export async function resealDataSourcePasswords(store: DataSourceSecretResealStore, cipher: TokenCipher): Promise<number> {
  let resealed = 0;
  for (const source of await store.listDataSourcePasswords()) {
    if (cipher.isCurrent(source.passwordCiphertext)) continue;
    const context = dataSourcePasswordSealContext(source.environment, source.id);
    let password: string;
    try {
      password = cipher.open(source.passwordCiphertext, context);
    } catch (error) {
      if (!(error instanceof UnknownSecretError)) throw error;
      throw new ServiceError(
        'invalid_request',
        `The password of data source ${JSON.stringify(source.id)} (${source.environment}) is sealed under a server secret this run does not have (neither UGS_SECRET nor UGS_PREVIOUS_SECRET).`,
      );
    }
    const next = cipher.seal(password, context);
    if (await store.replaceDataSourcePasswordCiphertext(source.environment, source.id, source.passwordCiphertext, next)) resealed++;
  }
  return resealed;
}

/** Re-encrypts, under the cipher's current secret, each environment's Metabase embedding secret key sealed under another one. */
export async function resealMetabaseSecrets(store: MetabaseSecretResealStore, cipher: TokenCipher): Promise<number> {
  let resealed = 0;
  for (const settings of await store.listMetabaseSecrets()) {
    if (cipher.isCurrent(settings.secretCiphertext)) continue;
    const context = metabaseSecretSealContext(settings.environment);
    let secret: string;
    try {
      secret = cipher.open(settings.secretCiphertext, context);
    } catch (error) {
      if (!(error instanceof UnknownSecretError)) throw error;
      throw new ServiceError(
        'invalid_request',
        `The ${settings.environment} Metabase secret key is sealed under a server secret this run does not have (neither UGS_SECRET nor UGS_PREVIOUS_SECRET).`,
      );
    }
    if (await store.replaceMetabaseSecretCiphertext(settings.environment, settings.secretCiphertext, cipher.seal(secret, context)))
      resealed++;
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
