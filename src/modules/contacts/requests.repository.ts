import { and, count, desc, eq, notInArray, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { contactRequests } from '../../db/schema/index.js';

export type RequestRow = typeof contactRequests.$inferSelect;
type RequestType = RequestRow['type'];
type RequestStatus = RequestRow['status'];

export interface RequestFilter {
  contactId?: number;
  type?: string;
  status?: RequestStatus;
  /** Types the caller may not read (confidential ones without care:read). */
  hiddenTypes?: readonly RequestType[];
}

function where(tenantId: number, filter: RequestFilter): SQL {
  const parts: SQL[] = [eq(contactRequests.tenantId, tenantId)];
  if (filter.contactId !== undefined) parts.push(eq(contactRequests.contactId, filter.contactId));
  if (filter.type) parts.push(eq(contactRequests.type, filter.type));
  if (filter.status) parts.push(eq(contactRequests.status, filter.status));
  if (filter.hiddenTypes?.length) parts.push(notInArray(contactRequests.type, [...filter.hiddenTypes]));
  return and(...parts)!;
}

/** Newest first; id breaks ties. */
export async function listRequests(tx: Db, tenantId: number, filter: RequestFilter, limit: number, offset: number) {
  const rows = await tx
    .select()
    .from(contactRequests)
    .where(where(tenantId, filter))
    .orderBy(desc(contactRequests.createdAt), desc(contactRequests.id))
    .limit(limit)
    .offset(offset);
  const [{ total }] = await tx.select({ total: count() }).from(contactRequests).where(where(tenantId, filter));
  return { rows, total };
}

export async function findRequest(tx: Db, tenantId: number, id: number): Promise<RequestRow | undefined> {
  const [row] = await tx.select().from(contactRequests).where(and(eq(contactRequests.tenantId, tenantId), eq(contactRequests.id, id)));
  return row;
}

export async function insertRequest(
  tx: Db,
  tenantId: number,
  values: { contactId: number; type: RequestType; description: string; status?: RequestStatus },
): Promise<RequestRow> {
  const [row] = await tx.insert(contactRequests).values({ tenantId, ...values }).returning();
  return row;
}

export async function updateRequest(
  tx: Db,
  tenantId: number,
  id: number,
  values: { contactId?: number; type?: RequestType; description?: string; status?: RequestStatus },
): Promise<RequestRow | undefined> {
  const [row] = await tx
    .update(contactRequests)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(contactRequests.tenantId, tenantId), eq(contactRequests.id, id)))
    .returning();
  return row;
}

export async function deleteRequest(tx: Db, tenantId: number, id: number): Promise<boolean> {
  const rows = await tx
    .delete(contactRequests)
    .where(and(eq(contactRequests.tenantId, tenantId), eq(contactRequests.id, id)))
    .returning({ id: contactRequests.id });
  return rows.length > 0;
}
