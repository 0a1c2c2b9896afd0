import { and, eq, inArray, sql, type AnyColumn, type Placeholder, type SQL } from 'drizzle-orm';
import { perHandle, UNNAMED, type Db } from '../../db/client.js';
import { groupCounts, groupMemberships, groups } from '../../db/schema/index.js';
import type { ChangeReader } from '../../changes/readable.js';
import type { Principal } from '../../plugins/auth.js';

/**
 * Where the caller stands in the hierarchy (api-contract §4). Loaded once per request; every group
 * and event query then applies visibleGroupFilter / manageableGroupFilter — the ONE predicate.
 */
export interface GroupScope {
  /** hierarchy:all — sees and manages the whole tree. */
  all: boolean;
  /** Paths of the groups the caller's contact leads (active Leader or Assistant): whole subtrees. */
  ledPaths: string[];
  /** Groups the caller's contact is an active member of (any role). */
  memberGroupIds: number[];
}

/** The caller's active memberships with their groups' paths: built once per database handle (perHandle). */
const scopeQuery = perHandle((tx) =>
  tx
    .select({ id: groups.id, path: groups.path, role: groupMemberships.role })
    .from(groupMemberships)
    .innerJoin(groups, and(eq(groups.tenantId, groupMemberships.tenantId), eq(groups.id, groupMemberships.groupId)))
    .where(and(eq(groupMemberships.tenantId, sql.placeholder('tenantId')), eq(groupMemberships.contactId, sql.placeholder('contactId')), eq(groupMemberships.isActive, true)))
    .prepare(UNNAMED),
);

export async function loadGroupScope(tx: Db, auth: Pick<Principal, 'tenantId' | 'contactId' | 'permissions'>): Promise<GroupScope> {
  if (auth.permissions.has('hierarchy:all')) return { all: true, ledPaths: [], memberGroupIds: [] };
  const rows = await scopeQuery(tx).execute({ tenantId: auth.tenantId, contactId: auth.contactId });
  const led = rows.filter((r) => r.role === 'Leader' || r.role === 'Assistant').map((r) => r.path);
  // A led path inside another led path adds nothing.
  const ledPaths = led.filter((p) => !led.some((q) => q !== p && p.startsWith(q)));
  return { all: false, ledPaths: [...new Set(ledPaths)], memberGroupIds: rows.map((r) => r.id) };
}

/** A led subtree as the two bounds of its range, given as placeholders (see scopeTerms). */
export interface PathRange {
  lo: Placeholder;
  hi: Placeholder;
}

/**
 * What the visibility rules read of a scope: a GroupScope's own values, or placeholders in their
 * place (scopeTerms) for a statement built once per scope shape.
 */
export interface ScopeTerms {
  all: boolean;
  ledPaths: readonly (string | PathRange)[];
  memberGroupIds: readonly (number | Placeholder)[];
}

/** The upper bound of a subtree's range: paths hold only digits and '/', so the final '/' raised to '0'. */
const upperOf = (prefix: string) => `${prefix.slice(0, -1)}0`;

/**
 * A scope's shape (hierarchy:all, how many led subtrees, how many own groups) as a key, its terms
 * as placeholders (`led<i>lo`, `led<i>hi`, `member<i>`) and the values that fill them: the SQL built
 * from the terms is the SQL built from the scope itself, with the same values bound in the same order.
 */
export function scopeTerms(scope: GroupScope): { key: string; terms: ScopeTerms; values: Record<string, unknown> } {
  const values: Record<string, unknown> = {};
  const ledPaths = scope.ledPaths.map((p, i) => {
    values[`led${i}lo`] = p;
    values[`led${i}hi`] = upperOf(p);
    return { lo: sql.placeholder(`led${i}lo`), hi: sql.placeholder(`led${i}hi`) };
  });
  const memberGroupIds = scope.memberGroupIds.map((id, i) => {
    values[`member${i}`] = id;
    return sql.placeholder(`member${i}`);
  });
  const key = scope.all ? 'all' : `${scope.ledPaths.length}/${scope.memberGroupIds.length}`;
  return { key, terms: { all: scope.all, ledPaths, memberGroupIds }, values };
}

/**
 * Statements per scope shape (scopeTerms' key: hierarchy:all, or how many led subtrees and own
 * groups), each built once per database handle; past MAX_SCOPE_SHAPES shapes a statement is built
 * for the call (the same statement, not kept).
 */
export function byScopeShape<Q>(build: (tx: Db, terms: ScopeTerms) => Q) {
  const shapes = new Map<string, (tx: Db) => Q>();
  return (tx: Db, scope: GroupScope): { query: Q; values: Record<string, unknown> } => {
    const { key, terms, values } = scopeTerms(scope);
    let cached = shapes.get(key);
    if (!cached && shapes.size < MAX_SCOPE_SHAPES) shapes.set(key, (cached = perHandle((t) => build(t, terms))));
    return { query: cached ? cached(tx) : build(tx, terms), values };
  };
}
const MAX_SCOPE_SHAPES = 64;

