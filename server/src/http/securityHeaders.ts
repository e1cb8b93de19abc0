import helmet from 'helmet';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';

/**
 * Security headers on every response, by helmet (maintained, and it knows each header's current advice better than
 * a hand-written list would). Two sets:
 * - the console's pages get helmet's whole set and a Content-Security-Policy its own build satisfies: scripts, styles,
 *   fonts and API calls from this origin only, images also as data: URIs (the favicon), no frames, no plugins, forms
 *   to this origin;
 * - everything else (JSON, event streams) gets the strictest policy (it loads nothing and may not be framed) and the
 *   headers that mean something for a response no browser renders as a page: those OWASP's REST Security Cheat
 *   Sheet asks of every API response (CSP `frame-ancestors`, HSTS, `nosniff`, `X-Frame-Options`) and the
 *   cross-origin and referrer ones. `Origin-Agent-Cluster`, `X-DNS-Prefetch-Control`, `X-Download-Options`
 *   (Internet Explorer 8), `X-Permitted-Cross-Domain-Policies` (Flash, Acrobat) and `X-XSS-Protection` (a legacy
 *   browser filter) act on documents only: they were 150 of the 870 bytes of a one-row answer, read by every client.
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
  originAgentCluster: false,
  xDnsPrefetchControl: false,
  xDownloadOptions: false,
  xPermittedCrossDomainPolicies: false,
  xXssProtection: false,
});

/**
 * What a helmet middleware sets, recorded once: its headers depend on its options only (no nonces here), so every
 * response gets the recorded pairs instead of a walk through a dozen middleware functions per request.
 */
function recordHeaders(middleware: (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void): Array<[string, string]> {
  const headers: Array<[string, string]> = [];
  const recorder = {
    setHeader(name: string, value: unknown) {
      headers.push([name, String(value)]);
    },
    removeHeader() {},
  };
  let finished = false;
  middleware({} as IncomingMessage, recorder as unknown as ServerResponse, (error) => {
    if (error) throw error;
    finished = true;
  });
  if (!finished) throw new Error('the security header middleware did not finish at once');
  return headers;
}

const apiPairs = recordHeaders(apiHeaders);
const consolePairs = recordHeaders(consoleHeaders);

export const CONSOLE_PREFIX = '/console';
/** Basalt's confirm page for mails' links: a page of the console, served where links point (auth/email). */
export const CONFIRM_PAGE = '/auth/confirm';

export const securityHeaders: RequestHandler = (req, res, next) => {
  // req.path parses the URL on first read: read it once.
  const requested = req.path;
  const isConsole = requested === CONSOLE_PREFIX || requested.startsWith(`${CONSOLE_PREFIX}/`) || requested === CONFIRM_PAGE;
  for (const [name, value] of isConsole ? consolePairs : apiPairs) res.setHeader(name, value);
  next();
};
