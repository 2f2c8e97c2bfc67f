/**
 * One pass over a JSON text for what JSON.parse accepts but would silently
 * change or cut short: nesting deeper than a limit, a key given twice in one
 * object (the last would win), and a number a double cannot hold exactly
 * (1e400 becomes Infinity, stored as null; 9007199254740993 becomes
 * ...992). The text need not be valid JSON: on invalid input the findings are
 * meaningless but the scan ends, and JSON.parse reports the error.
 */
export type JsonFinding =
  | { kind: 'too-deep' }
  | { kind: 'duplicate-key'; key: string; path: string[] }
  | { kind: 'inexact-number'; literal: string; becomes: string; path: string[] };

interface Frame {
  array: boolean;
  /** The position in an array. */
  index: number;
  /** The latest key of an object: the path to its value. */
  key: string;
  /** The keys so far; a Set once there are many (a list is faster to fill and search while short). */
  keys: string[] | Set<string> | undefined;
}

const LIST_KEYS_UP_TO = 16;

export function scanJson(text: string, maxDepth: number): JsonFinding | undefined {
  const frames: Frame[] = [];
  // A string right after `{` or `,` in an object is a key.
  let keyExpected = false;
  let finding: JsonFinding | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      let end = i + 1;
      let escaped = false;
      while (end < text.length) {
        const d = text.charCodeAt(end);
        if (d === 92 /* \ */) {
          escaped = true;
          end += 2;
        } else if (d === 34) break;
        else end++;
      }
      const top = frames[frames.length - 1];
      if (keyExpected && top !== undefined && finding === undefined)
        finding = addKey(top, frames, escaped ? decoded(text.slice(i, end + 1)) : text.slice(i + 1, end));
      keyExpected = false;
      i = end;
    } else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (frames.length >= maxDepth) return { kind: 'too-deep' };
      frames.push({ array: c === 91, index: 0, key: '', keys: undefined });
      keyExpected = c === 123;
    } else if (c === 125 /* } */ || c === 93 /* ] */) {
      frames.pop();
      keyExpected = false;
    } else if (c === 44 /* , */) {
      const top = frames[frames.length - 1];
      if (top?.array) top.index++;
      keyExpected = top !== undefined && !top.array;
    } else if (c === 45 /* - */ || (c >= 48 && c <= 57) /* 0-9 */) {
      let end = i + 1;
      while (end < text.length && isNumberChar(text.charCodeAt(end))) end++;
      // Fifteen characters hold at most 15 significant digits, which a double always keeps (exponents aside).
      if (finding === undefined && (end - i > 15 || hasExponent(text, i, end))) {
        const literal = text.slice(i, end);
        const becomes = inexactNumber(literal);
        if (becomes !== undefined) finding = { kind: 'inexact-number', literal, becomes, path: pathOf(frames) };
      }
      keyExpected = false;
      i = end - 1;
    }
  }
  return finding;
}

function addKey(top: Frame, frames: Frame[], key: string | undefined): JsonFinding | undefined {
  if (key === undefined || top.array) return undefined;
  const keys = top.keys;
  if (keys === undefined) top.keys = [key];
  else if (Array.isArray(keys)) {
    if (keys.includes(key)) return duplicate(key, frames);
    if (keys.length < LIST_KEYS_UP_TO) keys.push(key);
    else top.keys = new Set([...keys, key]);
  } else {
    if (keys.has(key)) return duplicate(key, frames);
    keys.add(key);
  }
  top.key = key;
  return undefined;
}

function duplicate(key: string, frames: readonly Frame[]): JsonFinding {
  return { kind: 'duplicate-key', key, path: pathOf(frames.slice(0, -1)) };
}

/** A key written with escapes, as JSON.parse reads it (`"\u0061"` is "a"); undefined when it is not valid. */
function decoded(quoted: string): string | undefined {
  try {
    return JSON.parse(quoted) as string;
  } catch {
    return undefined;
  }
}

function isNumberChar(c: number): boolean {
  return (c >= 48 && c <= 57) || c === 46 /* . */ || c === 101 /* e */ || c === 69 /* E */ || c === 43 /* + */ || c === 45; /* - */
}

function hasExponent(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if ((text.charCodeAt(i) | 32) === 101 /* e or E */) return true;
  return false;
}

function pathOf(frames: readonly Frame[]): string[] {
  return frames.map((frame) => (frame.array ? String(frame.index) : frame.key));
}

/**
 * What the number becomes when stored and read back, if that is not the
 * value written; undefined when it survives. -0 survives as 0: JSON has one
 * zero (RFC 8259 gives -0 no meaning of its own).
 */
export function inexactNumber(literal: string): string | undefined {
  // Fifteen characters without an exponent hold at most 15 significant digits, which a double always keeps.
  if (literal.length <= 15 && !literal.includes('e') && !literal.includes('E')) return undefined;
  const value = Number(literal);
  if (Number.isNaN(value)) return undefined;
  if (!Number.isFinite(value)) return 'null';
  const back = String(value);
  // Most long literals were written by a JSON serializer, which prints the shortest form: the same text.
  return back === literal || decimalValue(back) === decimalValue(literal) ? undefined : back;
}

/** A decimal literal as sign, significant digits and exponent, so `1.50e2`, `150` and `150.0` compare equal. */
function decimalValue(literal: string): string {
  const negative = literal.startsWith('-');
  let digits = '';
  let exponent = 0;
  let fraction = false;
  for (let i = negative ? 1 : 0; i < literal.length; i++) {
    const c = literal[i]!;
    if (c === '.') fraction = true;
    else if (c === 'e' || c === 'E') {
      exponent += Number(literal.slice(i + 1));
      break;
    } else {
      digits += c;
      if (fraction) exponent--;
    }
  }
  const significant = digits.replace(/^0+/, '');
  if (significant === '') return '0';
  const trimmed = significant.replace(/0+$/, '');
  return `${negative ? '-' : ''}${trimmed}e${exponent + significant.length - trimmed.length}`;
}
