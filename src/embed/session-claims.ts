import type { EmbedClaims } from './embed-claims.js';

/** What withSessionClaims needs of a connection: node-postgres's Client and PoolClient have it. */
export interface SqlClient {
  query(text: string, values?: unknown[]): Promise<unknown>;
}

/** The claims PostgreSQL's policies read: a verified token's, or any object of that shape. */
export type PolicyClaims = Pick<EmbedClaims, 'sub' | 'props'> &
  Partial<Pick<EmbedClaims, 'tid' | 'env' | 'vid' | 'vat' | 'gprops' | 'anc' | 'desc'>>;

/** The setting the `ugs` schema's functions read (postgresPolicySql). */
export const CLAIMS_SETTING = 'ugs.claims';

/**
 * Only what a policy may read: the token's signature, expiry and origins are
 * the verifier's business, not the database's. `props` is the viewer's view
 * (ugs.viewer_prop); `gprops` the group's own properties (ugs.prop, what a
 * policy binds): the token's `gprops` when its viewer has attributes, else
 * `props`, which then is the group's own. A token with attributes but no
 * `gprops` (minted by a service before it carried them) sets none, so ugs.prop
 * is NULL and a property-bound policy admits nothing, rather than what a
 * viewer's attribute says.
 */
function settingOf(claims: PolicyClaims): string {
  const { sub, tid, env, vid, props, vat, gprops, anc, desc } = claims;
  return JSON.stringify({ sub, tid, env, vid, props, gprops: vat === undefined ? props : gprops, anc, desc });
}

/**
 * Sets the claims for the rest of the current transaction only; outside a
 * transaction they would be gone by the next statement. withSessionClaims
 * calls it, and `ugs isolation-check` (which rolls back instead of committing).
 */
export async function setSessionClaims(client: SqlClient, claims: PolicyClaims): Promise<void> {
  await client.query('SELECT pg_catalog.set_config($1, $2, true)', [CLAIMS_SETTING, settingOf(claims)]);
}

/**
 * Runs `fn(client)` in a transaction whose claims are the session's, so
 * row-level policies written with the `ugs` functions see the viewing group:
 * `set_config(…, true)` is transaction-local, so commit or rollback take the
 * claims away and a pooled connection goes back to the pool with none. Call it
 * outside a transaction (inside one, the claims would last until that one
 * ends). If `fn` commits by itself, what it runs afterwards has no claims and
 * sees no rows: the policies fail closed.
 */
export async function withSessionClaims<C extends SqlClient, T>(
  client: C,
  claims: PolicyClaims,
  fn: (client: C) => Promise<T>,
): Promise<T> {
  if (typeof claims?.sub !== 'string' || claims.sub === '') throw new TypeError('withSessionClaims needs verified claims with a "sub"');
  await client.query('BEGIN');
  let result: T;
  try {
    await setSessionClaims(client, claims);
    result = await fn(client);
  } catch (error) {
    // A connection the rollback cannot reach is broken anyway; the caller hears of the first failure.
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
  await client.query('COMMIT');
  return result;
}
