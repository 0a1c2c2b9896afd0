import { and, eq, inArray, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { roles, userRoles, users } from '../../db/schema/index.js';

export type UserRow = typeof users.$inferSelect;

/** The user's effective permissions: the union of its roles' permissions. */
const permissionsOf = sql<string[]>`coalesce((
  select array_agg(distinct p order by p)
  from ${userRoles} ur
  join ${roles} r on r.tenant_id = ur.tenant_id and r.id = ur.role_id
  cross join lateral unnest(r.permissions) p
  where ur.tenant_id = "users"."tenant_id" and ur.user_id = "users"."id"
), '{}')`;

const roleNamesOf = sql<string[]>`coalesce((
  select array_agg(r.name order by r.name)
  from ${userRoles} ur join ${roles} r on r.tenant_id = ur.tenant_id and r.id = ur.role_id
  where ur.tenant_id = "users"."tenant_id" and ur.user_id = "users"."id"
), '{}')`;

/** Prepared once per database: it runs on every authenticated request. */
export function preparePrincipalQuery(db: Db) {
  return db
    .select({ id: users.id, tenantId: users.tenantId, contactId: users.contactId, username: users.username, permissions: permissionsOf })
    .from(users)
    .where(and(eq(users.tenantId, sql.placeholder('tenantId')), eq(users.id, sql.placeholder('userId')), eq(users.status, 'Active')))
    .prepare('load_principal');
}

/** Login accepts the username or the email, case-insensitively. */
export async function findUserByLogin(db: Db, tenantId: number, login: string): Promise<UserRow | undefined> {
  const value = login.toLowerCase();
  const rows = await db
    .select()
    .from(users)
    .where(and(eq(users.tenantId, tenantId), or(sql`lower(${users.username}) = ${value}`, sql`lower(${users.email}) = ${value}`)))
    .limit(2);
  // A username equal to another user's email would be ambiguous; the username wins.
  return rows.find((u) => u.username.toLowerCase() === value) ?? rows[0];
}

export async function findUserProfile(db: Db, tenantId: number, userId: number) {
  const [row] = await db
    .select({ id: users.id, username: users.username, email: users.email, contactId: users.contactId, roles: roleNamesOf, permissions: permissionsOf })
    .from(users)
    .where(and(eq(users.tenantId, tenantId), eq(users.id, userId)));
  return row;
}

export async function isUsernameOrEmailTaken(db: Db, tenantId: number, username: string, email?: string | null) {
  const rows = await db
    .select({ username: users.username, email: users.email })
    .from(users)
    .where(
      and(
        eq(users.tenantId, tenantId),
        or(sql`lower(${users.username}) = ${username.toLowerCase()}`, email ? sql`lower(${users.email}) = ${email.toLowerCase()}` : sql`false`),
      ),
    );
  if (rows.some((r) => r.username.toLowerCase() === username.toLowerCase())) return 'username';
  if (rows.length > 0) return 'email';
  return undefined;
}

export async function insertUser(
  tx: Db,
  tenantId: number,
  values: { username: string; email?: string | null; passwordHash: string | null; contactId: number; roleIds: number[] },
): Promise<UserRow> {
  const { roleIds, ...user } = values;
  const [row] = await tx.insert(users).values({ tenantId, ...user }).returning();
  if (roleIds.length > 0) await tx.insert(userRoles).values(roleIds.map((roleId) => ({ tenantId, userId: row.id, roleId })));
  return row;
}

export async function setPasswordHash(tx: Db, tenantId: number, userId: number, passwordHash: string) {
  await tx.update(users).set({ passwordHash, updatedAt: new Date() }).where(and(eq(users.tenantId, tenantId), eq(users.id, userId)));
}

export async function touchLastLogin(db: Db, tenantId: number, userId: number) {
  await db.update(users).set({ lastLoginAt: new Date() }).where(and(eq(users.tenantId, tenantId), eq(users.id, userId)));
}

export async function findRoleIdsByName(db: Db, tenantId: number, names: string[]): Promise<number[]> {
  const rows = await db.select({ id: roles.id }).from(roles).where(and(eq(roles.tenantId, tenantId), inArray(roles.name, names)));
  return rows.map((r) => r.id);
}
