import { SQL_LEXICONS } from '../embed/sql-lexicon.js';

/** One statement of a .sql file: its text (without the `;`), its number among the file's statements and the line its code starts on. */
export interface SqlStatement {
  number: number;
  line: number;
  text: string;
  /** The line its code starts on (not a comment before it), shortened, to name it in a report. */
  firstLine: string;
}

const FIRST_LINE_MAX = 80;

/**
 * A PostgreSQL script's statements: split on `;` outside string literals,
 * quoted identifiers, comments and dollar-quoted bodies (the binder's own
 * lexicon, so both read the text alike); statements holding only whitespace
 * and comments are left out.
 */
export function splitStatements(script: string): SqlStatement[] {
  const lexicon = SQL_LEXICONS.postgres;
  const statements: SqlStatement[] = [];
  let start = 0;
  // Where the statement's first code is (-1: none yet): a comment ending the line before is not what names it.
  let code = -1;
  const close = (end: number) => {
    if (code !== -1) {
      const lineStart = script.lastIndexOf('\n', code - 1) + 1;
      const lineEnd = script.indexOf('\n', code);
      const firstLine = script.slice(Math.max(start, lineStart), Math.min(end, lineEnd === -1 ? end : lineEnd)).trim();
      statements.push({
        number: statements.length + 1,
        line: lineAt(script, code),
        text: script.slice(start, end).trim(),
        firstLine: shorten(firstLine),
      });
    }
    start = end + 1;
    code = -1;
  };
  for (let i = 0; i < script.length;) {
    const region = lexicon.quotedAt(script, i);
    if (region !== undefined) {
      if (region.kind !== 'a comment' && code === -1) code = i;
      i = region.end;
      continue;
    }
    if (script[i] === ';') close(i);
    else if (code === -1 && !/\s/.test(script[i]!)) code = i;
    i++;
  }
  close(script.length);
  return statements;
}

function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

function shorten(line: string): string {
  return line.length > FIRST_LINE_MAX ? `${line.slice(0, FIRST_LINE_MAX - 1)}…` : line;
}

const TRANSACTION_CONTROL = /^(begin|start|commit|end|rollback|abort|savepoint|release|prepare\s+transaction)\b/i;

/**
 * Whether the statement begins or ends a transaction: the check runs each
 * query in a transaction it rolls back, which such a statement would end
 * early (a COMMIT would keep what the queries after it write).
 */
export function controlsTransaction(statement: string): boolean {
  const lexicon = SQL_LEXICONS.postgres;
  let i = 0;
  // Past leading comments and whitespace to the first keyword.
  for (;;) {
    while (i < statement.length && /\s/.test(statement[i]!)) i++;
    const region = lexicon.quotedAt(statement, i);
    if (region?.kind !== 'a comment') break;
    i = region.end;
  }
  return TRANSACTION_CONTROL.test(statement.slice(i));
}
