import { signingKeyRotatedData } from '../events/event-payload.js';
import { unauditedEvent, type WriteConsequences } from '../consequences/write-consequences.js';
import type { SigningKeyRecord } from './signing-key.js';

/** A signing key rotated in: its event in the key's environment, so verifiers can fetch the new key ahead of its use. */
export function signingKeyRotated(key: SigningKeyRecord): WriteConsequences {
  return unauditedEvent('signing_key.rotated', key.createdAt, signingKeyRotatedData(key.environment, key.kid, key.activatesAt));
}
