/**
 * How the API key cache learns that a key was revoked anywhere: by this
 * process, the CLI, another worker or another replica. The store behind it
 * tells; the domain only compares numbers.
 *
 * Asked on every request answered from the cache, so it must be synchronous
 * and cheap.
 */
export interface KeyRevocationSignal {
  /**
   * A number that changes whenever a key is revoked anywhere, no later than
   * when the revocation is committed; undefined while that cannot be told (the
   * cache must then be neither used nor filled). After an undefined it must
   * return a number it has never returned before, since revocations may have
   * been missed meanwhile.
   */
  epoch(): number | undefined;
}

/** For callers with no signal: nothing is ever cached. */
export const NO_REVOCATION_SIGNAL: KeyRevocationSignal = { epoch: () => undefined };
