import type { EmbedClaims } from './embed-claims.js';
import { EmbedBindingError } from './embed-errors.js';
import { isIdentifierChar, SQL_LEXICONS, type SqlDialect } from './sql-lexicon.js';
import { PARAMETER_STYLES, type Scalar } from './parameter-style.js';

export type { SqlDialect } from './sql-lexicon.js';

/** What a placeholder may be bound to: a scalar, or a list after IN. */
export type BoundValue = Scalar | readonly Scalar[];

/** Parameterised SQL for node-postgres (`client.query(text, values)`) or better-sqlite3 (`db.prepare(text).all(...values)`). */
export interface BoundQuery {
  readonly text: string;
  readonly values: BoundValue[];
}

/** The claims the binder reads: a verified token's, or any object of that shape. */
export type BindableClaims = Pick<EmbedClaims, 'sub' | 'tid' | 'props' | 'anc' | 'desc'>;

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/y;
const PLACEHOLDER_ANYWHERE = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/;
const MISSING = Symbol('missing');

/**
 * `{{ name }}` in a dashboard's SQL, replaced by a bound parameter holding the
 * session's value: `claims.props[name]`, or the built-ins user_group_id (sub),
 * team_id (tid), anc and desc (when the claims carry them; they win over
 * properties of the same name). `IN {{ list }}` binds a list. The values never
 * enter the SQL text. Fails closed (EmbedBindingError) on a variable the
 * session lacks, a value that cannot be bound there, a placeholder inside a
 * literal, identifier or comment, a malformed placeholder or one touching an
 * identifier character (`{{ t }}1`), and on the dialect's own parameter
 * markers (they would shift the bound values).
 */
export function bindProperties(sql: string, claims: BindableClaims, dialect: SqlDialect): BoundQuery {
  const lexicon = SQL_LEXICONS[dialect];
  const style = PARAMETER_STYLES[dialect]();
  let text = '';
  let copied = 0;
  // Where the current stretch of code began (after the last literal or comment): IN is looked for only within it.
  let codeStart = 0;
  for (let i = 0; i < sql.length;) {
    const region = lexicon.quotedAt(sql, i);
    if (region !== undefined) {
      const inside = PLACEHOLDER_ANYWHERE.exec(sql.slice(i, region.end));
      if (inside !== null) {
        throw new EmbedBindingError(
          'placeholder_in_literal',
          `{{ ${inside[1]} }} is inside ${region.kind} (at offset ${i + inside.index}); a bound value cannot be spliced into text: put the placeholder outside the quotes, e.g. '%' || {{ ${inside[1]} }} || '%'`,
        );
      }
      i = codeStart = region.end;
      continue;
    }
    const native = lexicon.nativeParameterAt(sql, i);
    if (native !== undefined) {
      throw new EmbedBindingError(
        'native_parameter',
        `"${native}" (at offset ${i}) is a ${dialect} parameter marker; write {{ variable }} instead (both in one query would shift the bound values)`,
      );
    }
    if (sql[i] !== '{' || sql[i + 1] !== '{') {
      i++;
      continue;
    }
    PLACEHOLDER.lastIndex = i;
    const name = PLACEHOLDER.exec(sql)?.[1];
    if (name === undefined) {
      throw new EmbedBindingError(
        'placeholder_malformed',
        `"{{" (at offset ${i}) does not start a placeholder {{ name }} (name: letters, digits and _, not starting with a digit)`,
      );
    }
    const keyword = inKeywordBefore(sql, i, codeStart);
    refuseRunningInto(sql, i, PLACEHOLDER.lastIndex, name, keyword === undefined);
    const value = lookUp(claims, name);
    if (keyword === undefined) {
      text += sql.slice(copied, i) + style.scalar(name, scalarOf(name, value));
    } else {
      text += sql.slice(copied, keyword.start) + style.list(name, listOf(name, value), keyword.negated);
    }
    i = copied = PLACEHOLDER.lastIndex;
  }
  return { text: text + sql.slice(copied), values: style.values };
}

