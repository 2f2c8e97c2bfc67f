/**
 * The options of a console route reached before sign-in: no session needed, no per-key budget (no key yet),
 * not in the OpenAPI document.
 */
export function publicRoute() {
  return { config: { consolePublic: true, rateLimit: false as const }, schema: { hide: true } };
}
