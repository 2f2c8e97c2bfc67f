/**
 * One line for a failed request, for status() and error messages: fetch's own
 * "fetch failed" says nothing, the reason is in its cause (ECONNREFUSED, ...).
 */
export function describeFetchError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.name === 'TimeoutError' || error.name === 'AbortError') return `${error.name}: ${error.message}`;
  const cause = error.cause;
  if (cause instanceof Error) {
    const code = (cause as NodeJS.ErrnoException).code;
    return `${error.message}: ${code ?? cause.message}`;
  }
  return error.message;
}
