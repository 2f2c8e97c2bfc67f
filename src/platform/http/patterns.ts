import { SEALED_PATTERN } from '../../kernel/position-seal.js';

/**
 * Every `pattern` the request schemas use, beside its rule in words: a value
 * that breaks one is told that rule (validation-message.ts), not the regular
 * expression. A test checks that every pattern in the OpenAPI document is here.
 */
export const PATTERNS = {
  // C0 controls and DEL are refused in identifiers: they break logs and some databases.
  printable: { pattern: '^[^\\u0000-\\u001f\\u007f]+$', rule: 'must not contain control characters (U+0000 to U+001F, U+007F)' },
  sealedCursor: {
    pattern: SEALED_PATTERN,
    rule: 'must be a next_cursor this service handed out, unchanged: 22 characters of A-Z, a-z, 0-9, "-" and "_"',
  },
} as const;

const RULES = new Map<string, string>(Object.values(PATTERNS).map(({ pattern, rule }) => [pattern, rule]));

/** The rule a pattern stands for; a pattern missing from PATTERNS is named as is rather than misdescribed. */
export function patternRule(pattern: string): string {
  return RULES.get(pattern) ?? `must match the pattern ${pattern}`;
}
