import { and, asc, count, eq, ne, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { roles, userRoles } from '../../db/schema/index.js';
import { containsPattern } from '../../lib/like.js';

const userCount = sql<number>`(select count(*)::int from ${userRoles} where ${userRoles.tenantId} = "roles"."tenant_id" and ${userRoles.roleId} = "roles"."id")`;

const roleColumns = {
  id: roles.id,
  name: roles.name,
  description: roles.description,
  permissions: roles.permissions,
  isSystem: roles.isSystem,
  userCount: userCount.mapWith(Number),
};

export type RoleItem = { id: number; name: string; description: string | null; permissions: string[]; isSystem: boolean; userCount: number };

export async function listRoles(tx: Db, tenantId: number, q: string | undefined, limit: number, offset: number) {
  const where = and(eq(roles.tenantId, tenantId), q ? sql`lower(${roles.name}) like ${containsPattern(q.toLowerCase())}` : undefined);
  const rows: RoleItem[] = await tx.select(roleColumns).from(roles).where(where).orderBy(asc(sql`lower(${roles.name})`), asc(roles.id)).limit(limit).offset(offset);
  const [{ total }] = await tx.select({ total: count() }).from(roles).where(where);
  return { rows, total };
}

export async function findRole(tx: Db, tenantId: number, roleId: number): Promise<RoleItem | undefined> {
  const [row] = await tx.select(roleColumns).from(roles).where(and(eq(roles.tenantId, tenantId), eq(roles.id, roleId)));
  return row;
}

export async function isRoleNameTaken(tx: Db, tenantId: number, name: string, exceptRoleId?: number): Promise<boolean> {
  const [row] = await tx
    .select({ id: roles.id })
    .from(roles)
    .where(and(eq(roles.tenantId, tenantId), sql`lower(${roles.name}) = ${name.toLowerCase()}`, exceptRoleId ? ne(roles.id, exceptRoleId) : undefined))
    .limit(1);
  return row !== undefined;
}

export async function insertRole(tx: Db, tenantId: number, values: { name: string; description: string | null; permissions: string[] }): Promise<number> {
  const [row] = await tx.insert(roles).values({ tenantId, ...values }).returning({ id: roles.id });
  return row.id;
}

export async function updateRole(tx: Db, tenantId: number, roleId: number, values: { name?: string; description?: string | null; permissions?: string[] }) {
  await tx.update(roles).set(values).where(and(eq(roles.tenantId, tenantId), eq(roles.id, roleId)));
}

export async function deleteRole(tx: Db, tenantId: number, roleId: number) {
  await tx.delete(roles).where(and(eq(roles.tenantId, tenantId), eq(roles.id, roleId)));
}
