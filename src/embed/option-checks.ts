/**
 * The checks the package's factories (createEmbedVerifier, createDataRouter) run on their options: a value that
 * cannot work is a TypeError at creation, a bug in the caller, rather than a refusal on every call later.
 */

/** The service's base URL with one trailing slash, so `new URL('api/…', base)` keeps a path prefix. */
export function serviceBase(serviceUrl: string): URL {
  let base: URL;
  try {
    base = new URL(`${serviceUrl.replace(/\/+$/, '')}/`);
  } catch {
    throw new TypeError('serviceUrl must be an absolute http(s) URL');
  }
  if (base.protocol !== 'https:' && base.protocol !== 'http:') throw new TypeError('serviceUrl must be an absolute http(s) URL');
  return base;
}

/** An integer option of at least `least`, `fallback` when absent. */
export function count(name: string, value: number | undefined, fallback: number, least: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < least) throw new TypeError(`${name} must be an integer of at least ${least}`);
  return value;
}

/** A non-empty string option, `fallback` when absent. */
export function text(name: string, value: string | undefined, fallback: string | undefined): string | undefined {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || value === '') throw new TypeError(`${name} must be a non-empty string`);
  return value;
}
