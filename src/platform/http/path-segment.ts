/**
 * An id as one URL path segment, for the typed client's paths and the console's links: percent-encoded,
 * so `/`, `%`, `?`, `#` and non-ASCII stay inside it, and `.` and `..` as `%2E` and `%2E%2E`, which the
 * service's router decodes back to the id. Whatever parses the URL on the way may still resolve those two
 * away (isDotSegment).
 */
export function pathSegment(id: string): string {
  return id === '.' || id === '..' ? id.replaceAll('.', '%2E') : encodeURIComponent(id);
}

/**
 * Whether URL parsers (WHATWG URL: fetch, browsers, node's URL) read this segment as `.` or `..` and
 * resolve it away, percent-encoded or not: the request would reach another path. Of what pathSegment
 * makes, only the ids `.` and `..` are such segments; only a client that sends the path as written
 * (the typed client's node:http transport) reaches them.
 */
export function isDotSegment(segment: string): boolean {
  return /^(?:\.|%2e){1,2}$/i.test(segment);
}
