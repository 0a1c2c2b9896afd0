import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { sql, type SQL } from 'drizzle-orm';
import { redactChange } from '../../changes/readable.js';
import { recordChanges } from '../../changes/recorder.js';
import { CHANGE_TYPES } from '../../changes/types.js';
import type { ChangeEvent, ChangeSubscriber } from '../../changes/subscribers.js';
import { withTenant, type Db } from '../../db/client.js';
import { enqueueJobs, type Job, type JobHandler } from '../../jobs/queue.js';
import type { WebhookItem } from './notifications.schemas.js';
import { readsOf } from './readers.js';
import { activeWebhooks, insertDeliveries } from './webhooks.repository.js';
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
 * What webhook changes carry: the subscription's url and events, never its secret (nor anything
 * derived from it).
 */
export const webhookData = (w: Pick<WebhookItem, 'id' | 'url' | 'events' | 'isActive'>) => ({ webhookId: w.id, url: w.url, events: w.events, isActive: w.isActive });

/**
 * Fans each change out into one delivery row (and one job) per active webhook of its tenant that
 * subscribes to its type and whose owner may read it now (src/changes/readable.ts: a change the
 * owner may not read gets no delivery at all, not even a row naming its type); the subscriber runs
 * in the change's tenant, so a webhook only ever receives its own tenant's changes. `webhook.test`
 * is delivered by the test route itself; the other webhook.* changes (created, updated, deleted,
 * secret_rotated, redelivered) may be subscribed like any type (their data has the webhook's id,
 * url and events, never its secret).
 */
export const webhookFanOut: ChangeSubscriber = {
  name: 'webhooks.fan-out',
  types: CHANGE_TYPES.filter((t) => t !== 'webhook.test'),
  handle: (tx, change) => fanOut(tx, [change]),
  handleBatch: fanOut,
};

async function fanOut(tx: Db, changes: readonly ChangeEvent[]): Promise<void> {
  const tenantId = changes[0].tenantId;
  const hooks = (await activeWebhooks(tx, tenantId)).filter((w) => w.ownerUserId !== null);
  if (hooks.length === 0) return;
  const reads = await readsOf(tx, tenantId, hooks.map((w) => w.ownerUserId!), changes.map((c) => c.id));
  const items = changes.flatMap((c) => hooks
    .filter((w) => (w.events.includes('*') || w.events.includes(c.type)) && reads.get(w.ownerUserId!)?.changeIds.has(c.id))
    .map((w) => ({ webhookId: w.id, changeId: c.id, type: c.type })));
  await enqueueJobs(tx, tenantId, deliveryJobs(await insertDeliveries(tx, tenantId, items)));
}

/** Why a delivery is not sent: its owner may not read the change now (or is disabled, deleted, or none). */
export const WITHHELD = "Withheld: the webhook's owner may not read this change now (or is disabled or gone)";

interface DeliveryContext {
  id: string | number;
  webhook_id: string | number;
  status: string;
  url: string;
  is_active: boolean;
  owner_user_id: string | number | null;
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

/**
 * Connections to receivers are kept alive and reused (a fan-out of thousands of deliveries to one
 * receiver would otherwise open a connection per delivery); at most 32 at once per receiver.
 */
const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 32 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 32 }),
};

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
    const protocol = url.protocol as 'http:' | 'https:';
    const request = (protocol === 'https:' ? https : http).request(url, {
      method: 'POST',
      agent: agents[protocol],
      headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'Parish-Webhooks/1', ...headers },
      // A kept-alive connection was checked when it was opened: it stays on the address it was opened to.
      ...(production ? { lookup: safeLookup } : {}),
    });
    // The 10 s run from when the request gets a connection, not while it waits for one of the
    // receiver's 32 (a batch to one slow receiver queues there).
    let timer: NodeJS.Timeout | undefined;
    request.once('socket', () => {
      timer = setTimeout(() => request.destroy(Object.assign(new Error('timeout'), { name: 'TimeoutError' })), WEBHOOK_TIMEOUT_MS);
    });
    request.once('close', () => clearTimeout(timer));
    request.on('response', (response) => {
      response.resume();
      const code = response.statusCode ?? 0;
      const finish = () => resolve({ ok: code >= 200 && code < 300, statusCode: code, error: code >= 200 && code < 300 ? null : `HTTP ${code}` });
      response.on('end', finish);
      response.on('error', finish);
    });
    request.on('error', (err) => {
      const timedOut = err.name === 'TimeoutError';
      resolve({ ok: false, statusCode: null, error: timedOut ? `No response within ${WEBHOOK_TIMEOUT_MS / 1000} s` : err.message || String(err) });
    });
    request.end(body);
  });
}

/**
 * Signs and sends one delivery: only when the owner may read the change at this moment (`permissions`
 * set; null when not), with the fields the owner may read (redactChange).
 */
function attempt(target: DeliveryContext, permissions: ReadonlySet<string> | null, secret: string, production: boolean): Promise<Attempt> {
  if (!target.is_active && target.type !== 'webhook.test') return Promise.resolve({ ok: false, statusCode: null, error: 'The webhook is inactive' });
  if (!permissions) return Promise.resolve({ ok: false, statusCode: null, error: WITHHELD });
  const body = JSON.stringify({
    id: Number(target.change_id),
    type: target.type,
    occurredAt: new Date(target.occurred_at).toISOString(),
    tenant: target.slug,
    entity: { type: target.entity_type, id: Number(target.entity_id) },
    data: redactChange(permissions, { data: target.data }).data,
  });
  const headers = { 'parish-signature': signatureHeader(secret, body, Math.floor(Date.now() / 1000)), 'parish-delivery': String(target.id) };
  return post(target.url, body, headers, production);
}

