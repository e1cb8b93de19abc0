import { Router, type RequestHandler } from 'express';
import { invalidField } from '../../errors.js';
import { sendJson } from '../../http/respond.js';
import { userOf } from '../credentials.js';
import { KEY_EXPIRY_MESSAGE, parseKeyInput, parsePathId } from '../validation.js';
import { parseKeyExpiry, type KeyService } from './service.js';

/** `/auth/keys`: a signed-in user's own API keys (never by a key: /auth refuses keys). */
export function keyRoutes(keys: KeyService, body: RequestHandler, signedIn: RequestHandler[], steppedUp: RequestHandler[] = signedIn): Router {
  const router = Router();

  // Making a key needs the second factor in this session when the account has one (auth/mfa stepUp).
  router.post('/keys', ...steppedUp, body, async (req, res) => {
    const input = parseKeyInput(req.body);
    const expiresAt = parseKeyExpiry(input.expiresAt);
    if (expiresAt === 'invalid') throw invalidField('expiresAt', KEY_EXPIRY_MESSAGE);
    sendJson(res, 201, { data: await keys.create(userOf(req).id, { name: input.name, access: input.access, expiresAt }) });
  });

  router.get('/keys', ...signedIn, async (req, res) => {
    sendJson(res, 200, { data: await keys.list(userOf(req).id) });
  });

  router.delete('/keys/:id', ...signedIn, async (req, res) => {
    sendJson(res, 200, { data: await keys.revoke(userOf(req).id, parsePathId(String(req.params.id), 'API key')) });
  });

  return router;
}
