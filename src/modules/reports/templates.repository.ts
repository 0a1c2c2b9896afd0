import { and, asc, count, eq, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { groupCategories, reportSubmissions, reportTemplates, type ReportField, type ReportFrequency } from '../../db/schema/index.js';
import type { Page } from '../../lib/pagination.js';
import type { TemplateItem } from './templates.schemas.js';

const t = reportTemplates;

const templateColumns = {
  id: t.id,
  name: t.name,
  description: t.description,
  groupCategoryId: t.groupCategoryId,
  categoryName: groupCategories.name,
  frequency: t.frequency,
  fields: t.fields,
  isActive: t.isActive,
  createdAt: t.createdAt,
  updatedAt: t.updatedAt,
};

type TemplateRow = {
  id: number;
  name: string;
  description: string | null;
  groupCategoryId: number;
  categoryName: string;
  frequency: ReportFrequency;
  fields: ReportField[];
  isActive: boolean;
  createdAt: Date;
  updatedAt: Date;
};

export function toTemplateItem(r: TemplateRow): TemplateItem {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    groupCategoryId: r.groupCategoryId,
    groupCategory: { id: r.groupCategoryId, name: r.categoryName },
    frequency: r.frequency,
    fields: r.fields,
    isActive: r.isActive,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}

function selectTemplates(tx: Db) {
  return tx
    .select(templateColumns)
    .from(t)
    .innerJoin(groupCategories, and(eq(groupCategories.tenantId, t.tenantId), eq(groupCategories.id, t.groupCategoryId)));
}

export async function findTemplate(tx: Db, tenantId: number, id: number): Promise<TemplateItem | undefined> {
  const [row] = await selectTemplates(tx).where(and(eq(t.tenantId, tenantId), eq(t.id, id)));
  return row && toTemplateItem(row);
}

export async function listTemplates(
  tx: Db,
  tenantId: number,
  filter: { isActive?: boolean; groupCategoryId?: number },
  page: Page,
): Promise<{ items: TemplateItem[]; total: number }> {
  const where: SQL[] = [eq(t.tenantId, tenantId)];
  if (filter.isActive !== undefined) where.push(eq(t.isActive, filter.isActive));
  if (filter.groupCategoryId !== undefined) where.push(eq(t.groupCategoryId, filter.groupCategoryId));
  const [rows, [{ n }]] = await Promise.all([
    selectTemplates(tx).where(and(...where)).orderBy(asc(t.name), asc(t.id)).limit(page.limit).offset(page.offset),
    tx.select({ n: count() }).from(t).where(and(...where)),
  ]);
  return { items: rows.map(toTemplateItem), total: Number(n) };
}

export async function categoryExists(tx: Db, tenantId: number, id: number): Promise<boolean> {
  const [row] = await tx.select({ id: groupCategories.id }).from(groupCategories).where(and(eq(groupCategories.tenantId, tenantId), eq(groupCategories.id, id)));
  return row !== undefined;
}

export interface TemplateValues {
  name: string;
  description: string | null;
  groupCategoryId: number;
  frequency: ReportFrequency;
  fields: ReportField[];
  isActive: boolean;
}

export async function insertTemplate(tx: Db, tenantId: number, v: TemplateValues): Promise<number> {
  const [row] = await tx.insert(t).values({ tenantId, ...v }).returning({ id: t.id });
  return row.id;
}

export async function updateTemplate(tx: Db, tenantId: number, id: number, v: Partial<TemplateValues>): Promise<void> {
  await tx.update(t).set({ ...v, updatedAt: sql`now()` }).where(and(eq(t.tenantId, tenantId), eq(t.id, id)));
}

export async function deleteTemplate(tx: Db, tenantId: number, id: number): Promise<void> {
  await tx.delete(t).where(and(eq(t.tenantId, tenantId), eq(t.id, id)));
}

export async function hasSubmissions(tx: Db, tenantId: number, templateId: number): Promise<boolean> {
  const [row] = await tx
    .select({ id: reportSubmissions.id })
    .from(reportSubmissions)
    .where(and(eq(reportSubmissions.tenantId, tenantId), eq(reportSubmissions.templateId, templateId)))
    .limit(1);
  return row !== undefined;
}
