import { Router, type Request, type RequestHandler } from 'express';
import { OUTBOX_STATUSES, type OutboxStatus } from '@basalt/contract';
import { invalidField, invalidParameter } from '../../errors.js';
import { sendJson } from '../../http/respond.js';
import { parsePaging } from '../../records/index.js';
import { userOf } from '../credentials.js';
import type { EmailService } from './service.js';
import { parseEmailChange, parseEmailSignIn, parseExchange, parseInvite, parseProofBody, parseSend, parseTestMail, parseTokenBody, requestLocale } from './validation.js';
import { parsePathId } from '../validation.js';
import { originOf } from '../origin.js';

const SENT = { data: { sent: true } } as const;

/**
 * The public email routes under /auth (they ignore credential headers, as sign-in does) and the signed-in ones
 * (`/email`). `/reset` stays with the password routes (auth/routes.ts), which take mails' proofs too.
 */
export function emailRoutes(email: EmailService, body: RequestHandler, signedIn: RequestHandler[]): Router {
  const router = Router();
  const { flows, signIn } = email;

  router.post('/verify/send', body, async (req, res) => {
    const input = parseSend(req.body);
    await flows.sendVerification(input, requestLocale(req, input.locale), originOf(req));
    sendJson(res, 200, SENT);
  });
  router.post('/verify', body, async (req, res) => {
    sendJson(res, 200, { data: await flows.verify(parseProofBody(req.body), req.headers['user-agent']) });
  });
  router.post('/recover', body, async (req, res) => {
    const input = parseSend(req.body);
    await flows.recover(input, requestLocale(req, input.locale), originOf(req));
    sendJson(res, 200, SENT);
  });
  router.post('/otp', body, async (req, res) => {
    const input = parseEmailSignIn(req.body);
    await signIn.send(input, requestLocale(req, input.locale), originOf(req));
    sendJson(res, 200, SENT);
  });
  router.post('/otp/verify', body, async (req, res) => {
    sendJson(res, 200, { data: await signIn.verify(parseProofBody(req.body), originOf(req)) });
  });
  router.post('/otp/code', body, async (req, res) => {
    sendJson(res, 200, { data: await signIn.handOver(parseTokenBody(req.body)) });
  });
  router.post('/oauth/exchange', body, async (req, res) => {
    const { code, codeVerifier } = parseExchange(req.body);
    sendJson(res, 200, { data: await signIn.exchange(code, codeVerifier, originOf(req)) });
  });
  router.post('/email', ...signedIn, body, async (req, res) => {
    const input = parseEmailChange(req.body);
    const user = userOf(req);
    await email.confirmIdentity(user.id, input, originOf(req));
    await flows.changeEmail(user.id, input.newEmail, email.redirect(input.redirectTo), requestLocale(req, input.locale), originOf(req));
    sendJson(res, 200, SENT);
  });
  router.post('/email/confirm', body, async (req, res) => {
    sendJson(res, 200, { data: await flows.confirmEmailChange(parseProofBody(req.body)) });
  });
  return router;
}

function parseStatus(req: Request): OutboxStatus | undefined {
  const status = req.query.status;
  if (status === undefined) return undefined;
  if (typeof status !== 'string' || !(OUTBOX_STATUSES as readonly string[]).includes(status)) throw invalidParameter('status', `status must be one of ${OUTBOX_STATUSES.join(', ')}`);
  return status as OutboxStatus;
}

/** The owner's email routes under /admin (the owner check ran before). */
export function ownerEmailRoutes(email: EmailService, body: RequestHandler): Router {
  const router = Router();
  router.get('/outbox', async (req, res) => {
    const { status, ...rest } = req.query;
    const { mails, total } = await email.outbox.list({ ...parsePaging(rest), ...(status !== undefined ? { status: parseStatus(req) } : {}) });
    sendJson(res, 200, { data: mails, total });
  });
  router.post('/outbox/:id/retry', async (req, res) => {
    sendJson(res, 200, { data: await email.outbox.retry(parsePathId(String(req.params.id), 'mail')) });
  });
  router.post('/users/invite', body, async (req, res) => {
    if (req.body && typeof req.body === 'object' && 'role' in (req.body as object)) throw invalidField('role', 'role cannot be chosen: invited accounts are members');
    sendJson(res, 201, { data: await email.owner.invite(parseInvite(req.body)) });
  });
  router.post('/users/:id/resend', async (req, res) => {
    sendJson(res, 200, { data: await email.owner.resend(parsePathId(String(req.params.id), 'user')) });
  });
  router.post('/email/test', body, async (req, res) => {
    await email.owner.test(parseTestMail(req.body));
    sendJson(res, 200, SENT);
  });
  return router;
}
