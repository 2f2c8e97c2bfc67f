/** The pieces every chart's markup is built from: charts are strings placed with Eta's <%~ %>, outside its autoEscape. */

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text made safe for HTML and SVG alike, in element content and in quoted attributes: every label and date is data. */
export function escapeMarkup(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ENTITIES[character]!);
}

const ID = /^[A-Za-z][A-Za-z0-9_-]*$/;

/** An element id the page chose (never data): one token, so it can sit in aria-labelledby's list. */
export function checkedId(id: string): string {
  if (!ID.test(id)) throw new TypeError(`A chart id is one token of letters, digits, - and _ (got ${JSON.stringify(id)})`);
  return id;
}

/** A coordinate to two decimals: exact enough for any screen, and short markup. */
export function coordinate(value: number): string {
  return String(Math.round(value * 100) / 100);
}
