/**
 * The orders page's own script, served as /dashboard.js (the CSP allows scripts of the dashboard's origin and no inline
 * one), beside the service's ugs-embed-frame.js, which renews the session while the viewer uses the page. It holds the
 * current token in memory and uses it for every request: GET /orders with the product filter, again with each new token
 * (so a property changed meanwhile shows, and the chosen filter stays), and GET /session every data-check-ms, whose 401
 * (the session revoked, its viewer offboarded, its group's token rotated) ends the session here and shows why. A
 * viewer who left sees the page's own "ended" text at the token's end. Nothing reloads the frame.
 */
export const DASHBOARD_JS = `'use strict';
(() => {
  const script = document.currentScript;
  const every = Number(script.dataset.checkMs);
  const main = document.querySelector('main');
  const orders = document.getElementById('orders');
  const product = document.getElementById('product');
  let token = new URL(location.href).searchParams.get('token');
  let over = false;

  const withToken = (path) => {
    const url = new URL(path, location.href);
    url.search = '';
    url.searchParams.set('token', token);
    return url;
  };
  const showEnded = (html) => {
    over = true;
    session.end('ended');
    main.innerHTML = html;
  };
  const load = async () => {
    const url = withToken('/orders');
    if (product.value !== '') url.searchParams.set('product', product.value);
    try {
      const answer = await fetch(url, { cache: 'no-store', credentials: 'omit' });
      if (over) return;
      if (answer.status === 401) return showEnded(await answer.text());
      if (answer.ok || answer.status === 403) orders.innerHTML = await answer.text();
    } catch {
      // Not reachable right now: the rows shown stay until the next load.
    }
  };
  const session = UserGroupEmbedFrame.start({
    token,
    origins: JSON.parse(script.dataset.origins),
    onToken: (renewed) => {
      token = renewed;
      void load();
    },
    onEnded: (reason) => {
      if (reason === 'expired' && !over) showEnded(document.getElementById('session-idle').innerHTML);
    },
  });
  product.addEventListener('change', () => void load());

  const check = async () => {
    if (over) return;
    try {
      const answer = await fetch(withToken('/session'), { cache: 'no-store', credentials: 'omit' });
      if (over) return;
      if (answer.status === 401 || answer.status === 403) return showEnded(await answer.text());
    } catch {
      // Not reachable right now: the next check tells.
    }
    setTimeout(check, every);
  };
  setTimeout(check, every);
})();
`;
