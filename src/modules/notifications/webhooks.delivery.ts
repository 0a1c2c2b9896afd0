import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { sql, type SQL } from 'drizzle-orm';
import { CHANGE_TYPES } from '../../changes/types.js';
import type { ChangeSubscriber } from '../../changes/subscribers.js';
import { withTenant, type Db } from '../../db/client.js';
import { enqueueJobs, type JobHandler } from '../../jobs/queue.js';
import { activeWebhooksFor, insertDeliveries } from './webhooks.repository.js';
import { checkWebhookUrlShape, decryptSecret, isForbiddenAddress, safeLookup, signatureHeader } from './webhooks.security.js';

export const WEBHOOK_DELIVER_JOB = 'webhooks.deliver';
/** A receiver has this long to answer with a 2xx. */
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** Seconds before retry n (about 1 min, 5 min, 30 min, 2 h, 12 h), then Failed. */
export const WEBHOOK_BACKOFF = [60, 300, 1800, 7200, 43_200] as const;
export const WEBHOOK_MAX_ATTEMPTS = WEBHOOK_BACKOFF.length + 1;

type Rows<T> = { rows: T[] };
async function rows<T>(tx: Db, query: SQL): Promise<T[]> {
  return ((await tx.execute(query)) as unknown as Rows<T>).rows;
}

export function deliveryJobs(ids: number[]) {
  return ids.map((deliveryId) => ({ kind: WEBHOOK_DELIVER_JOB, payload: { deliveryId }, maxAttempts: WEBHOOK_MAX_ATTEMPTS }));
}

/**
 * Fans each change out into one delivery row (and one job) per active webhook of its tenant that
 * subscribes to its type; the subscriber runs in the change's tenant, so a webhook only ever
 * receives its own tenant's changes. `webhook.test` is delivered by the test route itself.
 */
export const webhookFanOut: ChangeSubscriber = {
  name: 'webhooks.fan-out',
  types: CHANGE_TYPES.filter((t) => t !== 'webhook.test'),
  async handle(tx, change) {
    const webhookIds = await activeWebhooksFor(tx, change.tenantId, change.type);
    if (webhookIds.length === 0) return;
    const ids = await insertDeliveries(tx, change.tenantId, webhookIds.map((webhookId) => ({ webhookId, changeId: change.id, type: change.type })));
    await enqueueJobs(tx, change.tenantId, deliveryJobs(ids));
  },
};

interface DeliveryContext {
  status: string;
  url: string;
  is_active: boolean;
  secret_encrypted: string;
  change_id: string | number;
  type: string;
  occurred_at: string | Date;
  data: Record<string, unknown>;
  entity_type: string;
  entity_id: string | number;
  slug: string;
}

interface Attempt {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
}

/** POSTs the body; resolves with the outcome (never rejects). */
function post(rawUrl: string, body: string, headers: Record<string, string>, production: boolean): Promise<Attempt> {
  return new Promise((resolve) => {
    let url: URL;
    try {
      url = checkWebhookUrlShape(rawUrl, production);
    } catch (err) {
      return resolve({ ok: false, statusCode: null, error: (err as Error).message });
    }
    const host = url.hostname.replace(/^\[|\]$/g, '');
    // A literal address skips DNS (and so safeLookup): judge it here.
    if (production && net.isIP(host) && isForbiddenAddress(host)) {
      return resolve({ ok: false, statusCode: null, error: `Refused: ${host} is a private, loopback or link-local address` });
    }
    const client = url.protocol === 'https:' ? https : http;
    const request = client.request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'Parish-Webhooks/1', ...headers },
      signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
      ...(production ? { lookup: safeLookup } : {}),
    });
    request.on('response', (response) => {
      response.resume();
      const code = response.statusCode ?? 0;
      const finish = () => resolve({ ok: code >= 200 && code < 300, statusCode: code, error: code >= 200 && code < 300 ? null : `HTTP ${code}` });
      response.on('end', finish);
      response.on('error', finish);
    });
    request.on('error', (err) => {
      const timedOut = err.name === 'AbortError' || err.name === 'TimeoutError';
      resolve({ ok: false, statusCode: null, error: timedOut ? `No response within ${WEBHOOK_TIMEOUT_MS / 1000} s` : err.message || String(err) });
    });
    request.end(body);
  });
}

