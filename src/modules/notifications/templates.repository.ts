import { and, asc, count, eq, ne, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { messageTemplates as t } from '../../db/schema/index.js';
import type { Page } from '../../lib/pagination.js';
import type { TemplateItem } from './notifications.schemas.js';

const columns = { id: t.id, name: t.name, subject: t.subject, body: t.body, createdAt: t.createdAt, updatedAt: t.updatedAt };
const toItem = (r: { id: number; name: string; subject: string; body: string; createdAt: Date; updatedAt: Date }): TemplateItem => ({
  ...r, createdAt: r.createdAt.toISOString(), updatedAt: r.updatedAt.toISOString(),
});

export async function pageTemplates(tx: Db, tenantId: number, page: Page) {
  const rows = await tx.select(columns).from(t).where(eq(t.tenantId, tenantId)).orderBy(asc(t.name), asc(t.id)).limit(page.limit).offset(page.offset);
  const [{ total }] = await tx.select({ total: count() }).from(t).where(eq(t.tenantId, tenantId));
  return { items: rows.map(toItem), total: Number(total) };
}

export async function findTemplate(tx: Db, tenantId: number, id: number): Promise<TemplateItem | undefined> {
  const [row] = await tx.select(columns).from(t).where(and(eq(t.tenantId, tenantId), eq(t.id, id)));
  return row && toItem(row);
}

export async function templateNameTaken(tx: Db, tenantId: number, name: string, exceptId?: number): Promise<boolean> {
  const [row] = await tx.select({ id: t.id }).from(t)
    .where(and(eq(t.tenantId, tenantId), sql`lower(${t.name}) = lower(${name})`, exceptId === undefined ? undefined : ne(t.id, exceptId)));
  return row !== undefined;
}

export async function insertTemplate(tx: Db, tenantId: number, values: { name: string; subject: string; body: string }): Promise<TemplateItem> {
  const [row] = await tx.insert(t).values({ tenantId, ...values }).returning(columns);
  return toItem(row);
}

export async function updateTemplate(tx: Db, tenantId: number, id: number, values: { name?: string; subject?: string; body?: string }): Promise<TemplateItem | undefined> {
  const [row] = await tx.update(t).set({ ...values, updatedAt: sql`now()` }).where(and(eq(t.tenantId, tenantId), eq(t.id, id))).returning(columns);
  return row && toItem(row);
}

export async function deleteTemplate(tx: Db, tenantId: number, id: number): Promise<boolean> {
  return (await tx.delete(t).where(and(eq(t.tenantId, tenantId), eq(t.id, id))).returning({ id: t.id })).length > 0;
}
