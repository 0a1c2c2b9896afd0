import { and, asc, eq, or, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { users } from '../../db/schema/index.js';
import { savedLists } from '../../db/schema/search.js';
import type { Page } from '../../lib/pagination.js';

/** Saved lists: the caller's own, and the shared ones. */

export type SavedListRow = typeof savedLists.$inferSelect & { ownerUsername: string };

/** Visible to the owner; to everyone (with contacts:read, checked by the route) when shared. */
export function visibleTo(userId: number): SQL {
  return or(eq(savedLists.ownerUserId, userId), eq(savedLists.shared, true))!;
}

function selectLists(tx: Db, tenantId: number) {
  return tx
    .select({
      id: savedLists.id, tenantId: savedLists.tenantId, name: savedLists.name, criteria: savedLists.criteria, shared: savedLists.shared,
      ownerUserId: savedLists.ownerUserId, createdAt: savedLists.createdAt, updatedAt: savedLists.updatedAt, ownerUsername: users.username,
    })
    .from(savedLists)
    .innerJoin(users, and(eq(users.tenantId, tenantId), eq(users.id, savedLists.ownerUserId)));
}

export async function findList(tx: Db, tenantId: number, userId: number, id: number): Promise<SavedListRow | undefined> {
  const [row] = await selectLists(tx, tenantId).where(and(eq(savedLists.tenantId, tenantId), eq(savedLists.id, id), visibleTo(userId)));
  return row;
}

export async function listLists(tx: Db, tenantId: number, userId: number, filter: { shared?: boolean }, page: Page) {
  const parts: SQL[] = [eq(savedLists.tenantId, tenantId)];
  if (filter.shared === true) parts.push(eq(savedLists.shared, true));
  else if (filter.shared === false) parts.push(and(eq(savedLists.shared, false), eq(savedLists.ownerUserId, userId))!);
  else parts.push(visibleTo(userId));
  const rows = await selectLists(tx, tenantId)
    .where(and(...parts))
    .orderBy(asc(savedLists.name), asc(savedLists.id))
    .limit(page.limit)
    .offset(page.offset);
  const [{ total }] = await tx.select({ total: sql<number>`count(*)::int` }).from(savedLists).where(and(...parts));
  return { rows, total: Number(total) };
}

export interface ListValues {
  name: string;
  criteria: Record<string, unknown>;
  shared: boolean;
}

export async function insertList(tx: Db, tenantId: number, ownerUserId: number, values: ListValues): Promise<number> {
  const [row] = await tx.insert(savedLists).values({ tenantId, ownerUserId, ...values }).returning({ id: savedLists.id });
  return row.id;
}

export async function updateList(tx: Db, tenantId: number, id: number, values: Partial<ListValues>): Promise<void> {
  await tx.update(savedLists).set({ ...values, updatedAt: new Date() }).where(and(eq(savedLists.tenantId, tenantId), eq(savedLists.id, id)));
}

export async function deleteList(tx: Db, tenantId: number, id: number): Promise<void> {
  await tx.delete(savedLists).where(and(eq(savedLists.tenantId, tenantId), eq(savedLists.id, id)));
}
