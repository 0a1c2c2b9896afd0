import { sql, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Db } from '../../db/client.js';
import { groups } from '../../db/schema/index.js';
import { BadRequestError } from '../../lib/errors.js';
import type { Principal } from '../../plugins/auth.js';
import { visibleGroup } from '../groups/groups.access.js';
import { loadGroupScope, subtreeFilter, visibleGroupFilter, type GroupScope } from '../groups/groups.visibility.js';

/**
 * The hierarchy scope of a report, rollup or dashboard (modules-contract §0): the caller's visible
 * groups, narrowed to `groupId` (and its subtree when includeDescendants, the default). `groupsIn`
 * is ONE predicate over the groups alias `g`, used inside each report's single statement.
 */
export interface HierarchyScope {
  scope: GroupScope;
  /** The group the caller asked for (null: every visible group). */
  root: { id: number; name: string; path: string } | null;
  includeDescendants: boolean;
  /** True when no group filter narrows anything: hierarchy:all and no groupId. */
  wholeTenant: boolean;
}

/** The alias every scoped statement names the groups table by: `from groups g`. */
export const g = alias(groups, 'g');

export async function resolveScope(tx: Db, auth: Principal, groupId: number | undefined, includeDescendants = true): Promise<HierarchyScope> {
  const scope = await loadGroupScope(tx, auth);
  // The report's subject: an unknown, another tenant's or an invisible group is 404.
  const root = groupId === undefined ? null : await visibleGroup(tx, auth, scope, groupId);
  return {
    scope,
    root: root && { id: root.id, name: root.name, path: root.path },
    includeDescendants,
    wholeTenant: scope.all && root === null,
  };
}

/**
 * SQL over the alias `g`: the groups the numbers cover — the groups visible to the caller (the ONE
 * visibility predicate of the groups module, as the attendance module's summaries use it, so a
 * report and /api/attendance/summary agree), narrowed to `groupId` and, with includeDescendants, its
 * subtree.
 */
export function groupsIn(h: HierarchyScope): SQL {
  const parts: SQL[] = [visibleGroupFilter(h.scope, g)];
  if (h.root) parts.push(h.includeDescendants ? subtreeFilter(g.path, h.root.path) : sql`${g.id} = ${h.root.id}`);
  return sql`(${sql.join(parts, sql` and `)})`;
}

/** SQL: `groupIdExpr` names a group in scope (a correlated sub-select over the alias g). */
export function groupIdInScope(tenantId: number, h: HierarchyScope, groupIdExpr: SQL): SQL {
  return sql`exists (select 1 from groups g where g.tenant_id = ${tenantId} and g.id = ${groupIdExpr} and ${groupsIn(h)})`;
}

export interface Window {
  from: string;
  to: string;
}

/** `from` after `to`, or a window longer than 5 years, is 400 (modules-contract §4). */
export function checkWindow(w: Window, where = 'querystring'): Window {
  if (w.from > w.to) throw new BadRequestError(`${where}/from must not be after to (${w.to})`);
  // Same day five years on (as strings: a 29 February start compares correctly too).
  const year = Number(w.from.slice(0, 4)) + 5;
  const limit = year > 9999 ? '9999-12-31' : `${String(year).padStart(4, '0')}${w.from.slice(4)}`;
  if (w.to > limit) throw new BadRequestError(`${where}: the window from ${w.from} to ${w.to} is longer than 5 years`);
  return w;
}

/** The instant a local calendar date begins in a time zone, as SQL (for timestamptz columns). */
export function dayStartSql(date: string, timeZone: string): SQL {
  return sql`((${date}::date)::timestamp at time zone ${timeZone})`;
}

export function rowsOf<T>(result: unknown): T[] {
  return (result as { rows: T[] }).rows;
}
