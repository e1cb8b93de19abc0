import { Router } from 'express';
import type { TokenService } from './tokens.js';
import type { AccountService } from './accounts.js';
import { parseCredentials, parseRefreshBody } from './validation.js';
import { authenticate, requireUser, userOf } from './credentials.js';
import { jsonObjectBody } from '../http/body.js';
import { sendJson } from '../http/respond.js';

/**
 * /auth: sign-up, sign-in, refresh and settings ignore credential headers entirely (a stale Bearer must never block
 * a refresh); /auth/me and /auth/signout need a signed-in user.
 */
export function authRoutes(accounts: AccountService, tokens: TokenService, options: { bodyLimitBytes: number; signupEnabled: boolean }): Router {
  const router = Router();
  const body = jsonObjectBody(options.bodyLimitBytes);

  router.post('/signup', body, async (req, res) => {
    sendJson(res, 201, { data: await accounts.signUp(parseCredentials(req.body)) });
  });

  router.post('/signin', body, async (req, res) => {
    sendJson(res, 200, { data: await accounts.signIn(parseCredentials(req.body)) });
  });

  router.post('/refresh', body, async (req, res) => {
    sendJson(res, 200, { data: await accounts.refresh(parseRefreshBody(req.body)) });
  });

  router.get('/settings', async (_req, res) => {
    sendJson(res, 200, { data: { signupEnabled: options.signupEnabled, hasOwner: await accounts.hasOwner() } });
  });

  router.get('/me', authenticate(tokens), requireUser, async (req, res) => {
    sendJson(res, 200, { data: await accounts.profile(userOf(req).id) });
  });

  router.post('/signout', authenticate(tokens), requireUser, async (req, res) => {
    await accounts.signOut(userOf(req).id);
    sendJson(res, 200, { data: { signedOut: true } });
  });

  return router;
}
