/**
 * The little of each SQL dialect the binder must know: where text is not
 * code (string literals, quoted identifiers, comments), and which native
 * parameter markers exist. One object per dialect; the binder never asks
 * which database it is.
 */

export type SqlDialect = 'postgres' | 'sqlite';

/** A stretch that is not code: what it is (for messages) and where it ends (exclusive; the text's end when unterminated). */
export interface QuotedRegion {
  readonly kind: 'a string literal' | 'a quoted identifier' | 'a comment' | 'a dollar-quoted string';
  readonly end: number;
}

export interface SqlLexicon {
  /** The region starting at i, if one does. */
  quotedAt(sql: string, i: number): QuotedRegion | undefined;
  /** The native parameter marker starting at i ($1, ?, :name, #name...), if one does. */
  nativeParameterAt(sql: string, i: number): string | undefined;
}

/** Letters, digits, _ and $ (both dialects allow $ inside identifiers) and anything beyond ASCII. */
export function isIdentifierChar(ch: string | undefined): boolean {
  return ch !== undefined && (/[A-Za-z0-9_$]/.test(ch) || ch.charCodeAt(0) > 0x7f);
}

function until(sql: string, from: number, closer: string): number {
  const at = sql.indexOf(closer, from);
  return at === -1 ? sql.length : at + closer.length;
}

/** A quoted run where the quote doubled stands for itself ('it''s', "a""b"). */
function doubledQuoteEnd(sql: string, from: number, quote: string): number {
  let i = from + 1;
  for (;;) {
    const at = sql.indexOf(quote, i);
    if (at === -1) return sql.length;
    if (sql[at + 1] !== quote) return at + 1;
    i = at + 2;
  }
}

/** PostgreSQL's E'...' strings, where a backslash escapes the next character. */
function backslashQuoteEnd(sql: string, from: number): number {
  for (let i = from + 1; i < sql.length; i++) {
    if (sql[i] === '\\') i++;
    else if (sql[i] === "'") {
      if (sql[i + 1] !== "'") return i + 1;
      i++;
    }
  }
  return sql.length;
}

/** PostgreSQL block comments nest: /* a /* b *\/ still a *\/. */
function nestedCommentEnd(sql: string, from: number): number {
  let depth = 0;
  for (let i = from; i < sql.length - 1; i++) {
    if (sql[i] === '/' && sql[i + 1] === '*') {
      depth++;
      i++;
    } else if (sql[i] === '*' && sql[i + 1] === '/') {
      depth--;
      i++;
      if (depth === 0) return i + 1;
    }
  }
  return sql.length;
}

const DOLLAR_TAG = /\$(?:[A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/y;

const postgres: SqlLexicon = {
  quotedAt(sql, i) {
    const ch = sql[i];
    if (ch === "'") {
      const escaped = (sql[i - 1] === 'E' || sql[i - 1] === 'e') && !isIdentifierChar(sql[i - 2]);
      return { kind: 'a string literal', end: escaped ? backslashQuoteEnd(sql, i) : doubledQuoteEnd(sql, i, "'") };
    }
    if (ch === '"') return { kind: 'a quoted identifier', end: doubledQuoteEnd(sql, i, '"') };
    if (ch === '-' && sql[i + 1] === '-') return { kind: 'a comment', end: until(sql, i, '\n') };
    if (ch === '/' && sql[i + 1] === '*') return { kind: 'a comment', end: nestedCommentEnd(sql, i) };
    if (ch === '$' && !isIdentifierChar(sql[i - 1])) {
      DOLLAR_TAG.lastIndex = i;
      const tag = DOLLAR_TAG.exec(sql)?.[0];
      if (tag !== undefined) return { kind: 'a dollar-quoted string', end: until(sql, i + tag.length, tag) };
    }
    return undefined;
  },
  nativeParameterAt(sql, i) {
    if (sql[i] !== '$' || isIdentifierChar(sql[i - 1])) return undefined;
    return /^\$\d+/.exec(sql.slice(i, i + 12))?.[0];
  },
};

const sqlite: SqlLexicon = {
  quotedAt(sql, i) {
    const ch = sql[i];
    if (ch === "'") return { kind: 'a string literal', end: doubledQuoteEnd(sql, i, "'") };
    if (ch === '"' || ch === '`') return { kind: 'a quoted identifier', end: doubledQuoteEnd(sql, i, ch) };
    if (ch === '[') return { kind: 'a quoted identifier', end: until(sql, i, ']') };
    if (ch === '-' && sql[i + 1] === '-') return { kind: 'a comment', end: until(sql, i, '\n') };
    if (ch === '/' && sql[i + 1] === '*') return { kind: 'a comment', end: until(sql, i + 2, '*/') };
    return undefined;
  },
  // SQLite's tokenizer reads :name, @name, #name and $name alike (any identifier character after the sign).
  nativeParameterAt(sql, i) {
    const ch = sql[i];
    if (ch === '?') return /^\?\d*/.exec(sql.slice(i, i + 12))?.[0];
    if ((ch === ':' || ch === '@' || ch === '#' || (ch === '$' && !isIdentifierChar(sql[i - 1]))) && isIdentifierChar(sql[i + 1])) {
      return /^[:@#$][A-Za-z0-9_$\u0080-\uffff]+/.exec(sql.slice(i, i + 64))?.[0];
    }
    return undefined;
  },
};

export const SQL_LEXICONS: Record<SqlDialect, SqlLexicon> = { postgres, sqlite };
