'use strict';
/**
 * user-group-service's embed script for the customer's page (the page that frames a dashboard). Served by the
 * service at /embed/ugs-embed-page.js and shipped as user-group-service/embed/page.js. It defines
 * window.UserGroupEmbed.connect(iframe, { renew, onEnded }): when the dashboard in `iframe` says its token nears
 * expiry (it asks only while the viewer uses it), `renew(token)` is called (the customer's code: its backend calls
 * POST /api/embed_sessions/renew and hands back the new token) and the new token is posted to that frame, which
 * swaps it without reloading. The frame also says its document's height, and the iframe is sized to it (up to
 * MAX_HEIGHT px; `resize: false` keeps the page's own height). Messages are taken only from that iframe's window and
 * origin, and only with the frame id it announced; no inline script is needed (call connect from a script file of the
 * page).
 */
(() => {
  const PROTOCOL = 'ugs-embed/1';
  /** A frame taller than this is given this height and scrolls: a frame never makes the page endless. */
  const MAX_HEIGHT = 50_000;

  function connect(iframe, options) {
    if (!(iframe instanceof HTMLIFrameElement)) throw new TypeError('UserGroupEmbed.connect needs the dashboard’s iframe element');
    if (typeof options?.renew !== 'function') throw new TypeError('UserGroupEmbed.connect needs { renew: async (token) => newToken }');
    const frameOrigin = new URL(iframe.src, location.href).origin;
    let frameId = null;
    let renewing = false;
    const post = (message) => iframe.contentWindow?.postMessage({ protocol: PROTOCOL, frame: frameId, ...message }, frameOrigin);

    async function renew(token) {
      renewing = true;
      try {
        const renewed = await options.renew(token);
        if (typeof renewed !== 'string' || renewed === '') throw new Error('renew resolved to no token');
        post({ type: 'token', token: renewed });
      } catch (error) {
        post({ type: 'renew-failed', message: String(error?.message ?? error) });
      } finally {
        renewing = false;
      }
    }

    function onMessage(event) {
      if (event.origin !== frameOrigin || event.source !== iframe.contentWindow) return;
      const data = event.data;
      if (data === null || typeof data !== 'object' || data.protocol !== PROTOCOL || typeof data.frame !== 'string') return;
      // The frame's document announces its id when it starts; a reloaded frame (the same window) starts over with a new one.
      if (data.type === 'hello') return void (frameId = data.frame);
      // A frame that said hello before this script listened: its first message names it.
      frameId ??= data.frame;
      if (data.frame !== frameId) return;
      if (data.type === 'renew' && typeof data.token === 'string' && !renewing) void renew(data.token);
      else if (data.type === 'ended') options.onEnded?.(typeof data.reason === 'string' ? data.reason : 'ended');
      else if (data.type === 'height' && options.resize !== false && Number.isFinite(data.height) && data.height > 0)
        iframe.style.height = `${Math.min(Math.ceil(data.height), MAX_HEIGHT)}px`;
    }

    window.addEventListener('message', onMessage);
    // A frame that started before this script listened announces itself again, with its height.
    iframe.contentWindow?.postMessage({ protocol: PROTOCOL, type: 'connect' }, frameOrigin);
    return { disconnect: () => window.removeEventListener('message', onMessage) };
  }

  window.UserGroupEmbed = Object.freeze({ connect });
})();
