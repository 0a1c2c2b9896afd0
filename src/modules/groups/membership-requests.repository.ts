import { and, asc, count, eq, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { companies, groupMembershipRequests, groups, persons } from '../../db/schema/index.js';
import type { Page } from '../../lib/pagination.js';
import { companyJoin, contactNameColumns, personJoin } from './contact-refs.js';

export type RequestRow = typeof groupMembershipRequests.$inferSelect;
type Status = RequestRow['status'];

const columns = {
  id: groupMembershipRequests.id,
  contactId: groupMembershipRequests.contactId,
  groupId: groupMembershipRequests.groupId,
  groupName: groups.name,
  status: groupMembershipRequests.status,
  createdAt: groupMembershipRequests.createdAt,
  handledAt: groupMembershipRequests.handledAt,
  handledBy: groupMembershipRequests.handledBy,
  ...contactNameColumns,
};

const groupJoin = and(eq(groups.tenantId, groupMembershipRequests.tenantId), eq(groups.id, groupMembershipRequests.groupId));

function selectRequests(tx: Db, tenantId: number) {
  return tx
    .select(columns)
    .from(groupMembershipRequests)
    .innerJoin(groups, groupJoin)
    .leftJoin(persons, personJoin(tenantId, groupMembershipRequests.contactId))
    .leftJoin(companies, companyJoin(tenantId, groupMembershipRequests.contactId))
    .$dynamic();
}

type Selected = Awaited<ReturnType<ReturnType<typeof selectRequests>['execute']>>[number];

function toOut(r: Selected) {
  return {
    id: r.id, contactId: r.contactId, groupId: r.groupId, status: r.status,
    contact: { id: r.contactId, firstName: r.firstName, lastName: r.lastName },
    group: { id: r.groupId, name: r.groupName },
    createdAt: r.createdAt.toISOString(), handledAt: r.handledAt?.toISOString() ?? null, handledBy: r.handledBy,
  };
}

/** `filters` may name groups columns (the pending list is limited to manageable groups). */
export async function listRequests(tx: Db, tenantId: number, filters: SQL[], page: Page) {
  const where = and(eq(groupMembershipRequests.tenantId, tenantId), ...filters);
  const rows = await selectRequests(tx, tenantId).where(where).orderBy(asc(groupMembershipRequests.createdAt), asc(groupMembershipRequests.id)).limit(page.limit).offset(page.offset);
  const [{ total }] = await tx.select({ total: count() }).from(groupMembershipRequests).innerJoin(groups, groupJoin).where(where);
  return { rows: rows.map(toOut), total };
}

export async function getRequestOut(tx: Db, tenantId: number, id: number) {
  const [row] = await selectRequests(tx, tenantId).where(and(eq(groupMembershipRequests.tenantId, tenantId), eq(groupMembershipRequests.id, id)));
  return toOut(row);
}

export async function findRequest(tx: Db, tenantId: number, id: number): Promise<RequestRow | undefined> {
  const [row] = await tx.select().from(groupMembershipRequests).where(and(eq(groupMembershipRequests.tenantId, tenantId), eq(groupMembershipRequests.id, id)));
  return row;
}

export async function findPending(tx: Db, tenantId: number, groupId: number, contactId: number) {
  const [row] = await tx
    .select({ id: groupMembershipRequests.id })
    .from(groupMembershipRequests)
    .where(and(
      eq(groupMembershipRequests.tenantId, tenantId), eq(groupMembershipRequests.groupId, groupId),
      eq(groupMembershipRequests.contactId, contactId), eq(groupMembershipRequests.status, 'Pending'),
    ));
  return row;
}

export async function insertRequest(tx: Db, tenantId: number, groupId: number, contactId: number): Promise<number> {
  const [row] = await tx.insert(groupMembershipRequests).values({ tenantId, groupId, contactId }).returning({ id: groupMembershipRequests.id });
  return row.id;
}

/** Pending → handled; false when another request handled it first (the guard is the WHERE). */
export async function handleRequest(tx: Db, tenantId: number, id: number, status: Status, userId: number): Promise<boolean> {
  const rows = await tx
    .update(groupMembershipRequests)
    .set({ status, handledAt: new Date(), handledBy: userId })
    .where(and(eq(groupMembershipRequests.tenantId, tenantId), eq(groupMembershipRequests.id, id), eq(groupMembershipRequests.status, 'Pending')))
    .returning({ id: groupMembershipRequests.id });
  return rows.length === 1;
}
