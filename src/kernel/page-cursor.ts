import { invalidRequest } from './errors.js';

/**
 * The opaque cursors pages hand out: a versioned prefix and a position,
 * base64url so callers pass them back unchanged. A cursor the service did not
 * hand out is a 400 naming the query parameter that carried it.
 */
export function pageCursor(options: { prefix: string; minimum: number; parameter: string }) {
  return {
    encode(position: number): string {
      return Buffer.from(`${options.prefix}${position}`).toString('base64url');
    },
    decode(cursor: string): number {
      const text = Buffer.from(cursor, 'base64url').toString('utf8');
      const position = Number(text.slice(options.prefix.length));
      if (!text.startsWith(options.prefix) || !Number.isSafeInteger(position) || position < options.minimum) {
        throw invalidRequest(
          `"${options.parameter}" is not ${options.parameter === 'cursor' ? 'one' : 'a cursor'} this service handed out; pass next_cursor from the previous page unchanged.`,
        );
      }
      return position;
    },
  };
}
