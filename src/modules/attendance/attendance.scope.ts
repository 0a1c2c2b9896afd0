import { and, eq, sql, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Db } from '../../db/client.js';
import { groups } from '../../db/schema/index.js';
import type { Principal } from '../../plugins/auth.js';
import { isGroupVisible, loadGroupScope, subtreeFilter, visibleGroupFilter, type GroupScope } from '../groups/groups.visibility.js';

/**
 * The hierarchy scope of modules-contract §0 for attendance rows, which carry a `group_id` (a
 * session's, copied onto its records): the visibility predicate of the groups module (reused, not
 * copied), narrowed to `groupId` and, with includeDescendants (default true), its subtree. A
 * session without a group (an event without a host) is visible to every reader, as its event is,
 * and falls outside any groupId filter.
 */
export interface HierarchyQuery {
  groupId?: number;
  includeDescendants?: boolean;
}

export interface AttendanceScope {
  scope: GroupScope;
  /** A condition on a group_id column; `null` when the filter names nothing the caller sees. */
  on(groupIdColumn: SQL): SQL;
  /** The filter named an invisible or missing group: the answer is empty. */
  empty: boolean;
  /** Nothing narrows: hierarchy:all and no groupId (`on` is `true`; the tenant's rollups answer). */
  whole: boolean;
  /**
   * Without groupId and hierarchy:all: a condition on a group_id column naming the groups the caller
   * cannot see (non-public ones outside their led subtrees and memberships) — everything else is
   * visible, so a total is the tenant's rollup minus what these groups hold.
   */
  hidden?: (groupIdColumn: SQL) => SQL;
}

const sg = alias(groups, 'scope_g');

export async function loadAttendanceScope(tx: Db, auth: Pick<Principal, 'tenantId' | 'permissions' | 'contactId'>, query: HierarchyQuery): Promise<AttendanceScope> {
  const scope = await loadGroupScope(tx, auth as Principal);
  const t = auth.tenantId;
  if (query.groupId === undefined) {
    if (scope.all) return { scope, empty: false, whole: true, on: () => sql`true` };
    return {
      scope,
      empty: false,
      whole: false,
      hidden: (col) => sql`${col} in (select ${sg.id} from groups scope_g where ${sg.tenantId} = ${t} and ${sg.privacy} <> 'Public' and not ${visibleGroupFilter(scope, sg)})`,
      on: (col) => sql`(${col} is null or exists (select 1 from groups scope_g where ${sg.tenantId} = ${t} and ${sg.id} = ${col} and ${visibleGroupFilter(scope, sg)}))`,
    };
  }
  const [group] = await tx.select({ id: groups.id, path: groups.path, privacy: groups.privacy }).from(groups).where(and(eq(groups.tenantId, t), eq(groups.id, query.groupId)));
  if (!group || !isGroupVisible(scope, group)) return { scope, empty: true, whole: false, on: () => sql`false` };
  if (query.includeDescendants === false) return { scope, empty: false, whole: false, on: (col) => sql`${col} = ${group.id}` };
  const visible = scope.all ? sql`` : sql`and ${visibleGroupFilter(scope, sg)}`;
  return {
    scope,
    empty: false,
    whole: false,
    on: (col) => sql`${col} in (select ${sg.id} from groups scope_g where ${sg.tenantId} = ${t} and ${subtreeFilter(sg.path, group.path)} ${visible})`,
  };
}