/** Columns of the groups table, or of an alias of it. */
export interface GroupColumns {
  id: AnyColumn;
  path: AnyColumn;
  privacy: AnyColumn;
}

/**
 * Subtree test: `path` starts with `prefix`, written as a range (`~>=~` / `~<~`, the operators of the
 * text_pattern_ops index) rather than LIKE: under row level security PostgreSQL only uses leakproof
 * operators as index conditions, and LIKE is not leakproof. Paths hold only digits and '/', so the
 * upper bound is the prefix with its final '/' raised to '0'.
 */
export function subtreeFilter(path: AnyColumn, prefix: string | PathRange): SQL {
  const [lo, hi] = typeof prefix === 'string' ? [prefix, upperOf(prefix)] : [prefix.lo, prefix.hi];
  return sql`(${path} ~>=~ ${lo} AND ${path} ~<~ ${hi})`;
}

function underAny(path: AnyColumn, ledPaths: ScopeTerms['ledPaths']): SQL {
  if (ledPaths.length === 0) return sql`false`;
  return sql`(${sql.join(ledPaths.map((p) => subtreeFilter(path, p)), sql` OR `)})`;
}

/** Visible: everything with hierarchy:all; else Public groups, own memberships and led subtrees. */
export function visibleGroupFilter(scope: ScopeTerms, g: GroupColumns = groups): SQL {
  if (scope.all) return sql`true`;
  const parts: SQL[] = [sql`${g.privacy} = 'Public'`, underAny(g.path, scope.ledPaths)];
  if (scope.memberGroupIds.length > 0) parts.push(inArray(g.id, [...scope.memberGroupIds]));
  return sql`(${sql.join(parts, sql` OR `)})`;
}

/**
 * How many groups visibleGroupFilter(scope) lets through, as a scalar sub-select that does not
 * read the tenant's public groups: everything is the tenant's counters (group_counts, kept by the
 * database: migration 0006); otherwise every Public group is visible, so it is the Public counter
 * plus the visible non-public groups (led subtrees by ranges of groups_private_path_idx, own
 * groups by primary key). Exact, and the same rule as visibleGroupFilter.
 */
export function visibleGroupCount(tenantId: number | Placeholder, scope: ScopeTerms): SQL {
  const counters = sql`select coalesce(sum(${groupCounts.n}), 0) from ${groupCounts} where ${groupCounts.tenantId} = ${tenantId}`;
  if (scope.all) return sql`(${counters})::int`;
  const ownOrLed = [underAny(groups.path, scope.ledPaths)];
  if (scope.memberGroupIds.length > 0) ownOrLed.push(inArray(groups.id, [...scope.memberGroupIds]));
  return sql`((${counters} and ${groupCounts.privacy} = 'Public')
    + (select count(*) from ${groups} where ${groups.tenantId} = ${tenantId} and ${groups.privacy} <> 'Public' and (${sql.join(ownOrLed, sql` OR `)})))::int`;
}

/** Manageable (writes): everything with hierarchy:all; else only inside a led subtree. */
export function manageableGroupFilter(scope: ScopeTerms, g: GroupColumns = groups): SQL {
  return scope.all ? sql`true` : underAny(g.path, scope.ledPaths);
}

/** The same two rules for a group row already in memory. */
export function isGroupVisible(scope: GroupScope, group: { id: number; path: string; privacy: string }): boolean {
  return scope.all || group.privacy === 'Public' || scope.memberGroupIds.includes(group.id) || isGroupManageable(scope, group);
}

export function isGroupManageable(scope: GroupScope, group: { path: string }): boolean {
  return scope.all || scope.ledPaths.some((p) => group.path.startsWith(p));
}

/**
 * A reader of the change feed (src/changes/readable.ts) for a principal, or for any active user
 * (a webhook's owner, a notification's recipient): its permissions and this module's visibility
 * rule for the groups changes name (a group that no longer exists is visible with hierarchy:all only).
 */
export async function changeReader(tx: Db, who: Pick<Principal, 'userId' | 'tenantId' | 'contactId' | 'permissions'>): Promise<ChangeReader> {
  const scope = await loadGroupScope(tx, who);
  return {
    userId: who.userId,
    contactId: who.contactId,
    permissions: who.permissions,
    groupVisible: (groupId) => sql`exists (select 1 from ${groups} where ${groups.tenantId} = ${who.tenantId} and ${groups.id} = ${groupId} and ${visibleGroupFilter(scope)})`,
  };
}
