import { and, arrayContains, asc, count, countDistinct, eq, exists, inArray, ne, or, sql, type SQL } from 'drizzle-orm';
import { preparedText, type Db, type LeadingStatement } from '../../db/client.js';
import { contacts, roles, tenants, userRoles, users } from '../../db/schema/index.js';
import { containsPattern } from '../../lib/like.js';

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

/** Who is calling, per request: the active user with its effective permissions. */
function principalQuery(db: Db) {
  return db
    .select({ id: users.id, tenantId: users.tenantId, contactId: users.contactId, username: users.username, permissions: permissionsOf })
    .from(users)
    .where(and(eq(users.tenantId, sql.placeholder('tenantId')), eq(users.id, sql.placeholder('userId')), eq(users.status, 'Active')));
}

export interface PrincipalRow {
  id: number;
  tenantId: number;
  contactId: number;
  username: string;
  permissions: string[];
}

/** Prepared once per database: it runs on every authenticated request. */
export function preparePrincipalQuery(db: Db) {
  return principalQuery(db).prepare('load_principal');
}

/** The same query as a statement for beginTenantAhead (args: tenant id, user id), with a reader of its array-mode row. */
export function principalStatement(db: Db) {
  const statement: LeadingStatement = { name: 'parish_principal', types: ['bigint', 'bigint'], sql: preparedText(principalQuery(db).toSQL(), ['tenantId', 'userId']) };
  return {
    statement,
    read: ([id, tenantId, contactId, username, permissions]: unknown[]): PrincipalRow => ({
      id: Number(id), tenantId: Number(tenantId), contactId: Number(contactId), username: String(username), permissions: permissions as string[],
    }),
  };
}

/** The active ones of `userIds`, each with its effective permissions (readers of the change feed acting without a request). */
export async function findActivePrincipals(tx: Db, tenantId: number, userIds: readonly number[]): Promise<PrincipalRow[]> {
  if (userIds.length === 0) return [];
  return tx
    .select({ id: users.id, tenantId: users.tenantId, contactId: users.contactId, username: users.username, permissions: permissionsOf })
    .from(users)
    .where(and(eq(users.tenantId, tenantId), inArray(users.id, [...userIds]), eq(users.status, 'Active')));
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

// ---- the /api/users module ----

export type UserStatus = UserRow['status'];

export interface UserFilter {
  q?: string;
  roleId?: number;
  status?: UserStatus;
}

const userColumns = {
  id: users.id,
  username: users.username,
  email: users.email,
  contactId: users.contactId,
  status: users.status,
  lastLoginAt: users.lastLoginAt,
  /** Invited and not yet through the link: no password chosen. */
  invitationPending: sql<boolean>`${users.passwordHash} is null`,
};

function userFilter(tenantId: number, filter: UserFilter): SQL | undefined {
  const pattern = filter.q ? containsPattern(filter.q.toLowerCase()) : undefined;
  return and(
    eq(users.tenantId, tenantId),
    filter.status ? eq(users.status, filter.status) : undefined,
    pattern ? or(sql`lower(${users.username}) like ${pattern}`, sql`lower(${users.email}) like ${pattern}`) : undefined,
    filter.roleId
      ? exists(
          sql`(select 1 from ${userRoles} where ${userRoles.tenantId} = "users"."tenant_id" and ${userRoles.userId} = "users"."id" and ${userRoles.roleId} = ${filter.roleId})`,
        )
      : undefined,
  );
}

export async function listUsers(tx: Db, tenantId: number, filter: UserFilter, limit: number, offset: number) {
  const where = userFilter(tenantId, filter);
  const rows = await tx.select(userColumns).from(users).where(where).orderBy(asc(sql`lower(${users.username})`), asc(users.id)).limit(limit).offset(offset);
  const [{ total }] = await tx.select({ total: count() }).from(users).where(where);
  return { rows, total };
}

export async function findUser(tx: Db, tenantId: number, userId: number) {
  const [row] = await tx.select({ ...userColumns, passwordHash: users.passwordHash }).from(users).where(and(eq(users.tenantId, tenantId), eq(users.id, userId)));
  return row;
}

/** Roles of many users in one query: userId → [{id, name}] ordered by name. */
export async function findRolesOfUsers(tx: Db, tenantId: number, userIds: number[]) {
  const byUser = new Map<number, { id: number; name: string }[]>(userIds.map((id) => [id, []]));
  if (userIds.length === 0) return byUser;
  const rows = await tx
    .select({ userId: userRoles.userId, id: roles.id, name: roles.name })
    .from(userRoles)
    .innerJoin(roles, and(eq(roles.tenantId, userRoles.tenantId), eq(roles.id, userRoles.roleId)))
    .where(and(eq(userRoles.tenantId, tenantId), inArray(userRoles.userId, userIds)))
    .orderBy(asc(roles.name), asc(roles.id));
  for (const { userId, id, name } of rows) byUser.get(userId)?.push({ id, name });
  return byUser;
}

/** The union of a user's roles' permissions, sorted. */
export async function findUserPermissions(tx: Db, tenantId: number, userId: number): Promise<string[]> {
  const rows = await tx
    .selectDistinct({ permission: sql<string>`unnest(${roles.permissions})` })
    .from(userRoles)
    .innerJoin(roles, and(eq(roles.tenantId, userRoles.tenantId), eq(roles.id, userRoles.roleId)))
    .where(and(eq(userRoles.tenantId, tenantId), eq(userRoles.userId, userId)));
  return rows.map((r) => r.permission).sort();
}

export async function findRolesByIds(tx: Db, tenantId: number, roleIds: number[]) {
  if (roleIds.length === 0) return [];
  return tx
    .select({ id: roles.id, name: roles.name, permissions: roles.permissions })
    .from(roles)
    .where(and(eq(roles.tenantId, tenantId), inArray(roles.id, roleIds)));
}

/** A contact and the user already linked to it, if any. */
export async function findContactLink(tx: Db, tenantId: number, contactId: number) {
  const [row] = await tx
    .select({ id: contacts.id, category: contacts.category, userId: users.id })
    .from(contacts)
    .leftJoin(users, and(eq(users.tenantId, contacts.tenantId), eq(users.contactId, contacts.id)))
    .where(and(eq(contacts.tenantId, tenantId), eq(contacts.id, contactId)));
  return row;
}

export async function isEmailTaken(tx: Db, tenantId: number, email: string, exceptUserId: number): Promise<boolean> {
  const [row] = await tx
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.tenantId, tenantId), sql`lower(${users.email}) = ${email.toLowerCase()}`, ne(users.id, exceptUserId)))
    .limit(1);
  return row !== undefined;
}

