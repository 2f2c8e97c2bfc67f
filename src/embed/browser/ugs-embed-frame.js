'use strict';
/**
 * user-group-service's embed script for the dashboard's frame. Served by the service at /embed/ugs-embed-frame.js
 * and shipped as user-group-service/embed/frame.js. It defines window.UserGroupEmbedFrame.start({ token, origins,
 * onToken, onEnded }), which keeps the frame's session alive while the viewer uses it and ends it when they leave:
 * - when the token nears expiry and the viewer interacted with the frame (pointer, keyboard, scroll, focus) since the
 *   last renewal, it asks the page (ugs-embed-page.js) for a new token; onToken(token, claims) gets it, and the frame
 *   keeps its state (no reload);
 * - with no interaction for a whole token lifetime, no renewal: at the token's end onEnded('expired'), for good.
 * - it tells the page its document's height at start and whenever it changes, and the page sizes the iframe to it
 *   (a fixed height clipped a taller page, or left a gap under a shorter one).
 * It takes messages only from its parent window, only from the session's origins (the `org` claim, handed in as
 * `origins` by the dashboard's server, which verified the token), and only with its own frame id (but the page's
 * 'connect', which cannot know it yet: the frame answers it by announcing itself again).
 */
(() => {
  const PROTOCOL = 'ugs-embed/1';
  const INTERACTIONS = ['pointerdown', 'pointermove', 'keydown', 'wheel', 'scroll', 'touchstart', 'focusin'];
  /** If the page does not answer a request this soon, the next interaction asks again. */
  const ANSWER_MS = 10_000;

  /** The token's claims, read, not verified: the dashboard's server verifies every token it is handed. */
  function claimsOf(token) {
    const part = String(token).split('.')[1] ?? '';
    const binary = atob(part.replace(/-/g, '+').replace(/_/g, '/'));
    return JSON.parse(new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0))));
  }

  function start(options) {
    const origins = Array.isArray(options?.origins) ? options.origins.filter((o) => typeof o === 'string') : [];
    const frame = crypto.randomUUID();
    let token = options.token;
    let pageOrigin = null;
    let interacted = false;
    let due = false;
    let askedAt = null;
    let ended = false;
    let timers = [];

    const post = (message) => {
      if (window.parent === window) return;
      // Only the page of the session's origin receives it: postMessage drops it for any other target origin.
      for (const origin of pageOrigin === null ? origins : [pageOrigin]) {
        window.parent.postMessage({ protocol: PROTOCOL, frame, ...message }, origin);
      }
    };
    const ask = () => {
      if (ended || (askedAt !== null && Date.now() - askedAt < ANSWER_MS)) return;
      askedAt = Date.now();
      post({ type: 'renew', token });
    };

    /** Times the token's lifetime from now (exp - iat), so a browser clock set wrong does not end sessions early or late. */
    function schedule() {
      for (const timer of timers) clearTimeout(timer);
      const { iat, exp } = claimsOf(token);
      const lifetimeMs = Math.max(0, (exp - iat) * 1000);
      const leadMs = Math.min(60_000, Math.max(5_000, lifetimeMs / 4));
      interacted = false;
      due = false;
      askedAt = null;
      timers = [
        setTimeout(
          () => {
            due = true;
            if (interacted) ask();
          },
          Math.max(0, lifetimeMs - leadMs),
        ),
        setTimeout(() => end('expired'), lifetimeMs),
      ];
    }

    function onInteraction() {
      interacted = true;
      if (due) ask();
    }

    let sentHeight = -1;
    /** The document's own height (not the viewport's), so the iframe can shrink to it as well as grow. */
    function sendHeight() {
      const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
      if (height === sentHeight) return;
      sentHeight = height;
      post({ type: 'height', height });
    }

    function onMessage(event) {
      if (ended || event.source !== window.parent || !origins.includes(event.origin)) return;
      const data = event.data;
      if (data === null || typeof data !== 'object' || data.protocol !== PROTOCOL) return;
      // A page whose script connected after this frame said hello: announce again, with the height.
      if (data.type === 'connect') {
        pageOrigin = event.origin;
        post({ type: 'hello' });
        sentHeight = -1;
        return sendHeight();
      }
      if (data.frame !== frame) return;
      pageOrigin = event.origin;
      if (data.type === 'token' && typeof data.token === 'string') {
        let claims;
        try {
          claims = claimsOf(data.token);
        } catch {
          return;
        }
        token = data.token;
        schedule();
        options.onToken?.(token, claims);
      } else if (data.type === 'renew-failed') {
        askedAt = null;
      }
    }

    function end(reason) {
      if (ended) return;
      ended = true;
      for (const timer of timers) clearTimeout(timer);
      for (const type of INTERACTIONS) window.removeEventListener(type, onInteraction, true);
      window.removeEventListener('message', onMessage);
      post({ type: 'ended', reason });
      options.onEnded?.(reason);
    }

    for (const type of INTERACTIONS) window.addEventListener(type, onInteraction, { capture: true, passive: true });
    window.addEventListener('message', onMessage);
    schedule();
    post({ type: 'hello' });
    // Also once the session ended: the page's words replace the dashboard, and the iframe follows their height.
    if (typeof ResizeObserver === 'function') new ResizeObserver(sendHeight).observe(document.documentElement);
    return {
      get token() {
        return token;
      },
      get ended() {
        return ended;
      },
      /** Ends the session here (the dashboard learned it was revoked, say): no renewal from now on. */
      end: (reason = 'ended') => end(reason),
    };
  }

  window.UserGroupEmbedFrame = Object.freeze({ start });
})();
