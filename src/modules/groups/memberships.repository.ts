import { and, asc, count, eq, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { companies, groupMemberships, groups, persons } from '../../db/schema/index.js';
import type { MembershipRole } from '../../db/schema/enums.js';
import type { Page } from '../../lib/pagination.js';
import { companyJoin, contactNameColumns, personJoin } from './contact-refs.js';
import type { MembershipOut } from './groups.schemas.js';

export type MembershipRow = typeof groupMemberships.$inferSelect;

const columns = {
  id: groupMemberships.id,
  groupId: groupMemberships.groupId,
  contactId: groupMemberships.contactId,
  role: groupMemberships.role,
  isActive: groupMemberships.isActive,
  groupName: groups.name,
  ...contactNameColumns,
};

function selectMemberships(tx: Db, tenantId: number) {
  return tx
    .select(columns)
    .from(groupMemberships)
    .innerJoin(groups, and(eq(groups.tenantId, groupMemberships.tenantId), eq(groups.id, groupMemberships.groupId)))
    .leftJoin(persons, personJoin(tenantId, groupMemberships.contactId))
    .leftJoin(companies, companyJoin(tenantId, groupMemberships.contactId))
    .$dynamic();
}

type Selected = Awaited<ReturnType<ReturnType<typeof selectMemberships>['execute']>>[number];

function toOut(r: Selected): MembershipOut {
  return {
    id: r.id, groupId: r.groupId, contactId: r.contactId, role: r.role, isActive: r.isActive,
    group: { id: r.groupId, name: r.groupName },
    contact: { id: r.contactId, firstName: r.firstName, lastName: r.lastName },
  };
}

/** `filters` may name groups columns (visibility is applied through the joined group). */
export async function listMemberships(tx: Db, tenantId: number, filters: SQL[], page: Page) {
  const where = and(eq(groupMemberships.tenantId, tenantId), ...filters);
  const rows = await selectMemberships(tx, tenantId).where(where).orderBy(asc(groupMemberships.id)).limit(page.limit).offset(page.offset);
  const [{ total }] = await tx
    .select({ total: count() })
    .from(groupMemberships)
    .innerJoin(groups, and(eq(groups.tenantId, groupMemberships.tenantId), eq(groups.id, groupMemberships.groupId)))
    .where(where);
  return { rows: rows.map(toOut), total };
}

export async function getMembershipOut(tx: Db, tenantId: number, id: number): Promise<MembershipOut> {
  const [row] = await selectMemberships(tx, tenantId).where(and(eq(groupMemberships.tenantId, tenantId), eq(groupMemberships.id, id)));
  return toOut(row);
}

export async function findMembership(tx: Db, tenantId: number, id: number): Promise<MembershipRow | undefined> {
  const [row] = await tx.select().from(groupMemberships).where(and(eq(groupMemberships.tenantId, tenantId), eq(groupMemberships.id, id)));
  return row;
}

export async function findMembershipOf(tx: Db, tenantId: number, groupId: number, contactId: number): Promise<MembershipRow | undefined> {
  const [row] = await tx
    .select()
    .from(groupMemberships)
    .where(and(eq(groupMemberships.tenantId, tenantId), eq(groupMemberships.groupId, groupId), eq(groupMemberships.contactId, contactId)));
  return row;
}

export async function insertMembership(tx: Db, tenantId: number, values: { groupId: number; contactId: number; role: MembershipRole; isActive: boolean }) {
  const [row] = await tx.insert(groupMemberships).values({ tenantId, ...values }).returning({ id: groupMemberships.id });
  return row.id;
}

export async function updateMembership(tx: Db, tenantId: number, id: number, values: { role?: MembershipRole; isActive?: boolean }) {
  await tx.update(groupMemberships).set({ ...values, updatedAt: new Date() }).where(and(eq(groupMemberships.tenantId, tenantId), eq(groupMemberships.id, id)));
}

export async function deleteMembership(tx: Db, tenantId: number, id: number) {
  await tx.delete(groupMemberships).where(and(eq(groupMemberships.tenantId, tenantId), eq(groupMemberships.id, id)));
}

/**
 * Approval: creates an active Member membership, or reactivates an inactive one as Member. An
 * already active membership keeps its role (approval never demotes a leader).
 */
export async function upsertActiveMember(tx: Db, tenantId: number, groupId: number, contactId: number): Promise<number> {
  const [row] = await tx
    .insert(groupMemberships)
    .values({ tenantId, groupId, contactId, role: 'Member', isActive: true })
    .onConflictDoUpdate({
      target: [groupMemberships.tenantId, groupMemberships.groupId, groupMemberships.contactId],
      set: {
        role: sql`case when ${groupMemberships.isActive} then ${groupMemberships.role} else 'Member' end`,
        isActive: true,
        updatedAt: new Date(),
      },
    })
    .returning({ id: groupMemberships.id });
  return row.id;
}
