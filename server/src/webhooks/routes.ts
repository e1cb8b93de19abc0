import { Router, type Request, type RequestHandler } from 'express';
import { sendJson } from '../http/respond.js';
import { invalidParameter } from '../errors.js';
import { parseDeliveryQuery } from './deliveries.js';
import type { WebhookService } from './service.js';

/**
 * /admin/webhooks (API.md, Webhooks), mounted by admin/routes.ts behind its owner-only check (the access decision of
 * the owner's tools, policies/authorize.ts): the owner's webhooks, their secrets and their deliveries.
 */

const ID = /^[A-Za-z0-9_-]{1,64}$/;

function pathId(req: Request, name: 'id' | 'delivery'): string {
  const value = String(req.params[name]);
  if (!ID.test(value)) throw invalidParameter(name, `${name} is not an id`);
  return value;
}

export function webhookRoutes(webhooks: WebhookService, body: RequestHandler): Router {
  const router = Router();
  router.get('/webhooks', async (_req, res) => {
    sendJson(res, 200, { data: await webhooks.list() });
  });
  router.post('/webhooks', body, async (req, res) => {
    sendJson(res, 201, { data: await webhooks.create(req.body) });
  });
  router.get('/webhooks/:id', async (req, res) => {
    sendJson(res, 200, { data: await webhooks.get(pathId(req, 'id')) });
  });
  router.patch('/webhooks/:id', body, async (req, res) => {
    sendJson(res, 200, { data: await webhooks.update(pathId(req, 'id'), req.body) });
  });
  router.delete('/webhooks/:id', async (req, res) => {
    const id = pathId(req, 'id');
    await webhooks.remove(id);
    sendJson(res, 200, { data: { id, deleted: true } });
  });
  router.post('/webhooks/:id/secret', async (req, res) => {
    sendJson(res, 200, { data: await webhooks.rotate(pathId(req, 'id')) });
  });
  router.get('/webhooks/:id/deliveries', async (req, res) => {
    const { data, next } = await webhooks.listDeliveries(pathId(req, 'id'), parseDeliveryQuery(req.query as Record<string, unknown>));
    sendJson(res, 200, { data, next });
  });
  router.post('/webhooks/:id/deliveries/:delivery/retry', async (req, res) => {
    sendJson(res, 200, { data: await webhooks.retry(pathId(req, 'id'), pathId(req, 'delivery')) });
  });
  router.post('/webhooks/:id/replay', body, async (req, res) => {
    sendJson(res, 200, { data: { queued: await webhooks.replay(pathId(req, 'id'), req.body) } });
  });
  return router;
}
