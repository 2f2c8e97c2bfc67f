import { invalidRequest } from '../kernel/errors.js';
import type { Mapping, Properties, UserGroup } from '../user-groups/user-group.js';

/**
 * A customer, as the Customer API shows one: the group with its token, and the properties and mapping it
 * inherits (its `computed_properties` and `computed_parent_schema_datasource_mapping`).
 */
export interface Customer {
  group: UserGroup;
  computedProperties: Properties;
  computedMapping: Mapping;
}

export const CUSTOMER_LIMITS = {
  emailsMax: 100,
  emailMaxLength: 320,
  /** Customers a v2 page holds by default and at most (the reference's numbers). */
  pageSizeDefault: 20,
  pageSizeMax: 1000,
  /** Customers the deprecated v1 list answers at most: past it, page with v2. */
  v1Max: 10_000,
} as const;

/**
 * The addresses as given, duplicates dropped: each one line of at most 320 characters with an "@" (the reference
 * sends them to no one and checks nothing more; neither does this service).
 */
export function checkEmails(emails: readonly string[]): string[] {
  const unique = [...new Set(emails)];
  if (unique.length > CUSTOMER_LIMITS.emailsMax) {
    throw invalidRequest(`"emails" has ${unique.length} addresses; a customer has at most ${CUSTOMER_LIMITS.emailsMax}.`);
  }
  for (const email of unique) {
    // eslint-disable-next-line no-control-regex
    if (email.length > CUSTOMER_LIMITS.emailMaxLength || !email.includes('@') || /[\u0000-\u001f\u007f]/.test(email)) {
      throw invalidRequest(
        `"emails" entry ${JSON.stringify(email)} is not an email address (one line, at most 320 characters, with an "@").`,
      );
    }
  }
  return unique;
}
