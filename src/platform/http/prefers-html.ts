/**
 * Whether the Accept header asks for HTML before JSON: a browser's
 * (`text/html,application/xhtml+xml,…,*\/*;q=0.8`) does; curl's `*\/*`, an API
 * client's `application/json` and no header at all do not. Only media types
 * named outright count: `*\/*` takes neither side, so whoever names neither
 * keeps the JSON answer. A tie goes to JSON.
 */
export function prefersHtml(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  let html = 0;
  let json = 0;
  for (const part of accept.split(',')) {
    const [type = '', ...parameters] = part.split(';').map((s) => s.trim().toLowerCase());
    const q = quality(parameters);
    if (type === 'text/html' || type === 'application/xhtml+xml') html = Math.max(html, q);
    else if (type === 'application/json' || type === 'application/*') json = Math.max(json, q);
  }
  return html > 0 && html > json;
}

function quality(parameters: string[]): number {
  const q = parameters.find((p) => p.startsWith('q='));
  if (q === undefined) return 1;
  const value = Number(q.slice(2));
  return Number.isFinite(value) && value >= 0 && value <= 1 ? value : 0;
}
