import { admin, pathParameter } from './admin.js';
import type { Paths } from './auth.js';
import { int, jsonBody, object, ref, str } from './schema.js';
import { DELIVERY_PARAMETERS, SINCE_PATTERN, WEBHOOK_ID_PATTERN } from './webhookValues.js';

/**
 * The owner's webhooks (issue 29, API.md "Webhooks") under /admin: the webhooks (their secrets shown when made or
 * rotated), their deliveries, a retry and a replay. The owner alone, as every /admin route: 401 without credentials,
 * 403 for anyone else. Path ids the routes cannot read are 400 naming `id` or `delivery`.
 */

const id = pathParameter('id', 'A webhook\'s id', str({ pattern: WEBHOOK_ID_PATTERN }));
const delivery = pathParameter('delivery', 'A delivery\'s id (its `webhook-id`)', str({ pattern: WEBHOOK_ID_PATTERN }));
const tag = 'webhooks';
const one = { data: ref('Webhook'), description: 'The webhook' };
const withSecret = (description: string) => ({ data: ref('WebhookWithSecret'), description });

export function ownerWebhookPaths(): Paths {
  return {
    '/admin/webhooks': {
      get: admin('admin.webhooks', 'Every webhook, oldest first (without secrets)', tag, { data: { type: 'array', items: ref('Webhook') }, description: 'The webhooks' }, []),
      post: admin('admin.createWebhook', 'Make a webhook: every committed change of its tables is delivered to its URL, signed', tag, { status: 201, ...withSecret('The webhook and its secret, shown this once') }, [400, 413], {
        requestBody: jsonBody(ref('CreateWebhook')),
        description: 'Problems are 400 naming the field (`details.field`; inside a list or the headers, a dotted path such as `events.1` or `headers.X-Token`).',
      }),
    },
    '/admin/webhooks/{id}': {
      get: admin('admin.webhook', 'One webhook (without its secret)', tag, one, [400, 404], { parameters: [id] }),
      patch: admin('admin.updateWebhook', 'Change a webhook: any of its settings', tag, one, [400, 404, 413], {
        parameters: [id],
        requestBody: jsonBody(ref('UpdateWebhook')),
        description: 'The result is checked as a whole: a `filter` needs exactly one table in `tables` as they end up (400 naming `filter`). An empty body is 400 naming `body`.',
      }),
      delete: admin('admin.deleteWebhook', 'Delete a webhook and its deliveries', tag, { data: object({ id: str(), deleted: { const: true } }), description: 'Deleted' }, [400, 404], { parameters: [id] }),
    },
    '/admin/webhooks/{id}/secret': {
      post: admin('admin.rotateWebhookSecret', 'A new secret; the previous one keeps signing for 24 hours (each attempt carries both signatures)', tag, withSecret('The webhook and its new secret, shown this once'), [400, 404], {
        parameters: [id],
      }),
    },
    '/admin/webhooks/{id}/deliveries': {
      get: admin('admin.webhookDeliveries', 'The webhook\'s deliveries, newest first', tag, {
        data: { type: 'array', items: ref('WebhookDelivery') },
        more: { next: { anyOf: [str({ pattern: '^[1-9][0-9]*$' }), { type: 'null' }], description: 'The `before` of the next page, or null on the last' } },
        description: 'A page of deliveries',
      }, [400, 404], {
        parameters: [id, ...DELIVERY_PARAMETERS],
        description: 'A parameter other than `status`, `limit` and `before` is 400 naming it.',
      }),
    },
    '/admin/webhooks/{id}/deliveries/{delivery}/retry': {
      post: admin('admin.retryDelivery', 'Try a delivery again now, whatever its status (the same `webhook-id`; it may arrive after later changes of its row)', tag, { data: ref('WebhookDelivery'), description: 'The delivery, pending' }, [400, 404], {
        parameters: [id, delivery],
      }),
    },
    '/admin/webhooks/{id}/replay': {
      post: admin('admin.replayWebhook', 'Queue again the changes still in the log from a time on, with new webhook-ids (the webhook\'s tables, events and filter apply)', tag, {
        data: object({ queued: int({ minimum: 0, description: 'Deliveries queued' }) }),
        description: 'Queued',
      }, [400, 404, 413], {
        parameters: [id],
        requestBody: jsonBody(object({ since: str({ format: 'date-time', pattern: SINCE_PATTERN, description: 'An RFC 3339 date-time. The log keeps changes 15 minutes (longer while webhooks hold it): one before the oldest change kept is 400 naming `since`, with `details.oldest`' }) })),
      }),
    },
  };
}
