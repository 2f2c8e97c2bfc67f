/**
 * The dashboard page's only script, served as /session-watch.js (the CSP
 * allows scripts of the dashboard's own origin and no inline one). An open
 * page asks its server every data-check-ms whether its session still holds:
 * the server verifies the token again, so a session ended since (its viewer
 * offboarded, its group's token rotated) or expired answers 401. The page
 * then reloads itself, and the server's answer to that says why, without the
 * person having to reload anything. A server that cannot be reached or cannot
 * check sessions for now (503) is asked again later.
 */
export const SESSION_WATCH_JS = `'use strict';
(() => {
  const every = Number(document.currentScript.dataset.checkMs);
  const check = new URL('/session', location.href);
  check.search = location.search;
  const ask = async () => {
    try {
      const answer = await fetch(check, { cache: 'no-store', credentials: 'omit' });
      if (answer.status === 401 || answer.status === 403) return location.reload();
    } catch {
      // Not reachable right now: the next check tells.
    }
    setTimeout(ask, every);
  };
  setTimeout(ask, every);
})();
`;
