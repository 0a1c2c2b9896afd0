import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { CHANGE_READ_RULE } from '../../changes/readable.js';
import { errors, IdParams, NoContent, PageQuery, Paginated } from '../../lib/schemas.js';
import type { ModuleOptions } from '../module.js';
import {
  CreateWebhookBody, ListWebhookDeliveriesQuery, UpdateWebhookBody, WebhookDeliverySchema, WebhookEventSchema, WebhookSchema, WebhookWithSecretSchema,
} from './notifications.schemas.js';
import { createWebhooksService } from './webhooks.service.js';

const tags = ['webhooks'];
const write = { permission: 'webhooks:write' } as const;

const DELIVERY = 'Each delivery POSTs {id (the change id), type, occurredAt, tenant (slug), entity {type, id}, data} with ' +
  'Parish-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" keyed with the secret> and Parish-Delivery: <delivery id>. ' +
  'A 2xx within 10 s succeeds; otherwise it is retried after about 1 min, 5 min, 30 min, 2 h and 12 h, then Failed; a 410 Gone fails it at once ' +
  'and deactivates the webhook. At least once: receivers dedupe by id. Secrets are stored encrypted (AES-256-GCM, key derived from JWT_SECRET).';

/** What a webhook may carry (issue 29): its owner's reading rights, checked at fan-out and again at each send. */
const OWNER_RULE = 'A delivery never carries what the webhook\'s owner (ownerUserId: the user who created it or last changed it) could not read through ' +
  'the API at the moment it is sent. Creating or changing a webhook makes the caller its owner and is 403 when it subscribes beyond the caller\'s ' +
  'permissions: `["*"]` needs audit:read, each type its module\'s read permission. Each change is then delivered only when the owner may read it ' +
  `(checked when the change is fanned out: no delivery row at all otherwise; and again when it is sent: a queued or retried delivery the owner may no ` +
  `longer read, or whose owner is disabled or deleted, is not sent and ends Failed with lastError "Withheld: …"; a redelivery is checked the same way). ` +
  `${CHANGE_READ_RULE} A webhook without an owner (created before owners were kept and never saved since) delivers nothing until a user saves it.`;

/** Webhook subscriptions for every change type, their deliveries, test and redelivery (webhooks:write). */
export const webhooksRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, options) => {
  const webhooks = createWebhooksService(options);

  app.get('/webhooks/events', {
    config: write,
    schema: { tags, description: 'Every change type a webhook may subscribe to (subscribing to one also needs its module\'s read permission; see POST)', response: { 200: Paginated(WebhookEventSchema), ...errors(401, 403) } },
    handler: () => webhooks.events(),
  });

  app.get('/webhooks', {
    config: write,
    schema: { tags, querystring: PageQuery, response: { 200: Paginated(WebhookSchema), ...errors(400, 401, 403) } },
    handler: (request) => webhooks.list(request.auth, request.query),
  });

  app.post('/webhooks', {
    config: write,
    schema: {
      tags,
      description: `The response alone carries the secret. URLs: https (http only to a loopback host outside production), no credentials; in production the host must resolve to public addresses only (checked here and again at every delivery). ${DELIVERY} ${OWNER_RULE}`,
      body: CreateWebhookBody,
      response: { 201: WebhookWithSecretSchema, ...errors(400, 401, 403) },
    },
    handler: async (request, reply) => reply.status(201).send(await webhooks.create(request.auth, request.body)),
  });

  app.get('/webhooks/:id', {
    config: write,
    schema: { tags, params: IdParams, response: { 200: WebhookSchema, ...errors(400, 401, 403, 404) } },
    handler: (request) => webhooks.get(request.auth, request.params.id),
  });

  app.put('/webhooks/:id', {
    config: write,
    schema: { tags, description: `The caller becomes the owner: 403 when the (new or kept) events go beyond the caller's permissions. ${OWNER_RULE}`, params: IdParams, body: UpdateWebhookBody, response: { 200: WebhookSchema, ...errors(400, 401, 403, 404) } },
    handler: (request) => webhooks.update(request.auth, request.params.id, request.body),
  });

  app.delete('/webhooks/:id', {
    config: write,
    schema: { tags, description: 'Its deliveries go with it', params: IdParams, response: { 204: NoContent, ...errors(400, 401, 403, 404) } },
    handler: async (request, reply) => {
      await webhooks.remove(request.auth, request.params.id);
      return reply.status(204).send(null);
    },
  });

  app.post('/webhooks/:id/rotate-secret', {
    config: write,
    schema: { tags, description: 'A new secret, shown once; the old one stops signing at once', params: IdParams, response: { 200: Type.Object({ secret: Type.String() }), ...errors(400, 401, 403, 404) } },
    handler: (request) => webhooks.rotateSecret(request.auth, request.params.id),
  });

  app.post('/webhooks/:id/test', {
    config: write,
    schema: { tags, description: 'Records a webhook.test change and delivers it to this webhook only (even when inactive; like every delivery, only while its owner holds webhooks:write and is active)', params: IdParams, response: { 202: WebhookDeliverySchema, ...errors(400, 401, 403, 404) } },
    handler: async (request, reply) => reply.status(202).send(await webhooks.test(request.auth, request.params.id)),
  });

  app.get('/webhooks/:id/deliveries', {
    config: write,
    schema: { tags, description: 'Newest first', params: IdParams, querystring: ListWebhookDeliveriesQuery, response: { 200: Paginated(WebhookDeliverySchema), ...errors(400, 401, 403, 404) } },
    handler: (request) => webhooks.deliveries(request.auth, request.params.id, request.query),
  });

  app.post('/webhooks/deliveries/:id/redeliver', {
    config: write,
    schema: { tags, description: 'Queues a new delivery of the same change (redeliveryOf names the original); sent only if the webhook\'s owner may read the change when it is sent', params: IdParams, response: { 202: WebhookDeliverySchema, ...errors(400, 401, 403, 404) } },
    handler: async (request, reply) => reply.status(202).send(await webhooks.redeliver(request.auth, request.params.id)),
  });
};
