import { and, asc, count, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { groupCategories } from '../../db/schema/index.js';
import type { Page } from '../../lib/pagination.js';

const columns = {
  id: groupCategories.id,
  name: groupCategories.name,
  description: groupCategories.description,
  purpose: groupCategories.purpose,
  level: groupCategories.level,
};

/** Hierarchy categories first by level, then custom ones by name. */
export async function listCategories(tx: Db, tenantId: number, page: Page) {
  const where = eq(groupCategories.tenantId, tenantId);
  const rows = await tx
    .select(columns)
    .from(groupCategories)
    .where(where)
    .orderBy(sql`${groupCategories.level} asc nulls last`, asc(groupCategories.name), asc(groupCategories.id))
    .limit(page.limit)
    .offset(page.offset);
  const [{ total }] = await tx.select({ total: count() }).from(groupCategories).where(where);
  return { rows, total };
}

export async function findCategoryByName(tx: Db, tenantId: number, name: string) {
  const [row] = await tx
    .select({ id: groupCategories.id })
    .from(groupCategories)
    .where(and(eq(groupCategories.tenantId, tenantId), sql`lower(${groupCategories.name}) = ${name.toLowerCase()}`));
  return row;
}

export async function insertCategory(
  tx: Db,
  tenantId: number,
  values: { name: string; description: string | null; purpose: string | null; level: number | null },
) {
  const [row] = await tx.insert(groupCategories).values({ tenantId, ...values }).returning(columns);
  return row;
}

/** Every category of the tenant, for the import's name lookup. */
export async function allCategories(tx: Db, tenantId: number) {
  return tx.select({ id: groupCategories.id, name: groupCategories.name }).from(groupCategories).where(eq(groupCategories.tenantId, tenantId));
}
