import assert from 'node:assert/strict';
import { XMLParser, XMLValidator } from 'fast-xml-parser';

/** A parsed element: attributes by name, text under '#text', children by tag name (always arrays, for the tags listed). */
export type Element = Record<string, unknown> & { '#text'?: string | number };

const REPEATED = new Set(['rect', 'text', 'line', 'circle', 'tr', 'th', 'td', 'polyline']);
const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  parseAttributeValue: false,
  parseTagValue: false,
  trimValues: false,
  alwaysCreateTextNode: true,
  isArray: (name) => REPEATED.has(name),
});

/** The markup parsed strictly as XML (so it is well-formed in HTML's and SVG's eyes alike), failing the test if it is not. */
export function parseMarkup(markup: string): Element {
  const valid = XMLValidator.validate(markup);
  assert.equal(valid, true, `well-formed: ${JSON.stringify(valid)}\n${markup}`);
  return parser.parse(markup) as Element;
}

export function child(element: Element, name: string): Element {
  const found = element[name];
  assert.ok(found !== undefined, `<${name}> in ${JSON.stringify(element).slice(0, 200)}`);
  return (Array.isArray(found) ? found[0] : found) as Element;
}

export function children(element: Element, name: string): Element[] {
  return (element[name] as Element[] | undefined) ?? [];
}

export function attribute(element: Element, name: string): string {
  const value = element[`@${name}`];
  assert.equal(typeof value, 'string', `@${name} on ${JSON.stringify(element).slice(0, 200)}`);
  return value as string;
}

export function text(element: Element): string {
  return String(element['#text'] ?? '');
}

/** A daily series of the given values, one a day from 1 March 2026 (UTC midnights, as the usage API answers). */
export function days(values: readonly number[]): { start: string; value: number }[] {
  return values.map((value, i) => ({ start: new Date(Date.UTC(2026, 2, 1 + i)).toISOString(), value }));
}

/** Text a chart must show as text, never as markup: closes the element it sits in, opens a script, breaks out of an attribute. */
export const HOSTILE = `</title></svg><script>alert(1)</script><img src=x onerror="alert(2)"> & 'quoted' "double"`;
