import { createHmac } from 'node:crypto';
import { invalidRequest } from '../kernel/errors.js';

/**
 * What Metabase embeds: a dashboard or a question (a saved chart), by its numeric id or its Entity ID (21 characters
 * of A-Z a-z 0-9 _ -, stable across a serialized Metabase's export and import; Metabase's static embedding docs:
 * "replace the item's (autopopulated) ID with its Entity ID").
 */
export type MetabaseId = number | string;
export type MetabaseResource = { dashboard: MetabaseId } | { question: MetabaseId };

/** Metabase's Entity ID: a NanoID of 21 characters (frontend/src/metabase-types/api/entity-id.ts, isBaseEntityID). */
export const METABASE_ENTITY_ID = /^[-_0-9A-Za-z]{21}$/;

/**
 * Where a locked parameter's value comes from, never from the caller's literal: the group's id, the group and its
 * descendants' ids, one of the group's effective properties, or one of the viewer's attributes.
 */
export type ParameterSource =
  { from: 'user_group_id' } | { from: 'user_group_subtree' } | { from: 'property'; name: string } | { from: 'viewer'; name: string };

export type LockedValue = string | number | boolean | (string | number | boolean)[];

const SOURCE_HELP =
  '"user_group_id", "user_group_subtree", "property:<name>" (one of the group\'s effective properties) or "viewer:<attribute>"';

export function checkedResource(resource: Record<string, unknown>): MetabaseResource {
  const entries = Object.entries(resource);
  const [kind, id] = entries[0] ?? [];
  if (entries.length !== 1 || (kind !== 'dashboard' && kind !== 'question'))
    throw invalidRequest('"resource" must be exactly one of {"dashboard": <id>} or {"question": <id>}.');
  const numeric = typeof id === 'number' && Number.isSafeInteger(id) && id >= 1;
  if (!numeric && !(typeof id === 'string' && METABASE_ENTITY_ID.test(id)))
    throw invalidRequest(
      `"resource.${kind}" must be the ${kind}'s id in Metabase: a positive whole number, or its Entity ID (21 characters of A-Z a-z 0-9 _ -).`,
    );
  return kind === 'dashboard' ? { dashboard: id } : { question: id };
}

/**
 * Parses each locked parameter's source; a parameter Metabase would not know how to fill is refused before signing,
 * and so is a token with no parameter bound to the group.
 */
export function checkedParameterSources(params: Record<string, string>): Map<string, ParameterSource> {
  const sources = new Map<string, ParameterSource>();
  for (const [slug, source] of Object.entries(params)) {
    if (!/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,254}$/.test(slug))
      throw invalidRequest(`"params" key ${JSON.stringify(slug)} is not a Metabase parameter slug (letters, digits, _ . -).`);
    sources.set(slug, parsedSource(slug, source));
  }
  // A viewer's attributes are the caller's to state: a token whose filters all come from them would let the caller
  // choose whose rows it shows. At least one filter is bound to the group, so the token never shows another group's.
  if (![...sources.values()].some((s) => s.from !== 'viewer'))
    throw invalidRequest(
      '"params" must lock at least one parameter to the group ("user_group_id", "user_group_subtree" or "property:<name>"): the filters are what keep a group to its own rows in Metabase.',
    );
  return sources;
}

function parsedSource(slug: string, source: string): ParameterSource {
  if (source === 'user_group_id' || source === 'user_group_subtree') return { from: source };
  const match = /^(property|viewer):(.+)$/.exec(source);
  if (!match) throw invalidRequest(`"params.${slug}" must name where its value comes from: ${SOURCE_HELP}.`);
  return { from: match[1] as 'property' | 'viewer', name: match[2]! };
}

/** A value Metabase can lock a filter to: a scalar or a list of scalars; anything else (null, an object) is refused. */
export function lockedValue(value: unknown, what: string): LockedValue {
  const scalar = (v: unknown): v is string | number | boolean =>
    typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));
  if (scalar(value)) return value;
  if (Array.isArray(value) && value.length > 0 && value.every(scalar)) return value;
  throw invalidRequest(`${what} cannot lock a Metabase filter: only a string, number, boolean or a non-empty list of them can.`);
}

/** The payload Metabase's static embedding verifies (its docs: resource, params, exp in seconds). */
export interface MetabasePayload {
  resource: MetabaseResource;
  params: Record<string, LockedValue>;
  exp: number;
}

/** HS256 under the embedding secret key's UTF-8 bytes, as Metabase's own examples sign with jwt.sign(payload, key). */
export function signMetabaseToken(payload: MetabasePayload, secretKey: string): string {
  const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const signingInput = `${encode({ alg: 'HS256', typ: 'JWT' })}.${encode(payload)}`;
  return `${signingInput}.${createHmac('sha256', Buffer.from(secretKey, 'utf8')).update(signingInput).digest('base64url')}`;
}

/** Where the token opens: Metabase's embed page for the resource, with its default frame options. */
export function embedUrl(siteUrl: string, resource: MetabaseResource, token: string): string {
  return `${siteUrl}/embed/${'dashboard' in resource ? 'dashboard' : 'question'}/${token}#bordered=true&titled=true`;
}
