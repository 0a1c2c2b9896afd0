import { fieldChanges, recordChanges } from '../../changes/recorder.js';
import { readPermissionOf } from '../../changes/readable.js';
import { CHANGE_TYPE_CATALOG, isChangeType, type ChangeType } from '../../changes/types.js';
import type { Config } from '../../config.js';
import { withTenant, type Db } from '../../db/client.js';
import { enqueueJobs } from '../../jobs/queue.js';
import { BadRequestError, ForbiddenError, NotFoundError } from '../../lib/errors.js';
import { pageResult, toPage, type PageRequest } from '../../lib/pagination.js';
import type { Principal } from '../../plugins/auth.js';
import { idempotencySecret, withdrawResponsesMatching } from '../../plugins/idempotency.js';
import type { CreateWebhookBody, ListWebhookDeliveriesQuery, UpdateWebhookBody } from './notifications.schemas.js';
import { deliveryJobs, webhookData } from './webhooks.delivery.js';
import * as repo from './webhooks.repository.js';
import { checkWebhookTarget, checkWebhookUrlShape, decryptSecret, encryptSecret, newWebhookSecret } from './webhooks.security.js';

/** `["*"]`, or known change types (deduplicated); anything else is 400. */
function normalizeEvents(events: string[]): string[] {
  if (events.includes('*')) return ['*'];
  const unknown = events.find((e) => !isChangeType(e));
  if (unknown !== undefined) throw new BadRequestError(`body/events has an unknown event type '${unknown}' (see GET /api/notifications/webhooks/events)`);
  return [...new Set(events)];
}

/**
 * Whoever creates or changes a webhook becomes its owner, and may subscribe only to what they may
 * read (src/changes/readable.ts): `*` needs audit:read (it is the whole audit feed), each type its
 * module's read permission. 403 naming the permission. Finer limits (confidential items, invisible
 * groups, a later demotion) are applied per delivery.
 */
function assertMaySubscribe(auth: Principal, events: readonly string[]): void {
  if (events.includes('*')) {
    if (!auth.permissions.has('audit:read')) throw new ForbiddenError('Subscribing to every change ("*") needs the audit:read permission');
    return;
  }
  for (const type of events) {
    const needed = readPermissionOf(type as ChangeType);
    if (needed && !auth.permissions.has(needed)) throw new ForbiddenError(`Subscribing to ${type} needs the ${needed} permission`);
  }
}

