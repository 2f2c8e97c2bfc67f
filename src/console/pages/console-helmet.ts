import type { FastifyHelmetOptions } from '@fastify/helmet';

/**
 * The console's security headers (helmet's options), on /console only: the pages, and the charts' test page
 * (test/console/charts/charts.browser.test.ts), which must be drawn under exactly this CSP.
 */
export const CONSOLE_HELMET: FastifyHelmetOptions = {
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'"],
      imgSrc: ["'self'", 'data:'],
      connectSrc: ["'self'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
      baseUri: ["'none'"],
      objectSrc: ["'none'"],
    },
  },
  frameguard: { action: 'deny' },
  // Not no-referrer: under it chromium posts forms with `Origin: null`, and Origin is one of the cross-site checks.
  referrerPolicy: { policy: 'same-origin' },
  // Same-origin only: the console never needs a cross-origin window or resource.
  crossOriginOpenerPolicy: { policy: 'same-origin' },
  crossOriginResourcePolicy: { policy: 'same-origin' },
  // Over plain http the header means nothing to a browser (RFC 6797 8.1) and only misleads: sent over https alone, by console-plugin.ts.
  strictTransportSecurity: false,
};
