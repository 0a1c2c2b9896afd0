import { and, count, desc, eq, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { webhookDeliveries as d, webhooks as w } from '../../db/schema/index.js';
import type { Page } from '../../lib/pagination.js';
import type { WebhookDeliveryItem, WebhookItem } from './notifications.schemas.js';

const columns = { id: w.id, url: w.url, events: w.events, description: w.description, isActive: w.isActive, ownerUserId: w.ownerUserId, createdAt: w.createdAt, updatedAt: w.updatedAt };
type WebhookRow = { id: number; url: string; events: string[]; description: string | null; isActive: boolean; ownerUserId: number | null; createdAt: Date; updatedAt: Date };
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

/** A webhook's sealed secret (never part of its item). */
export async function findSecret(tx: Db, tenantId: number, id: number): Promise<string | undefined> {
  const [row] = await tx.select({ secret: w.secretEncrypted }).from(w).where(and(eq(w.tenantId, tenantId), eq(w.id, id)));
  return row?.secret;
}

export async function insertWebhook(tx: Db, tenantId: number, values: { url: string; events: string[]; description: string | null; isActive: boolean; secretEncrypted: string; ownerUserId: number }) {
  const [row] = await tx.insert(w).values({ tenantId, ...values }).returning(columns);
  return toItem(row);
}

export async function updateWebhook(tx: Db, tenantId: number, id: number, values: Partial<{ url: string; events: string[]; description: string | null; isActive: boolean; secretEncrypted: string; ownerUserId: number }>) {
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

/** The tenant's active webhooks with what they subscribe to and whose permissions bound them (webhooks_active_idx). */
export async function activeWebhooks(tx: Db, tenantId: number): Promise<{ id: number; events: string[]; ownerUserId: number | null }[]> {
  return tx.select({ id: w.id, events: w.events, ownerUserId: w.ownerUserId }).from(w).where(and(eq(w.tenantId, tenantId), eq(w.isActive, true))).orderBy(w.id);
}
