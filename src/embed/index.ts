export { createEmbedVerifier, type EmbedVerifier, type EmbedVerifierStatus } from './embed-verifier.js';
export type { EmbedVerifierOptions, EmbedEnvironment } from './embed-verifier-options.js';
export { bindProperties, type BoundQuery, type BoundValue, type SqlDialect, type BindableClaims } from './property-binder.js';
export {
  EmbedTokenError,
  EmbedBindingError,
  DataRouterError,
  type EmbedTokenErrorCode,
  type EmbedBindingErrorCode,
  type DataRouterErrorCode,
} from './embed-errors.js';
export type { EmbedClaims, EmbedJsonValue } from './embed-claims.js';
export type { SigningKeyStatus } from './signing-key-set.js';
export type { RevocationFeedStatus } from './revocation-feed.js';
export { withSessionClaims, type SqlClient, type PolicyClaims } from './session-claims.js';
export { postgresPolicySql, tablePolicySql, type PolicyColumnType, type TablePolicyOptions } from './postgres-policies.js';
export { createDataRouter, type DataRouter, type RoutedClaims } from './data-router.js';
export type { DataRouterOptions } from './data-router-options.js';
export {
  createCubeCheckAuth,
  type CubeCheckAuth,
  type CubeCheckAuthOptions,
  type CubeAuthRequest,
  type CubeHandlerErrorClass,
} from './cube-check-auth.js';
