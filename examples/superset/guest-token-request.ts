import type { UserGroupClient } from 'user-group-service/client';

/**
 * Superset's embedded dashboards accept only the guest tokens Superset signs itself (POST
 * /api/v1/security/guest_token/, HS256 under its GUEST_TOKEN_JWT_SECRET), so an embed session of this
 * service cannot open one. What this service gives a Superset integration is the group: this builds the
 * body of that guest-token request from the group as the service has it now, so the row-level clause
 * Superset adds to every query of the dashboard names the group's own rows and nothing a browser chose.
 */

/** One row-level rule: `column IN (…)` over the group's id (and its subtree's), or `column = <property>`. */
export interface SupersetRlsRule {
  /** The column Superset filters on, a plain SQL identifier. */
  column: string;
  /** Where the value comes from: the group's id (default), or one of its effective properties. */
  from?: { property: string };
  /** The Superset dataset id the rule applies to; every dataset of the dashboard when left out. */
  dataset?: number;
}

export interface SupersetGuestTokenOptions {
  /** The embedded dashboard's id, as Superset's "Embed dashboard" dialog shows it. */
  dashboardId: string;
  rls: readonly SupersetRlsRule[];
  /** Admit the group's descendants' rows too, for rules on the group's id. */
  includeDescendants?: boolean;
}

/** The body Superset's POST /api/v1/security/guest_token/ takes (superset/security/guest_token.py). */
export interface SupersetGuestTokenRequest {
  user: { username: string; first_name: string; last_name: string };
  resources: [{ type: 'dashboard'; id: string }];
  rls: { dataset?: number; clause: string }[];
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
// Characters some SQL dialects read as escapes or terminators inside a quoted literal (MySQL's backslash, NUL):
// refused rather than escaped, since the clause's dialect is the dataset's, which this code cannot know.
const unquotable = (value: string) => [...value].some((c) => c === '\\' || c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);

/** A value as a SQL literal every dialect reads the same way; throws for one it cannot say safely. */
export function sqlLiteral(value: unknown): string {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value !== 'string') throw new TypeError(`a ${value === null ? 'null' : typeof value} value cannot be a row-level filter`);
  if (unquotable(value)) throw new TypeError('a value with a backslash or a control character cannot be a row-level filter');
  return `'${value.replaceAll("'", "''")}'`;
}

/**
 * Reads the group (and, with includeDescendants, its subtree) through the client and builds the guest-token
 * request; throws before any token exists when a rule cannot be bound (an unknown group, a missing property, an
 * unsafe value), so a dashboard never opens without its filter.
 */
export async function supersetGuestTokenRequest(
  client: UserGroupClient,
  userGroupId: string,
  options: SupersetGuestTokenOptions,
): Promise<SupersetGuestTokenRequest> {
  const group = await client.get(userGroupId);
  const ids = [group.provided_id];
  if (options.includeDescendants) for await (const page of client.descendants(userGroupId)) ids.push(...page.map((g) => g.provided_id));
  if (options.rls.length === 0) throw new TypeError('at least one row-level rule is needed: without one the dashboard shows every row');
  const rls = options.rls.map((rule) => {
    if (!IDENTIFIER.test(rule.column)) throw new TypeError(`"${rule.column}" is not a plain column name`);
    const clause =
      rule.from === undefined
        ? `${rule.column} IN (${ids.map(sqlLiteral).join(', ')})`
        : `${rule.column} = ${sqlLiteral(propertyOf(group.effective_properties, rule.from.property, userGroupId))}`;
    return rule.dataset === undefined ? { clause } : { dataset: rule.dataset, clause };
  });
  return {
    user: { username: group.provided_id, first_name: group.name, last_name: '' },
    resources: [{ type: 'dashboard', id: options.dashboardId }],
    rls,
  };
}

function propertyOf(properties: Record<string, unknown> | null, name: string, userGroupId: string): unknown {
  const value = properties?.[name];
  if (value === undefined || value === null) throw new TypeError(`the group "${userGroupId}" has no property "${name}"`);
  return value;
}
