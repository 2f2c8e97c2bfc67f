import type { Logger } from 'pino';
import type { SigningAlgorithm } from '../signing-keys/signing-key.js';
import { keysOfAnotherAlgorithm, type SigningKeyring } from '../signing-keys/signing-keys.js';
import { JWKS_PATHS } from '../signing-keys/http/jwks-paths.js';

/**
 * One warning per environment whose active key is of another algorithm than UGS_EMBED_ALGORITHM, as a store made
 * while EdDSA was the default is: its keys keep signing (tokens handed out keep verifying) until a rotation, which
 * the operator runs when its verifiers are ready. Said by the process that opens the store first at start (the
 * server, or the primary of UGS_WORKERS), so a deployment says it once.
 */
export function warnOfAnotherSigningAlgorithm(ring: SigningKeyring, configured: SigningAlgorithm, logger: Logger): void {
  for (const { environment, signing } of keysOfAnotherAlgorithm(ring, configured))
    logger.warn(
      { environment, signing, configured },
      `${environment} embed tokens are signed with ${signing}, UGS_EMBED_ALGORITHM is ${configured}: \`ugs signing-keys rotate --environment ${environment}\` moves to it (verifiers that read both keep working through the rotation; one that reads only ${configured} uses ${JWKS_PATHS[environment]}?alg=${configured})`,
    );
}
