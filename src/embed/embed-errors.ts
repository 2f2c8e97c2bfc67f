/**
 * Why a token was refused, to branch on (never on the message). revocations_unavailable is no fault of the
 * token: a verifier with an apiKey refuses every token while it cannot tell whether one was revoked (its
 * revocation feed was never read, or not within maxRevocationStalenessMs); the message says whether the
 * feed refuses the API key (it will not pass by itself) or is unreachable (it passes once the feed answers).
 */
export type EmbedTokenErrorCode = 'token_expired' | 'token_revoked' | 'token_invalid' | 'revocations_unavailable';

/**
 * A token the verifier refuses. The message says why in words a log can keep:
 * it never contains the token, which is a bearer credential until it expires.
 */
export class EmbedTokenError extends Error {
  override name = 'EmbedTokenError';

  constructor(
    readonly code: EmbedTokenErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** Why a query could not be bound, to branch on (never on the message). */
export type EmbedBindingErrorCode =
  'variable_missing' | 'variable_not_bindable' | 'placeholder_in_literal' | 'placeholder_malformed' | 'native_parameter';

/**
 * A query the binder refuses to bind. Binding fails closed: rather than run a
 * query whose filter silently dropped out, the dashboard gets this error.
 */
export class EmbedBindingError extends Error {
  override name = 'EmbedBindingError';

  constructor(
    readonly code: EmbedBindingErrorCode,
    message: string,
  ) {
    super(message);
  }
}
