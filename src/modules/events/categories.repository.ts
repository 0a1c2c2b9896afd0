import { and, asc, count, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { eventCategories as c } from '../../db/schema/index.js';
import type { Page } from '../../lib/pagination.js';

const columns = { id: c.id, name: c.name, description: c.description };

export async function pageCategories(tx: Db, tenantId: number, page: Page) {
  const items = await tx.select(columns).from(c).where(eq(c.tenantId, tenantId)).orderBy(asc(c.name), asc(c.id)).limit(page.limit).offset(page.offset);
  const [{ total }] = await tx.select({ total: count() }).from(c).where(eq(c.tenantId, tenantId));
  return { items, total: Number(total) };
}

/** Names are unique per tenant regardless of case (the unique index is on lower(name)). */
export async function categoryNameTaken(tx: Db, tenantId: number, name: string): Promise<boolean> {
  const [row] = await tx.select({ id: c.id }).from(c).where(and(eq(c.tenantId, tenantId), sql`lower(${c.name}) = lower(${name})`));
  return row !== undefined;
}

export async function insertCategory(tx: Db, tenantId: number, values: { name: string; description: string | null }) {
  const [row] = await tx.insert(c).values({ tenantId, ...values }).returning(columns);
  return row;
}
