import { Router, type RequestHandler } from 'express';
import Joi from 'joi';
import { RECOVERY_CODE_PATTERN, TOTP_DIGITS, type MfaChallengeInput } from '@basalt/contract';
import { ApiError, conflict, invalidField, notFound } from '../../errors.js';
import { sendJson } from '../../http/respond.js';
import { userOf } from '../credentials.js';
import { originOf } from '../origin.js';
import { parseBody } from '../validation.js';
import type { Mfa } from './service.js';

const codeRule = () => Joi.string().pattern(new RegExp(`^[0-9]{${TOTP_DIGITS}}$`));
const MESSAGES = {
  code: `code must be the ${TOTP_DIGITS}-digit code of the authenticator app`,
  recoveryCode: 'recoveryCode must be one of the recovery codes (XXXXX-XXXXX)',
  mfaToken: 'mfaToken must be the token the sign-in answered',
};
const codeSchema = Joi.object<{ code: string }>({ code: codeRule().required() }).unknown(false);
const challengeSchema = Joi.object({ mfaToken: Joi.string().min(1).max(256).required(), code: codeRule(), recoveryCode: Joi.string().pattern(RECOVERY_CODE_PATTERN) })
  .unknown(false)
  .xor('code', 'recoveryCode');

function parseChallenge(body: unknown): MfaChallengeInput {
  if (body !== null && typeof body === 'object' && !Array.isArray(body)) {
    const given = body as Record<string, unknown>;
    if (given.code === undefined && given.recoveryCode === undefined) throw invalidField('code', 'Send code (the authenticator app\'s) or recoveryCode');
    if (given.code !== undefined && given.recoveryCode !== undefined) throw invalidField('code', 'Send code or recoveryCode, not both');
  }
  return parseBody(challengeSchema, body, MESSAGES, true) as MfaChallengeInput;
}

/**
 * A signed-in caller whose account has a factor on must have proven it in this session (`aal: 2`) for what could
 * lock its owner out or let a thief stay: API keys, password, email, the factor itself, deleting the account.
 */
export function stepUp(mfa: Mfa): RequestHandler {
  return async (req, _res, next) => {
    const user = userOf(req);
    if (user.aal !== 2 && (await mfa.totp.isEnabled(user.id))) {
      throw new ApiError('MFA_REQUIRED', 'This needs the second factor: sign in again with it (or answer the sign-in\'s challenge)');
    }
    next();
  };
}

/** `/auth/mfa/*`: enrolment and removal (signed in), and the sign-in's second step (public). */
export function mfaRoutes(mfa: Mfa, body: RequestHandler, signedIn: RequestHandler[]): Router {
  const router = Router();
  const stepped = [...signedIn, stepUp(mfa)];

  router.post('/mfa/totp', ...signedIn, async (req, res) => {
    const user = userOf(req);
    const enrollment = await mfa.enroll(user.id);
    if (!enrollment) throw conflict('totp.user_id', 'A second factor is already on: remove it first (that needs it)');
    sendJson(res, 200, { data: enrollment });
  });

  router.post('/mfa/totp/verify', ...signedIn, body, async (req, res) => {
    const { code } = parseBody(codeSchema, req.body, MESSAGES);
    const user = userOf(req);
    sendJson(res, 200, { data: await mfa.turnOn(user.id, code, originOf(req)) });
  });

  router.delete('/mfa/totp', ...stepped, async (req, res) => {
    if (!(await mfa.totp.remove(userOf(req).id))) throw notFound('No second factor is on');
    sendJson(res, 200, { data: { removed: true } });
  });

  router.post('/mfa/recovery-codes', ...stepped, async (req, res) => {
    const userId = userOf(req).id;
    if (!(await mfa.totp.isEnabled(userId))) throw notFound('No second factor is on');
    sendJson(res, 200, { data: { recoveryCodes: await mfa.totp.replaceRecoveryCodes(userId) } });
  });

  router.post('/mfa/challenge', body, async (req, res) => {
    sendJson(res, 200, { data: await mfa.signIn.challenge(parseChallenge(req.body), originOf(req)) });
  });
  return router;
}
