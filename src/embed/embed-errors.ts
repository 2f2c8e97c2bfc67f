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
    /**
     * With token_revoked, the revocation feed's reason, so a dashboard can say what ended the session:
     * session_revoked, token_rotated, user_group_deleted, user_group_renamed or viewer_revoked (a newer
     * service may add others).
     */
    readonly revocationReason?: string,
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

/**
 * Why the data router ran nothing, to branch on (never on the message):
 * - unknown_schema: the session's mapping (`map`) has no such schema id;
 * - unresolved_data_source: the service has no data source of that id in its environment (never created, or deleted);
 * - environment_mismatch: the session's environment is not the router's, or not the data source's;
 * - unsupported_kind: the data source is of a kind this router cannot connect to;
 * - service_unavailable: the service could not say what the data source is now (unreachable, refused the key, answered
 *   something else), so no connection is trusted to be current;
 * - database_unavailable: the data source's database refused or timed out the connection;
 * - router_closed: close() was called;
 * - client_released: the connection handed to `fn` was used after `fn` had settled.
 */
export type DataRouterErrorCode =
  | 'unknown_schema'
  | 'unresolved_data_source'
  | 'environment_mismatch'
  | 'unsupported_kind'
  | 'service_unavailable'
  | 'database_unavailable'
  | 'router_closed'
  | 'client_released';

/**
 * A run the data router refused or could not start: with every code but
 * client_released, none of the run's statements reached a database. The
 * message names the schema and data source ids, never a credential.
 */
export class DataRouterError extends Error {
  override name = 'DataRouterError';

  constructor(
    readonly code: DataRouterErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