/**
 * Delivers one webhook delivery: `{id, type, occurredAt, tenant, data}` signed with the webhook's
 * secret. A 2xx is Succeeded; a 410 Gone fails it at once and deactivates the webhook; anything
 * else is retried by the queue after WEBHOOK_BACKOFF, then Failed.
 */
export const webhookDeliverJob: JobHandler = {
  backoff: (attempts) => WEBHOOK_BACKOFF[Math.min(attempts, WEBHOOK_BACKOFF.length) - 1] ?? WEBHOOK_BACKOFF.at(-1)!,
  async run(job, ctx) {
    const deliveryId = Number(job.payload.deliveryId);
    const production = ctx.config.nodeEnv === 'production';
    const target = await withTenant(ctx.db, job.tenantId, async (tx) => {
      const [row] = await rows<DeliveryContext>(tx, sql`
        select d.status, w.url, w.is_active, w.secret_encrypted, c.id as change_id, c.type, c.occurred_at, c.data, c.entity_type, c.entity_id, t.slug
        from webhook_deliveries d
        join webhooks w on w.tenant_id = d.tenant_id and w.id = d.webhook_id
        join changes c on c.tenant_id = d.tenant_id and c.id = d.change_id
        join tenants t on t.id = d.tenant_id
        where d.tenant_id = ${job.tenantId} and d.id = ${deliveryId}`);
      return row;
    });
    if (!target || target.status !== 'Pending') return; // deleted webhook, or already settled

    let attempt: Attempt;
    if (!target.is_active && target.type !== 'webhook.test') {
      attempt = { ok: false, statusCode: null, error: 'The webhook is inactive' };
    } else {
      const body = JSON.stringify({
        id: Number(target.change_id),
        type: target.type,
        occurredAt: new Date(target.occurred_at).toISOString(),
        tenant: target.slug,
        entity: { type: target.entity_type, id: Number(target.entity_id) },
        data: target.data,
      });
      const secret = decryptSecret(target.secret_encrypted, ctx.config.jwtSecret);
      const headers = { 'parish-signature': signatureHeader(secret, body, Math.floor(Date.now() / 1000)), 'parish-delivery': String(deliveryId) };
      attempt = await post(target.url, body, headers, production);
    }

    const gone = attempt.statusCode === 410;
    const final = attempt.ok || gone || !target.is_active || job.attempts >= job.maxAttempts;
    const status = attempt.ok ? 'Succeeded' : final ? 'Failed' : 'Pending';
    const retryIn = final ? null : webhookDeliverJob.backoff!(job.attempts);
    await withTenant(ctx.db, job.tenantId, async (tx) => {
      await tx.execute(sql`update webhook_deliveries set status = ${status}, attempts = ${job.attempts},
          last_status_code = ${attempt.statusCode}, last_error = ${attempt.error},
          next_attempt_at = ${retryIn === null ? sql`null` : sql`now() + make_interval(secs => ${retryIn})`},
          delivered_at = ${attempt.ok ? sql`now()` : sql`null`}
        where tenant_id = ${job.tenantId} and id = ${deliveryId}`);
      if (gone) {
        await tx.execute(sql`update webhooks set is_active = false, updated_at = now()
          where tenant_id = ${job.tenantId} and id = (select webhook_id from webhook_deliveries where tenant_id = ${job.tenantId} and id = ${deliveryId})`);
      }
    });
    if (!final) throw new Error(attempt.error ?? 'Delivery failed');
  },
};
