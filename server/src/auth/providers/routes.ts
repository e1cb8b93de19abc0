import express, { Router, type RequestHandler } from 'express';
import { sendJson } from '../../http/respond.js';
import { userOf } from '../credentials.js';
import { originOf } from '../origin.js';
import type { ProvidersService } from './service.js';
import { callbackParameters, parseLinkBody, parseNativeBody, parseStartQuery } from './validation.js';

/**
 * `/auth/oauth/<name>` (the redirect flow: a 302 to the provider, its callback by GET or POST, a 302 back to the app),
 * `/auth/oauth/<name>/token` (native apps), and `/auth/identities/<name>` (link and unlink while signed in). The
 * public ones ignore credential headers; `POST /auth/oauth/exchange` (auth/email) trades the one-time code.
 */
/** `steppedUp`: signed in, and with a factor on proven in this session (a new way in is what lets a thief stay). */
export function providerRoutes(providers: ProvidersService, body: RequestHandler, steppedUp: RequestHandler[], bodyLimitBytes: number): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: bodyLimitBytes, parameterLimit: 32 });
  const name = (value: unknown) => String(value);

  router.get('/oauth/:provider', async (req, res) => {
    const input = parseStartQuery(req.query as Record<string, unknown>);
    providers.registry.get(name(req.params.provider));
    await providers.count(originOf(req));
    res.redirect(302, await providers.flow.start(name(req.params.provider), input, null, 'parameter'));
  });

  const callback: RequestHandler = async (req, res) => {
    const where = req.method === 'POST' ? 'field' : 'parameter';
    const parameters = callbackParameters(req.method === 'POST' ? req.body : req.query, where);
    res.redirect(302, await providers.flow.callback(name(req.params.provider), parameters, where));
  };
  router.get('/oauth/:provider/callback', callback);
  router.post('/oauth/:provider/callback', form, callback);

  router.post('/oauth/:provider/token', body, async (req, res) => {
    sendJson(res, 200, { data: await providers.native(name(req.params.provider), parseNativeBody(req.body), originOf(req)) });
  });

  router.post('/identities/:provider', ...steppedUp, body, async (req, res) => {
    const input = parseLinkBody(req.body);
    const provider = name(req.params.provider);
    providers.registry.get(provider);
    await providers.identities.assertUnlinked(userOf(req).id, provider);
    await providers.count(originOf(req));
    sendJson(res, 200, { data: { url: await providers.flow.start(provider, input, userOf(req).id, 'field') } });
  });

  router.delete('/identities/:provider', ...steppedUp, async (req, res) => {
    await providers.unlink(userOf(req).id, name(req.params.provider));
    sendJson(res, 200, { data: { unlinked: true } });
  });
  return router;
}