export async function updateUser(
  tx: Db,
  tenantId: number,
  userId: number,
  values: { email?: string | null; contactId?: number; status?: UserStatus },
) {
  await tx.update(users).set({ ...values, updatedAt: new Date() }).where(and(eq(users.tenantId, tenantId), eq(users.id, userId)));
}

export async function replaceUserRoles(tx: Db, tenantId: number, userId: number, roleIds: number[]) {
  await tx.delete(userRoles).where(and(eq(userRoles.tenantId, tenantId), eq(userRoles.userId, userId)));
  if (roleIds.length > 0) await tx.insert(userRoles).values(roleIds.map((roleId) => ({ tenantId, userId, roleId })));
}

/** Deletes the user; its role links, refresh and reset tokens go with it (foreign key cascades). */
export async function deleteUser(tx: Db, tenantId: number, userId: number) {
  await tx.delete(users).where(and(eq(users.tenantId, tenantId), eq(users.id, userId)));
}

/** Active users holding a permission through any of their roles. */
export async function countActiveHolders(tx: Db, tenantId: number, permission: string): Promise<number> {
  const [{ holders }] = await tx
    .select({ holders: countDistinct(users.id) })
    .from(users)
    .innerJoin(userRoles, and(eq(userRoles.tenantId, users.tenantId), eq(userRoles.userId, users.id)))
    .innerJoin(roles, and(eq(roles.tenantId, userRoles.tenantId), eq(roles.id, userRoles.roleId)))
    .where(and(eq(users.tenantId, tenantId), eq(users.status, 'Active'), arrayContains(roles.permissions, [permission])));
  return holders;
}

export async function findTenantSlug(tx: Db, tenantId: number): Promise<string | undefined> {
  const [row] = await tx.select({ slug: tenants.slug }).from(tenants).where(eq(tenants.id, tenantId));
  return row?.slug;
}