/**
 * A parameter marker touching an identifier character reads as another token:
 * `{{ t }}1` would bind as `?1` (SQLite's first parameter) or `$11`, and
 * `x{{ t }}` as the PostgreSQL identifier `x$1`. Before the placeholder only
 * a scalar counts: after IN, the keyword is what gets replaced.
 */
function refuseRunningInto(sql: string, start: number, end: number, name: string, scalar: boolean): void {
  let touching: string;
  // Whole code points, so a character beyond the BMP is named whole.
  if (isIdentifierChar(sql[end])) touching = `followed by "${String.fromCodePoint(sql.codePointAt(end)!)}"`;
  else if (scalar && isIdentifierChar(sql[start - 1])) touching = `preceded by "${[...sql.slice(Math.max(0, start - 2), start)].pop()!}"`;
  else return;
  throw new EmbedBindingError(
    'placeholder_malformed',
    `{{ ${name} }} (at offset ${start}) is immediately ${touching}: the bound parameter would run into it and read as another token (another parameter or an identifier); put a space or an operator between them`,
  );
}

const BUILT_INS: Record<string, (claims: BindableClaims) => unknown> = {
  user_group_id: (claims) => claims.sub,
  team_id: (claims) => claims.tid,
  anc: (claims) => claims.anc ?? MISSING,
  desc: (claims) => claims.desc ?? MISSING,
};

function lookUp(claims: BindableClaims, name: string): unknown {
  const builtIn = Object.hasOwn(BUILT_INS, name) ? BUILT_INS[name]!(claims) : undefined;
  if (builtIn === MISSING)
    throw new EmbedBindingError(
      'variable_missing',
      `{{ ${name} }}: the session carries no "${name}" claim (its user group is in no hierarchy)`,
    );
  if (builtIn !== undefined) return builtIn;
  const props = claims.props as Record<string, unknown> | null | undefined;
  // Own properties only: {{ constructor }} must not find Object.prototype's.
  if (typeof props !== 'object' || props === null || !Object.hasOwn(props, name)) {
    throw new EmbedBindingError('variable_missing', `{{ ${name} }}: the user group has no property "${name}"`);
  }
  return props[name];
}

function isScalar(value: unknown): value is Scalar {
  return value === null || typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
}

function scalarOf(name: string, value: unknown): Scalar {
  if (isScalar(value)) return value;
  const what = Array.isArray(value)
    ? `a list; a list binds only after IN (IN {{ ${name} }})`
    : `${describe(value)}; only strings, numbers, booleans and null can be bound`;
  throw new EmbedBindingError('variable_not_bindable', `{{ ${name} }} is ${what}`);
}

/** A list's items, or a lone scalar as a list of one. */
function listOf(name: string, value: unknown): readonly Scalar[] {
  if (isScalar(value)) return [value];
  if (Array.isArray(value) && value.every(isScalar)) return value;
  throw new EmbedBindingError(
    'variable_not_bindable',
    `{{ ${name} }} after IN is ${describe(value)}; only a list of strings, numbers, booleans and null can be bound there`,
  );
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'a list holding lists, objects or non-finite numbers';
  if (typeof value === 'number') return 'a non-finite number';
  return value === null || typeof value !== 'object' ? `a ${typeof value}` : 'an object';
}

function skipSpaceBack(sql: string, at: number, floor: number): number {
  let j = at;
  while (j > floor && /\s/.test(sql[j - 1]!)) j--;
  return j;
}

function wordEndsAt(sql: string, end: number, word: string, floor: number): boolean {
  const start = end - word.length;
  return start >= floor && sql.slice(start, end).toUpperCase() === word && !isIdentifierChar(sql[start - 1]);
}

/** `IN` or `NOT IN` right before a placeholder (whitespace between), within the same stretch of code. */
function inKeywordBefore(sql: string, at: number, floor: number): { start: number; negated: boolean } | undefined {
  const inEnd = skipSpaceBack(sql, at, floor);
  if (!wordEndsAt(sql, inEnd, 'IN', floor)) return undefined;
  const notEnd = skipSpaceBack(sql, inEnd - 2, floor);
  if (notEnd < inEnd - 2 && wordEndsAt(sql, notEnd, 'NOT', floor)) return { start: notEnd - 3, negated: true };
  return { start: inEnd - 2, negated: false };
}