const backoff = (attempts: number) => WEBHOOK_BACKOFF[Math.min(attempts, WEBHOOK_BACKOFF.length) - 1] ?? WEBHOOK_BACKOFF.at(-1)!;

/**
 * Delivers webhook deliveries, a batch of one tenant's at a time (the worker batches this job
 * kind): `{id, type, occurredAt, tenant, entity, data}` signed with the webhook's secret, sent
 * concurrently. A 2xx is Succeeded; a 410 Gone fails it at once and deactivates the webhook;
 * anything else is retried by the queue after WEBHOOK_BACKOFF, then Failed. The batch's deliveries
 * are read in one statement and settled in one.
 */
export const webhookDeliverJob: JobHandler = {
  backoff,
  async runBatch(jobs, ctx) {
    const tenantId = jobs[0].tenantId;
    const production = ctx.config.nodeEnv === 'production';
    const deliveryIds = jobs.map((j) => Number(j.payload.deliveryId));
    const targets = await withTenant(ctx.db, tenantId, (tx) => rows<DeliveryContext>(tx, sql`
      select d.id, d.webhook_id, d.status, w.url, w.is_active, w.owner_user_id, w.secret_encrypted, c.id as change_id, c.type, c.occurred_at, c.data, c.entity_type, c.entity_id, t.slug
      from webhook_deliveries d
      join webhooks w on w.tenant_id = d.tenant_id and w.id = d.webhook_id
      join changes c on c.tenant_id = d.tenant_id and c.id = d.change_id
      join tenants t on t.id = d.tenant_id
      where d.tenant_id = ${tenantId} and d.id in (${sql.join(deliveryIds.map((id) => sql`${id}`), sql`, `)})`));
    const byId = new Map(targets.map((t) => [Number(t.id), t]));
    const secrets = new Map<string, string>();
    const secretOf = (t: DeliveryContext) => secrets.get(t.secret_encrypted) ?? secrets.set(t.secret_encrypted, decryptSecret(t.secret_encrypted, ctx.config.jwtSecret)).get(t.secret_encrypted)!;

    // A deleted webhook, or a delivery already settled: nothing to send, the job is done.
    const pending = jobs.flatMap((job, i) => {
      const target = byId.get(deliveryIds[i]);
      return target && target.status === 'Pending' ? [{ job, target }] : [];
    });
    // Re-checked now, not at fan-out: a demoted owner's queued and retried deliveries are withheld (Failed, never sent).
    const owners = [...new Set(pending.flatMap(({ target }) => (target.owner_user_id === null ? [] : [Number(target.owner_user_id)])))];
    const reads = await withTenant(ctx.db, tenantId, (tx) => readsOf(tx, tenantId, owners, pending.map(({ target }) => Number(target.change_id))));
    const mayRead = (t: DeliveryContext) => {
      const owner = t.owner_user_id === null ? undefined : reads.get(Number(t.owner_user_id));
      return owner?.changeIds.has(Number(t.change_id)) ? owner.permissions : null;
    };
    const attempts = await Promise.all(pending.map(({ target }) => attempt(target, mayRead(target), secretOf(target), production)));
    const settled = pending.map(({ job, target }, i) => {
      const a = attempts[i];
      const final = a.ok || a.statusCode === 410 || !target.is_active || a.error === WITHHELD || job.attempts >= job.maxAttempts;
      return { job, target, attempt: a, final, status: a.ok ? 'Succeeded' : final ? 'Failed' : 'Pending', retryIn: final ? null : backoff(job.attempts) };
    });
    if (settled.length) {
      await withTenant(ctx.db, tenantId, async (tx) => {
        const values = settled.map((s) => ({
          id: Number(s.target.id), status: s.status, attempts: s.job.attempts, code: s.attempt.statusCode, error: s.attempt.error, retry_in: s.retryIn, ok: s.attempt.ok,
        }));
        await tx.execute(sql`update webhook_deliveries d set status = v.status, attempts = v.attempts, last_status_code = v.code, last_error = v.error,
            next_attempt_at = case when v.retry_in is null then null else now() + make_interval(secs => v.retry_in) end,
            delivered_at = case when v.ok then now() end
          from jsonb_to_recordset(${JSON.stringify(values)}::jsonb) as v(id bigint, status text, attempts int, code int, error text, retry_in int, ok boolean)
          where d.tenant_id = ${tenantId} and d.id = v.id`);
        const gone = [...new Set(settled.filter((s) => s.attempt.statusCode === 410).map((s) => Number(s.target.webhook_id)))];
        if (gone.length) {
          // The worker's write (no user): webhook.updated, for those that were still active.
          const deactivated = await rows<{ id: string | number; url: string; events: string[] }>(tx, sql`update webhooks set is_active = false, updated_at = now()
            where tenant_id = ${tenantId} and is_active and id in (${sql.join(gone.map((id) => sql`${id}`), sql`, `)})
            returning id, url, events`);
          await recordChanges(tx, { tenantId, userId: null }, deactivated.map((w) => ({
            type: 'webhook.updated' as const, entityId: Number(w.id), changes: { isActive: { from: true, to: false } },
            data: { ...webhookData({ id: Number(w.id), url: w.url, events: w.events, isActive: false }), reason: 'The receiver answered 410 Gone' },
          })));
        }
      });
    }
    const failures = new Map(settled.filter((s) => !s.final).map((s) => [s.job, new Error(s.attempt.error ?? 'Delivery failed')]));
    return jobs.map((job: Job) => failures.get(job) ?? null);
  },
};
