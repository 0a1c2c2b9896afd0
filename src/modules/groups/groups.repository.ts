import { and, asc, desc, eq, sql, type SQL } from 'drizzle-orm';
import { byScopeShape, subtreeFilter, visibleGroupCount, visibleGroupFilter, type GroupScope, type ScopeTerms } from './groups.visibility.js';
import { alias } from 'drizzle-orm/pg-core';
import { perHandle, UNNAMED, type Db } from '../../db/client.js';
import { events, groupCategories, groupMemberships, groups } from '../../db/schema/index.js';
import type { Page } from '../../lib/pagination.js';
import { companyJoin, contactNameColumns, personJoin } from './contact-refs.js';
import { companies, persons } from '../../db/schema/index.js';
import type { GroupOut } from './groups.schemas.js';

export type GroupRow = typeof groups.$inferSelect;

const parent = alias(groups, 'parent');

const groupColumns = {
  id: groups.id,
  name: groups.name,
  categoryId: groups.categoryId,
  categoryName: groupCategories.name,
  parentId: groups.parentId,
  parentName: parent.name,
  privacy: groups.privacy,
  details: groups.details,
  street: groups.street,
  city: groups.city,
  country: groups.country,
  metaData: groups.metaData,
};
function selectGroups(tx: Db) {
  return tx
    .select(groupColumns)
    .from(groups)
    .innerJoin(groupCategories, and(eq(groupCategories.tenantId, groups.tenantId), eq(groupCategories.id, groups.categoryId)))
    .leftJoin(parent, and(eq(parent.tenantId, groups.tenantId), eq(parent.id, groups.parentId)))
    .$dynamic();
}

type GroupSelect = Awaited<ReturnType<ReturnType<typeof selectGroups>['execute']>>[number];

function toGroupOut(r: GroupSelect): GroupOut {
  return {
    id: r.id,
    name: r.name,
    category: { id: r.categoryId, name: r.categoryName },
    parent: r.parentId === null ? null : { id: r.parentId, name: r.parentName ?? '' },
    privacy: r.privacy,
    details: r.details,
    address: { street: r.street, city: r.city, country: r.country },
    metaData: r.metaData ?? {},
  };
}

/**
 * The varying values of the hot reads, as placeholders: their statements are built once per
 * database handle (perHandle: once per pooled connection on PostgreSQL) instead of per request;
 * the SQL text and the bound values are those of the statement built with the values themselves.
 */
const P = {
  tenantId: sql.placeholder('tenantId'),
  id: sql.placeholder('id'),
  limit: sql.placeholder('limit'),
  offset: sql.placeholder('offset'),
};


const findGroupQuery = perHandle((tx) => tx.select().from(groups).where(and(eq(groups.tenantId, P.tenantId), eq(groups.id, P.id))).prepare(UNNAMED));

export async function findGroup(tx: Db, tenantId: number, id: number): Promise<GroupRow | undefined> {
  const [row] = await findGroupQuery(tx).execute({ tenantId, id });
  return row;
}

const groupOutQuery = perHandle((tx) => selectGroups(tx).where(and(eq(groups.tenantId, P.tenantId), eq(groups.id, P.id))).prepare(UNNAMED));

export async function getGroupOut(tx: Db, tenantId: number, id: number): Promise<GroupOut> {
  const [row] = await groupOutQuery(tx).execute({ tenantId, id });
  return toGroupOut(row);
}

const ORDER: Record<string, SQL[]> = {
  name: [asc(groups.name), asc(groups.id)],
  '-name': [desc(groups.name), desc(groups.id)],
  id: [asc(groups.id)],
  '-id': [desc(groups.id)],
};

/**
 * The page and the total in ONE round trip: the count is an uncorrelated sub-select (computed once);
 * only a page past the end, which has no row to carry it, needs a second query.
 */
async function pageWithTotal<T extends { total: number }>(tx: Db, rows: T[], where: SQL | undefined, counted?: SQL) {
  if (rows.length > 0) return { rows, total: Number(rows[0].total) };
  if (!counted) return { rows, total: await tx.$count(groups, where) };
  const res = await tx.execute(sql`select ${counted} as total`);
  return { rows, total: Number((res as unknown as { rows: { total: number }[] }).rows[0].total) };
}

function listGroupsSelect(tx: Db, where: SQL | undefined, total: SQL<number> | SQL.Aliased<number>, sort: string) {
  return tx
    .select({ ...groupColumns, total })
    .from(groups)
    .innerJoin(groupCategories, and(eq(groupCategories.tenantId, groups.tenantId), eq(groupCategories.id, groups.categoryId)))
    .leftJoin(parent, and(eq(parent.tenantId, groups.tenantId), eq(parent.id, groups.parentId)))
    .where(where)
    .orderBy(...ORDER[sort]);
}

