import helmet from 'helmet';
import type { RequestHandler } from 'express';

/**
 * Security headers on every response, by helmet (maintained, and it knows each header's current advice better than
 * a hand-written list would). Two sets:
 * - the console's pages get a Content-Security-Policy its own build satisfies: scripts, styles, fonts and API calls
 *   from this origin only, images also as data: URIs (the favicon), no frames, no plugins, forms to this origin;
 * - everything else (JSON) gets the strictest one: it loads nothing and may not be framed.
 * `upgrade-insecure-requests` is left out: the service is often reached over plain http on a LAN or localhost, and
 * would break its own console. `Cross-Origin-Resource-Policy` is `cross-origin`: the API is meant to be read by apps
 * on other origins (CORS decides who may; CORP would only get in the way of it).
 */
const common = {
  crossOriginResourcePolicy: { policy: 'cross-origin' as const },
  // A page of the console opened from an app's link keeps no handle on the app's window, nor the app on it.
  crossOriginOpenerPolicy: { policy: 'same-origin' as const },
  referrerPolicy: { policy: 'no-referrer' as const },
};

const consoleHeaders = helmet({
  ...common,
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'"],
      imgSrc: ["'self'", 'data:'],
      fontSrc: ["'self'"],
      connectSrc: ["'self'"],
      objectSrc: ["'none'"],
      baseUri: ["'self'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
    },
  },
});

const apiHeaders = helmet({
  ...common,
  contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
});

export const CONSOLE_PREFIX = '/console';

export const securityHeaders: RequestHandler = (req, res, next) => {
  const isConsole = req.path === CONSOLE_PREFIX || req.path.startsWith(`${CONSOLE_PREFIX}/`);
  (isConsole ? consoleHeaders : apiHeaders)(req, res, next);
};
