import { SECRET_PREFIXES, secretFormat } from '../secrets/secret-format.js';

/** User group tokens: `ugt_` then 49 base62 characters. */
export const userGroupTokenFormat = secretFormat(SECRET_PREFIXES.userGroupToken);