/** `counted`: the total as a scalar sub-select, when the caller has one cheaper than counting `filters`. */
export async function listGroups(tx: Db, tenantId: number, filters: SQL[], page: Page, sort = 'name', counted?: SQL) {
  const where = and(eq(groups.tenantId, tenantId), ...filters);
  const rows = await listGroupsSelect(tx, where, counted ? sql<number>`${counted}` : tx.$count(groups, where), sort)
    .limit(page.limit)
    .offset(page.offset);
  const { total } = await pageWithTotal(tx, rows, where, counted);
  return { rows: rows.map(toGroupOut), total };
}

function visibleListQuery(tx: Db, terms: ScopeTerms, sort: string) {
  const where = and(eq(groups.tenantId, P.tenantId), visibleGroupFilter(terms));
  return listGroupsSelect(tx, where, sql<number>`${visibleGroupCount(P.tenantId, terms)}`, sort).limit(P.limit).offset(P.offset).prepare(UNNAMED);
}

/** The page statements of the list without filters, per sort (then per scope shape). */
const visibleListQueries = Object.fromEntries(Object.keys(ORDER).map((sort) => [sort, byScopeShape((tx, terms) => visibleListQuery(tx, terms, sort))]));

/**
 * The list without filters (a plain GET /api/groups): the statement of
 * listGroups(tx, tenantId, [visibleGroupFilter(scope)], page, sort, visibleGroupCount(tenantId, scope))
 * with an explicit OFFSET, built once per sort, scope shape and database handle.
 */
export async function listVisibleGroups(tx: Db, tenantId: number, scope: GroupScope, page: Page, sort = 'name') {
  const { query, values } = visibleListQueries[sort](tx, scope);
  const rows = await query.execute({ ...values, tenantId, limit: page.limit, offset: page.offset });
  const total = rows.length > 0 ? Number(rows[0].total) : (await pageWithTotal(tx, rows, undefined, visibleGroupCount(tenantId, scope))).total;
  return { rows: rows.map(toGroupOut), total };
}

export async function listCombo(tx: Db, tenantId: number, filters: SQL[], page: Page, counted?: SQL) {
  const where = and(eq(groups.tenantId, tenantId), ...filters);
  const rows = await tx
    .select({ id: groups.id, name: groups.name, categoryId: groups.categoryId, parentId: groups.parentId, total: counted ? sql<number>`${counted}` : tx.$count(groups, where) })
    .from(groups)
    .where(where)
    .orderBy(asc(groups.name), asc(groups.id))
    .limit(page.limit)
    .offset(page.offset);
  const { total } = await pageWithTotal(tx, rows, where, counted);
  return { rows: rows.map(({ total: _t, ...r }) => r), total };
}

/** Strict descendants of a path: its subtree minus the node itself (index-served). */
export function descendantsOf(path: string): SQL {
  return sql`(${subtreeFilter(groups.path, path)} AND ${groups.path} <> ${path})`;
}

/** A group's children the scope may see, per scope shape (built once per shape and handle). */
const childrenQuery = byScopeShape((tx, terms) =>
  tx
    .select({ id: groups.id, name: groups.name, categoryId: groups.categoryId, categoryName: groupCategories.name, privacy: groups.privacy })
    .from(groups)
    .innerJoin(groupCategories, and(eq(groupCategories.tenantId, groups.tenantId), eq(groupCategories.id, groups.categoryId)))
    .where(and(eq(groups.tenantId, P.tenantId), eq(groups.parentId, P.id), visibleGroupFilter(terms)))
    .orderBy(asc(groups.name), asc(groups.id))
    .prepare(UNNAMED),
);

export async function listChildren(tx: Db, tenantId: number, groupId: number, scope: GroupScope) {
  const { query, values } = childrenQuery(tx, scope);
  const rows = await query.execute({ ...values, tenantId, id: groupId });
  return rows.map((r) => ({ id: r.id, name: r.name, category: { id: r.categoryId, name: r.categoryName }, privacy: r.privacy }));
}

/** How many members a group's single read carries; the rest through GET /api/groups/membership?groupId=. */
export const MEMBERS_IN_READ = 100;

/**
 * The first MEMBERS_IN_READ memberships of a group (active or not) by name, and how many it has in
 * all, in one statement: the count is an uncorrelated sub-select on the membership key's index.
 */
const membersQuery = perHandle((tx) => {
  const ofGroup = and(eq(groupMemberships.tenantId, P.tenantId), eq(groupMemberships.groupId, P.id));
  return tx
    .select({
      id: groupMemberships.id, contactId: groupMemberships.contactId, role: groupMemberships.role, isActive: groupMemberships.isActive, ...contactNameColumns,
      total: tx.$count(groupMemberships, ofGroup),
    })
    .from(groupMemberships)
    .leftJoin(persons, personJoin(P.tenantId, groupMemberships.contactId))
    .leftJoin(companies, companyJoin(P.tenantId, groupMemberships.contactId))
    .where(ofGroup)
    .orderBy(asc(contactNameColumns.lastName), asc(contactNameColumns.firstName), asc(groupMemberships.id))
    .limit(MEMBERS_IN_READ)
    .prepare(UNNAMED);
});

