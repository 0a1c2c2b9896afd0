import { and, count, desc, eq, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { webhookDeliveries as d, webhooks as w } from '../../db/schema/index.js';
import type { Page } from '../../lib/pagination.js';
import type { WebhookDeliveryItem, WebhookItem } from './notifications.schemas.js';

const columns = { id: w.id, url: w.url, events: w.events, description: w.description, isActive: w.isActive, createdAt: w.createdAt, updatedAt: w.updatedAt };
type WebhookRow = { id: number; url: string; events: string[]; description: string | null; isActive: boolean; createdAt: Date; updatedAt: Date };
const toItem = (r: WebhookRow): WebhookItem => ({ ...r, createdAt: r.createdAt.toISOString(), updatedAt: r.updatedAt.toISOString() });

export async function pageWebhooks(tx: Db, tenantId: number, page: Page) {
  const list = await tx.select(columns).from(w).where(eq(w.tenantId, tenantId)).orderBy(w.id).limit(page.limit).offset(page.offset);
  const [{ total }] = await tx.select({ total: count() }).from(w).where(eq(w.tenantId, tenantId));
  return { items: list.map(toItem), total: Number(total) };
}

export async function findWebhook(tx: Db, tenantId: number, id: number): Promise<WebhookItem | undefined> {
  const [row] = await tx.select(columns).from(w).where(and(eq(w.tenantId, tenantId), eq(w.id, id)));
  return row && toItem(row);
}

export async function insertWebhook(tx: Db, tenantId: number, values: { url: string; events: string[]; description: string | null; isActive: boolean; secretEncrypted: string }) {
  const [row] = await tx.insert(w).values({ tenantId, ...values }).returning(columns);
  return toItem(row);
}

export async function updateWebhook(tx: Db, tenantId: number, id: number, values: Partial<{ url: string; events: string[]; description: string | null; isActive: boolean; secretEncrypted: string }>) {
  const [row] = await tx.update(w).set({ ...values, updatedAt: sql`now()` }).where(and(eq(w.tenantId, tenantId), eq(w.id, id))).returning(columns);
  return row && toItem(row);
}

export async function deleteWebhook(tx: Db, tenantId: number, id: number): Promise<boolean> {
  return (await tx.delete(w).where(and(eq(w.tenantId, tenantId), eq(w.id, id))).returning({ id: w.id })).length > 0;
}

const deliveryColumns = {
  id: d.id, webhookId: d.webhookId, changeId: d.changeId, type: d.type, status: d.status, attempts: d.attempts, lastStatusCode: d.lastStatusCode,
  lastError: d.lastError, nextAttemptAt: d.nextAttemptAt, deliveredAt: d.deliveredAt, redeliveryOf: d.redeliveryOf, createdAt: d.createdAt,
};
type DeliveryRow = Omit<WebhookDeliveryItem, 'nextAttemptAt' | 'deliveredAt' | 'createdAt'> & { nextAttemptAt: Date | null; deliveredAt: Date | null; createdAt: Date };
const iso = (v: Date | null) => (v ? v.toISOString() : null);
const toDelivery = (r: DeliveryRow): WebhookDeliveryItem => ({ ...r, nextAttemptAt: iso(r.nextAttemptAt), deliveredAt: iso(r.deliveredAt), createdAt: r.createdAt.toISOString() });

export async function pageDeliveries(tx: Db, tenantId: number, webhookId: number, status: string | undefined, page: Page) {
  const where = and(eq(d.tenantId, tenantId), eq(d.webhookId, webhookId), status ? eq(d.status, status as 'Pending') : undefined);
  const list = await tx.select(deliveryColumns).from(d).where(where).orderBy(desc(d.id)).limit(page.limit).offset(page.offset);
  const [{ total }] = await tx.select({ total: count() }).from(d).where(where);
  return { items: list.map(toDelivery), total: Number(total) };
}

export async function findDelivery(tx: Db, tenantId: number, id: number): Promise<WebhookDeliveryItem | undefined> {
  const [row] = await tx.select(deliveryColumns).from(d).where(and(eq(d.tenantId, tenantId), eq(d.id, id)));
  return row && toDelivery(row);
}

/** One Pending delivery per (webhook, change) pair given; returns their ids in input order. */
export async function insertDeliveries(tx: Db, tenantId: number, items: { webhookId: number; changeId: number; type: string; redeliveryOf?: number | null }[]): Promise<number[]> {
  if (items.length === 0) return [];
  const rows = await tx.insert(d).values(items.map((i) => ({ tenantId, ...i }))).returning({ id: d.id });
  return rows.map((r) => r.id);
}

/**
 * One Pending delivery per change given and per active webhook of the tenant subscribed to its
 * type, in one statement; returns their ids (in change, then webhook order).
 */
export async function insertFanOutDeliveries(tx: Db, tenantId: number, changes: readonly { id: number; type: string }[]): Promise<number[]> {
  if (changes.length === 0) return [];
  const result = await tx.execute(sql`
    insert into webhook_deliveries (tenant_id, webhook_id, change_id, type)
    select ${tenantId}::bigint, w.id, x.id, x.type
    from jsonb_to_recordset(${JSON.stringify(changes.map((c) => ({ id: c.id, type: c.type })))}::jsonb) as x(id bigint, type text)
    join webhooks w on w.tenant_id = ${tenantId} and w.is_active and (x.type = any(w.events) or '*' = any(w.events))
    order by x.id, w.id
    returning id`);
  return (result as unknown as { rows: { id: string | number }[] }).rows.map((r) => Number(r.id)).sort((a, b) => a - b);
}
