/**
 * What every part agrees on about embed tokens: the algorithms their keys may use (the settings validate
 * UGS_EMBED_ALGORITHM against them, and the settings load for every command) and how long tokens, sessions and
 * the keys and revocations that cover them live.
 */

/** Asymmetric only: a verifier holding the published key must never be able to mint. */
export const SIGNING_ALGORITHMS = ['EdDSA', 'ES256', 'RS256'] as const;
export type SigningAlgorithm = (typeof SIGNING_ALGORITHMS)[number];

/** The longest an embed session may live (expires_in's upper bound): how long a retired key stays published. */
export const MAX_SESSION_SECONDS = 86_400;
/** Verifiers' clocks may run this far behind ours: keys stay published, revocations remembered, this much longer. */
export const CLOCK_TOLERANCE_SECONDS = 60;

/**
 * The longest a session lives through its renewals (max_lifetime's upper bound), however often its
 * token is renewed: how long a revocation that ends whole sessions must be kept.
 */
export const MAX_SESSION_LIFETIME_SECONDS = 7 * 86_400;
