export { bindProperties, type BoundQuery, type BoundValue, type SqlDialect, type BindableClaims } from './property-binder.js';
export { EmbedTokenError, EmbedBindingError, type EmbedTokenErrorCode, type EmbedBindingErrorCode } from './embed-errors.js';
export type { EmbedClaims, EmbedJsonValue } from './embed-claims.js';