/** Webhook subscriptions and their deliveries (webhooks:write). */
export function createWebhooksService({ db, config }: { db: Db; config: Config }) {
  const production = config.nodeEnv === 'production';

  async function checkedUrl(raw: string): Promise<string> {
    const url = checkWebhookUrlShape(raw.trim(), production);
    await checkWebhookTarget(url, production);
    return url.toString();
  }

  async function existing(tx: Db, auth: Principal, id: number) {
    const webhook = await repo.findWebhook(tx, auth.tenantId, id);
    if (!webhook) throw new NotFoundError('Webhook', id);
    return webhook;
  }

  return {
    events: () => ({ data: CHANGE_TYPE_CATALOG.map((c) => ({ ...c })), total: CHANGE_TYPE_CATALOG.length, page: 1, limit: CHANGE_TYPE_CATALOG.length }),

    list: (auth: Principal, query: PageRequest) =>
      withTenant(db, auth, async (tx) => {
        const page = toPage(query);
        const { items, total } = await repo.pageWebhooks(tx, auth.tenantId, page);
        return pageResult(page, items, total);
      }),

    get: (auth: Principal, id: number) => withTenant(db, auth, (tx) => existing(tx, auth, id)),

    create: async (auth: Principal, body: CreateWebhookBody) => {
      const events = normalizeEvents(body.events);
      assertMaySubscribe(auth, events);
      const url = await checkedUrl(body.url);
      const secret = newWebhookSecret();
      const webhook = await withTenant(db, auth, async (tx) => {
        const row = await repo.insertWebhook(tx, auth.tenantId, { url, events, description: body.description ?? null, isActive: body.isActive ?? true, secretEncrypted: encryptSecret(secret, config.jwtSecret), ownerUserId: auth.userId });
        await recordChanges(tx, auth, [{ type: 'webhook.created', entityId: row.id, data: webhookData(row) }]);
        return row;
      });
      return { ...webhook, secret };
    },

    update: async (auth: Principal, id: number, body: UpdateWebhookBody) => {
      const events = body.events && normalizeEvents(body.events);
      const url = body.url === undefined ? undefined : await checkedUrl(body.url);
      return withTenant(db, auth, async (tx) => {
        const before = await existing(tx, auth, id);
        // The editor becomes the owner (else a user could point someone else's wider subscription at their own receiver).
        assertMaySubscribe(auth, events ?? before.events);
        const after = (await repo.updateWebhook(tx, auth.tenantId, id, { url, events, description: body.description, isActive: body.isActive, ownerUserId: auth.userId }))!;
        const sent = (key: 'url' | 'events' | 'description' | 'isActive') => (body[key] === undefined ? undefined : after[key]);
        const diff = fieldChanges(before, { url: sent('url'), events: sent('events'), description: sent('description'), isActive: sent('isActive'), ownerUserId: after.ownerUserId });
        if (diff) await recordChanges(tx, auth, [{ type: 'webhook.updated', entityId: id, changes: diff, data: webhookData(after) }]);
        return after;
      });
    },

    remove: (auth: Principal, id: number) =>
      withTenant(db, auth, async (tx) => {
        const webhook = await existing(tx, auth, id);
        if (!(await repo.deleteWebhook(tx, auth.tenantId, id))) throw new NotFoundError('Webhook', id);
        await recordChanges(tx, auth, [{ type: 'webhook.deleted', entityId: id, data: webhookData(webhook) }]);
      }),

    rotateSecret: (auth: Principal, id: number) =>
      withTenant(db, auth, async (tx) => {
        const webhook = await existing(tx, auth, id);
        const old = await repo.findSecret(tx, auth.tenantId, id);
        const secret = newWebhookSecret();
        await repo.updateWebhook(tx, auth.tenantId, id, { secretEncrypted: encryptSecret(secret, config.jwtSecret) });
        // A replay of the create (or of an earlier rotation) must not hand back the secret that stopped signing.
        if (old) {
          const previous = decryptSecret(old, config.jwtSecret);
          await withdrawResponsesMatching(tx, auth.tenantId, idempotencySecret(config), (body) => body.includes(previous), `the secret it held was rotated (webhook ${id})`);
        }
        // That it was rotated, by whom and when: the secret itself (old or new) is never recorded.
        await recordChanges(tx, auth, [{ type: 'webhook.secret_rotated', entityId: id, data: webhookData(webhook) }]);
        return { secret };
      }),

    /** Records a webhook.test change and delivers it to this webhook only (active or not). */
    test: (auth: Principal, id: number) =>
      withTenant(db, auth, async (tx) => {
        const webhook = await existing(tx, auth, id);
        const [changeId] = await recordChanges(tx, auth, [{ type: 'webhook.test', entityId: id, data: { webhookId: id, url: webhook.url } }]);
        const [deliveryId] = await repo.insertDeliveries(tx, auth.tenantId, [{ webhookId: id, changeId, type: 'webhook.test' }]);
        await enqueueJobs(tx, auth.tenantId, deliveryJobs([deliveryId]));
        return (await repo.findDelivery(tx, auth.tenantId, deliveryId))!;
      }),

    deliveries: (auth: Principal, id: number, query: ListWebhookDeliveriesQuery) =>
      withTenant(db, auth, async (tx) => {
        await existing(tx, auth, id);
        const page = toPage(query);
        const { items, total } = await repo.pageDeliveries(tx, auth.tenantId, id, query.status, page);
        return pageResult(page, items, total);
      }),

    /** A new delivery of the same change to the same webhook (the original stays in the log). */
    redeliver: (auth: Principal, deliveryId: number) =>
      withTenant(db, auth, async (tx) => {
        const original = await repo.findDelivery(tx, auth.tenantId, deliveryId);
        if (!original) throw new NotFoundError('Webhook delivery', deliveryId);
        const webhook = await existing(tx, auth, original.webhookId);
        const [id] = await repo.insertDeliveries(tx, auth.tenantId, [{ webhookId: original.webhookId, changeId: original.changeId, type: original.type, redeliveryOf: original.id }]);
        await enqueueJobs(tx, auth.tenantId, deliveryJobs([id]));
        await recordChanges(tx, auth, [{
          type: 'webhook.redelivered', entityId: webhook.id,
          data: { ...webhookData(webhook), deliveryId: id, redeliveryOf: original.id, changeId: original.changeId, changeType: original.type },
        }]);
        return (await repo.findDelivery(tx, auth.tenantId, id))!;
      }),
  };
}
