import { Router } from 'express';
import { originOf } from './origin.js';
import type { TokenService } from './tokens.js';
import type { AccountService } from './accounts.js';
import type { KeyService } from './keys/service.js';
import type { PasswordChanges } from './passwordChanges.js';
import { parseCredentials, parsePasswordChange, parsePasswordConfirmation, parsePathId, parseRefreshBody } from './validation.js';
import type { EmailService } from './email/service.js';
import { emailRoutes } from './email/routes.js';
import { parseResetBody } from './email/validation.js';
import type { Mfa } from './mfa/service.js';
import { mfaRoutes, stepUp } from './mfa/routes.js';
import type { ProvidersService } from './providers/service.js';
import { providerRoutes } from './providers/routes.js';
import { authenticate, requireAccount, requireUser, userOf } from './credentials.js';
import { keyRoutes } from './keys/routes.js';
import { jsonObjectBody } from '../http/body.js';
import { sendJson } from '../http/respond.js';

export { originOf };

export interface AuthDeps {
  accounts: AccountService;
  tokens: TokenService;
  keys: KeyService;
  passwordChanges: PasswordChanges;
  email: EmailService;
  mfa: Mfa;
  providers: ProvidersService;
}

/**
 * /auth: sign-up, sign-in, refresh, reset and settings ignore credential headers entirely (a stale Bearer must never
 * block a refresh); the rest need a signed-in user by an access token (API keys are refused: 401).
 */
export function authRoutes(deps: AuthDeps, options: { bodyLimitBytes: number; signupEnabled: boolean }): Router {
  const { accounts, tokens, passwordChanges } = deps;
  const { sessions } = accounts;
  const router = Router();
  const body = jsonObjectBody(options.bodyLimitBytes);
  const signedInToken = [authenticate(tokens), requireUser];
  // An access token outlives its account: every signed-in route but /me (whose read says so itself) asks first.
  const signedIn = [...signedInToken, requireAccount((userId) => accounts.userExists(userId))];
  // With a factor on, what could lock the owner out or let a thief stay needs it proven in this session (aal 2).
  const steppedUp = [...signedIn, stepUp(deps.mfa)];

  router.post('/signup', body, async (req, res) => {
    sendJson(res, 201, { data: await accounts.signUp(parseCredentials(req.body), originOf(req)) });
  });

  router.post('/signin', body, async (req, res) => {
    sendJson(res, 200, { data: await accounts.signIn(parseCredentials(req.body), originOf(req)) });
  });

  router.post('/refresh', body, async (req, res) => {
    sendJson(res, 200, { data: await sessions.refresh(parseRefreshBody(req.body)) });
  });

  // A recovery or invite mail's token or code, or the token the owner made (POST /admin/users/:id/reset-link).
  router.post('/reset', body, async (req, res) => {
    const { proof, newPassword } = parseResetBody(req.body);
    await deps.email.flows.reset(proof, newPassword);
    sendJson(res, 200, { data: { signedOut: true } });
  });

  router.get('/settings', async (_req, res) => {
    const { emailSignIn, verification } = deps.email.settings;
    sendJson(res, 200, {
      data: { signupEnabled: options.signupEnabled, hasOwner: await accounts.hasOwner(), emailSignIn, emailVerification: verification, providers: deps.providers.registry.list() },
    });
  });

  router.get('/me', ...signedInToken, async (req, res) => {
    sendJson(res, 200, { data: await accounts.profile(userOf(req).id) });
  });

  router.delete('/me', ...steppedUp, body, async (req, res) => {
    const userId = userOf(req).id;
    sendJson(res, 200, { data: await accounts.deleteOwnAccount(userId, parsePasswordConfirmation(req.body), originOf(req), (code) => deps.email.proveByCode(userId, code)) });
  });

  router.post('/signout', ...signedIn, async (req, res) => {
    await sessions.endAll(userOf(req).id);
    sendJson(res, 200, { data: { signedOut: true } });
  });

  router.post('/password', ...steppedUp, body, async (req, res) => {
    const { currentPassword, newPassword } = parsePasswordChange(req.body);
    const user = userOf(req);
    sendJson(res, 200, { data: await passwordChanges.change(user.id, user.sessionId, currentPassword, newPassword, originOf(req)) });
  });

  router.get('/sessions', ...signedIn, async (req, res) => {
    const user = userOf(req);
    sendJson(res, 200, { data: await sessions.list(user.id, user.sessionId) });
  });

  router.delete('/sessions/:id', ...signedIn, async (req, res) => {
    await sessions.end(userOf(req).id, parsePathId(String(req.params.id), 'session'));
    sendJson(res, 200, { data: { signedOut: true } });
  });

  router.use(keyRoutes(deps.keys, body, signedIn, steppedUp));
  router.use(emailRoutes(deps.email, body, steppedUp));
  router.use(mfaRoutes(deps.mfa, body, signedIn));
  router.use(providerRoutes(deps.providers, body, steppedUp, options.bodyLimitBytes));
  return router;
}