export async function listMembers(tx: Db, tenantId: number, groupId: number) {
  const rows = await membersQuery(tx).execute({ tenantId, id: groupId });
  const members = rows.map((r) => ({
    id: r.id, contactId: r.contactId, role: r.role, isActive: r.isActive,
    contact: { id: r.contactId, firstName: r.firstName, lastName: r.lastName },
  }));
  return { members, memberCount: rows.length > 0 ? Number(rows[0].total) : 0 };
}

export async function categoryExists(tx: Db, tenantId: number, id: number): Promise<boolean> {
  const [row] = await tx.select({ id: groupCategories.id }).from(groupCategories).where(and(eq(groupCategories.tenantId, tenantId), eq(groupCategories.id, id)));
  return row !== undefined;
}

const TREE_LOCK = 0x67726f75; // 'grou'

/**
 * Serializes tree writes (create under a parent, move, import) per tenant, so a path read before
 * a write is still the parent's path when the write lands: two concurrent moves cannot make a cycle.
 */
export async function lockTree(tx: Db, tenantId: number): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(${TREE_LOCK}::int, ${tenantId}::int)`);
}

/** Ids from the groups identity sequence, so a row is inserted with its final path in one statement. */
export async function nextGroupIds(tx: Db, n: number): Promise<number[]> {
  const res = await tx.execute(sql`select nextval(pg_get_serial_sequence('groups', 'id'))::text as id from generate_series(1, ${n}::int)`);
  return (res as unknown as { rows: { id: string }[] }).rows.map((r) => Number(r.id));
}

export type NewGroup = Omit<typeof groups.$inferInsert, 'tenantId'> & { id: number; path: string };

export async function insertGroup(tx: Db, tenantId: number, value: NewGroup): Promise<void> {
  await tx.insert(groups).values({ ...value, tenantId });
}

/**
 * Many groups in one statement with ONE parameter (a JSON array): hundreds of rows of bound
 * parameters cost far more in the drivers than the insert itself.
 */
export async function insertGroups(tx: Db, tenantId: number, values: ImportedGroup[]): Promise<void> {
  if (values.length === 0) return;
  await tx.execute(sql`
    insert into ${groups} (tenant_id, id, name, category_id, parent_id, path)
    select ${tenantId}::bigint, r.id, r.name, r.category_id, r.parent_id, r.path
    from jsonb_to_recordset(${JSON.stringify(values.map((v) => ({ id: v.id, name: v.name, category_id: v.categoryId, parent_id: v.parentId, path: v.path })))}::jsonb)
      as r(id bigint, name text, category_id bigint, parent_id bigint, path text)`);
}

export interface ImportedGroup {
  id: number;
  name: string;
  categoryId: number;
  parentId: number | null;
  path: string;
}

export async function updateGroup(tx: Db, tenantId: number, id: number, values: Partial<typeof groups.$inferInsert>): Promise<void> {
  await tx.update(groups).set({ ...values, updatedAt: new Date() }).where(and(eq(groups.tenantId, tenantId), eq(groups.id, id)));
}

/** Re-roots a whole subtree in ONE statement: every path starting with oldPrefix gets newPrefix. */
export async function moveSubtree(tx: Db, tenantId: number, oldPrefix: string, newPrefix: string): Promise<void> {
  await tx
    .update(groups)
    .set({ path: sql`${newPrefix} || substr(${groups.path}, ${oldPrefix.length + 1})` })
    .where(and(eq(groups.tenantId, tenantId), subtreeFilter(groups.path, oldPrefix)));
}

/** What keeps a group from being deleted (api-contract §6), in one round trip. */
export async function deleteBlockers(tx: Db, tenantId: number, id: number) {
  const res = await tx.execute(sql`select
      exists (select 1 from ${groups} c where c.tenant_id = ${tenantId} and c.parent_id = ${id}) as children,
      exists (select 1 from ${groupMemberships} m where m.tenant_id = ${tenantId} and m.group_id = ${id} and m.is_active) as members,
      exists (select 1 from ${events} e where e.tenant_id = ${tenantId} and e.group_id = ${id}) as events`);
  return (res as unknown as { rows: { children: boolean; members: boolean; events: boolean }[] }).rows[0];
}

export async function deleteGroup(tx: Db, tenantId: number, id: number): Promise<void> {
  await tx.delete(groups).where(and(eq(groups.tenantId, tenantId), eq(groups.id, id)));
}
