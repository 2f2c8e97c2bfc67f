import { EmbedTokenError } from './embed-errors.js';

/** A JSON value as a token's `props` carries it. */
export type EmbedJsonValue = string | number | boolean | null | readonly EmbedJsonValue[] | { readonly [key: string]: EmbedJsonValue };

/** The claims of a verified embed token (deeply frozen: the verifier hands the same object to every caller). */
export interface EmbedClaims {
  readonly iss: string;
  readonly aud: string | readonly string[];
  /** The viewing user group's id (user_group_id). */
  readonly sub: string;
  readonly env: 'Customer' | 'Testing';
  /** The group's team id (team_id). */
  readonly tid: number;
  /** The group's display name. */
  readonly name: string;
  /** The group's mapping: schema name -> data source name; `{}` when none. */
  readonly map: Readonly<Record<string, string | number>>;
  /** The group's properties, the variables of its dashboards, with the viewer's attributes over them (vat); `{}` when none. */
  readonly props: Readonly<Record<string, EmbedJsonValue>>;
  /** The group's own properties, without the viewer's attributes: present when vat is (else props are the group's own). */
  readonly gprops?: Readonly<Record<string, EmbedJsonValue>>;
  /** The group's token version, opaque: it changes on every rotation of the group token. */
  readonly tv: string;
  /** The embed session's id (session_id). */
  readonly jti: string;
  readonly iat: number;
  readonly exp: number;
  /** The dashboard the session was minted for, when given. */
  readonly dsh?: string;
  /** The origins allowed to frame the dashboard, when given (for CSP frame-ancestors). */
  readonly org?: readonly string[];
  /** Ancestor group ids, root first, when the group sits in a hierarchy. */
  readonly anc?: readonly string[];
  /** Descendant group ids, when the group sits in a hierarchy. */
  readonly desc?: readonly string[];
  /** The viewer's id, when the session was minted for one (its attributes are already in props). */
  readonly vid?: string;
  /** The viewer's attributes as given when the session was minted (props holds them overlaid); renewals carry them. */
  readonly vat?: Readonly<Record<string, EmbedJsonValue>>;
}

type Payload = Record<string, unknown>;

function invalid(claim: string, expected: string): EmbedTokenError {
  return new EmbedTokenError('token_invalid', `the "${claim}" claim is missing or not ${expected}`);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

function requireString(payload: Payload, claim: string): void {
  if (typeof payload[claim] !== 'string' || payload[claim] === '') throw invalid(claim, 'a non-empty string');
}

function optional(payload: Payload, claim: string, check: (value: unknown) => boolean, expected: string): void {
  if (payload[claim] !== undefined && !check(payload[claim])) throw invalid(claim, expected);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

/**
 * The claims every embed token carries, with their types (iss, aud and exp
 * have already been checked against the options by jose). Throws
 * token_invalid naming the first claim that is wrong.
 */
export function parseEmbedClaims(payload: Payload): EmbedClaims {
  for (const claim of ['sub', 'name', 'tv', 'jti']) requireString(payload, claim);
  if (payload.env !== 'Customer' && payload.env !== 'Testing') throw invalid('env', '"Customer" or "Testing"');
  if (!Number.isSafeInteger(payload.tid)) throw invalid('tid', 'an integer');
  for (const claim of ['iat', 'exp']) {
    if (typeof payload[claim] !== 'number' || !Number.isFinite(payload[claim])) throw invalid(claim, 'a number');
  }
  const map = payload.map;
  if (!isPlainObject(map) || !Object.values(map).every((v) => typeof v === 'string' || typeof v === 'number')) {
    throw invalid('map', 'an object of strings');
  }
  if (!isPlainObject(payload.props)) throw invalid('props', 'an object');
  for (const claim of ['dsh', 'vid']) optional(payload, claim, (v) => typeof v === 'string', 'a string');
  for (const claim of ['vat', 'gprops']) optional(payload, claim, isPlainObject, 'an object');
  for (const claim of ['org', 'anc', 'desc']) optional(payload, claim, isStringArray, 'an array of strings');
  return deepFreeze(payload) as unknown as EmbedClaims;
}
