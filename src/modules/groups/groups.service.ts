import { eq, sql, type SQL } from 'drizzle-orm';
import { fieldChanges, recordChanges } from '../../changes/recorder.js';
import { withTenant, type Db } from '../../db/client.js';
import { groups } from '../../db/schema/index.js';
import { ConflictError, NotFoundError } from '../../lib/errors.js';
import { pageResult, toPage } from '../../lib/pagination.js';
import type { Principal } from '../../plugins/auth.js';
import { assertManageable, assertMetaData, assertWholeTree, manageableGroup, visibleGroup } from './groups.access.js';
import * as repo from './groups.repository.js';
import type { ComboQuery, CreateGroupBody, ListGroupsQuery, UpdateGroupBody } from './groups.schemas.js';
import { isGroupVisible, loadGroupScope, visibleGroupCount, visibleGroupFilter, type GroupScope } from './groups.visibility.js';
import { containsPattern } from '../../lib/like.js';

const EMPTY = sql`false`;

export function createGroupsService(db: Db) {
  /** A filter naming a missing or invisible group gives an empty list (api-contract §2), never 404. */
  async function visiblePath(tx: Db, auth: Principal, scope: GroupScope, id: number): Promise<string | undefined> {
    const group = await repo.findGroup(tx, auth.tenantId, id);
    return group && isGroupVisible(scope, group) ? group.path : undefined;
  }

  async function listFilters(tx: Db, auth: Principal, scope: GroupScope, query: ListGroupsQuery): Promise<SQL[]> {
    const filters: SQL[] = [visibleGroupFilter(scope)];
    if (query.categoryId !== undefined) filters.push(eq(groups.categoryId, query.categoryId));
    if (query.parentId !== undefined) {
      const ok = await visiblePath(tx, auth, scope, query.parentId);
      filters.push(ok ? eq(groups.parentId, query.parentId) : EMPTY);
    }
    if (query.ancestorId !== undefined) {
      const path = await visiblePath(tx, auth, scope, query.ancestorId);
      filters.push(path ? repo.descendantsOf(path) : EMPTY);
    }
    if (query.q) filters.push(sql`lower(${groups.name}) LIKE ${containsPattern(query.q.toLowerCase())}`);
    return filters;
  }

  async function resolveParent(tx: Db, auth: Principal, scope: GroupScope, parentId: number | null | undefined) {
    if (parentId === null || parentId === undefined) {
      assertWholeTree(auth, 'A root group (no parent)');
      return undefined;
    }
    const parent = await visibleGroup(tx, auth, scope, parentId);
    assertManageable(scope, parent);
    return parent;
  }

  async function assertCategory(tx: Db, tenantId: number, categoryId: number | undefined) {
    if (categoryId !== undefined && !(await repo.categoryExists(tx, tenantId, categoryId))) throw new NotFoundError('Group category', categoryId);
  }

  return {
    list: (auth: Principal, query: ListGroupsQuery) =>
      withTenant(db, auth, async (tx) => {
        const page = toPage(query);
        const scope = await loadGroupScope(tx, auth);
        // Visibility alone: the database's counters give the total without counting the tenant.
        const unfiltered = query.categoryId === undefined && query.parentId === undefined && query.ancestorId === undefined && !query.q;
        const { rows, total } = unfiltered
          ? await repo.listVisibleGroups(tx, auth.tenantId, scope, page, query.sort)
          : await repo.listGroups(tx, auth.tenantId, await listFilters(tx, auth, scope, query), page, query.sort);
        return pageResult(page, rows, total);
      }),

    combo: (auth: Principal, query: ComboQuery) =>
      withTenant(db, auth, async (tx) => {
        const page = toPage(query);
        const scope = await loadGroupScope(tx, auth);
        const filters = [visibleGroupFilter(scope)];
        if (query.categoryId !== undefined) filters.push(eq(groups.categoryId, query.categoryId));
        const counted = query.categoryId === undefined ? visibleGroupCount(auth.tenantId, scope) : undefined;
        const { rows, total } = await repo.listCombo(tx, auth.tenantId, filters, page, counted);
        return pageResult(page, rows, total);
      }),

    get: (auth: Principal, id: number) =>
      withTenant(db, auth, async (tx) => {
        const scope = await loadGroupScope(tx, auth);
        await visibleGroup(tx, auth, scope, id);
        const group = await repo.getGroupOut(tx, auth.tenantId, id);
        const children = await repo.listChildren(tx, auth.tenantId, id, scope);
        const { members, memberCount } = await repo.listMembers(tx, auth.tenantId, id);
        return { ...group, children, members, memberCount };
      }),

    create: (auth: Principal, body: CreateGroupBody) =>
      withTenant(db, auth, async (tx) => {
        assertMetaData(body.metaData);
        const scope = await loadGroupScope(tx, auth);
        await repo.lockTree(tx, auth.tenantId);
        const parent = await resolveParent(tx, auth, scope, body.parentId);
        await assertCategory(tx, auth.tenantId, body.categoryId);
        const [id] = await repo.nextGroupIds(tx, 1);
        await repo.insertGroup(tx, auth.tenantId, {
          id, path: `${parent?.path ?? '/'}${id}/`, parentId: parent?.id ?? null,
          name: body.name, categoryId: body.categoryId, privacy: body.privacy ?? 'Public', details: body.details ?? null,
          street: body.address?.street ?? null, city: body.address?.city ?? null, country: body.address?.country ?? null,
          metaData: body.metaData ?? {},
        });
        await recordChanges(tx, auth, [{
          type: 'group.created', entityId: id,
          data: { groupId: id, name: body.name, parentId: parent?.id ?? null, categoryId: body.categoryId, privacy: body.privacy ?? 'Public' },
        }]);
        return repo.getGroupOut(tx, auth.tenantId, id);
      }),

    update: (auth: Principal, id: number, body: UpdateGroupBody) =>
      withTenant(db, auth, async (tx) => {
        assertMetaData(body.metaData);
        const scope = await loadGroupScope(tx, auth);
        if (body.parentId !== undefined) await repo.lockTree(tx, auth.tenantId);
        const group = await manageableGroup(tx, auth, scope, id);
        await assertCategory(tx, auth.tenantId, body.categoryId);
        let parentId = group.parentId;
        if (body.parentId !== undefined && body.parentId !== group.parentId) {
          const parent = await resolveParent(tx, auth, scope, body.parentId);
          if (parent && parent.path.startsWith(group.path)) {
            throw new ConflictError(`Group ${id} cannot be moved under itself or one of its descendants`);
          }
          const newPath = `${parent?.path ?? '/'}${id}/`;
          await repo.updateGroup(tx, auth.tenantId, id, { parentId: parent?.id ?? null });
          await repo.moveSubtree(tx, auth.tenantId, group.path, newPath);
          parentId = parent?.id ?? null;
        }
        const values = {
          name: body.name, categoryId: body.categoryId, privacy: body.privacy, details: body.details, metaData: body.metaData,
          ...addressValues(body.address),
        };
        await repo.updateGroup(tx, auth.tenantId, id, values);
        const diff = fieldChanges(group as unknown as Record<string, unknown>, { ...values, parentId });
        if (diff) await recordChanges(tx, auth, [{ type: 'group.updated', entityId: id, changes: diff, data: { groupId: id, name: body.name ?? group.name } }]);
        return repo.getGroupOut(tx, auth.tenantId, id);
      }),

    remove: (auth: Principal, id: number) =>
      withTenant(db, auth, async (tx) => {
        const scope = await loadGroupScope(tx, auth);
        await repo.lockTree(tx, auth.tenantId);
        const group = await manageableGroup(tx, auth, scope, id);
        const blockers = await repo.deleteBlockers(tx, auth.tenantId, id);
        const reasons = [blockers.children && 'sub-groups', blockers.members && 'active memberships', blockers.events && 'hosted events'].filter(Boolean);
        if (reasons.length > 0) throw new ConflictError(`Group ${id} cannot be deleted: it still has ${joinWords(reasons as string[])}`);
        await repo.deleteGroup(tx, auth.tenantId, id);
        await recordChanges(tx, auth, [{ type: 'group.deleted', entityId: id, data: { groupId: id, name: group.name, parentId: group.parentId } }]);
      }),
  };
}

export type GroupsService = ReturnType<typeof createGroupsService>;

/** PUT semantics: a field left out keeps its value; `address: null` clears the whole address. */
function addressValues(address: UpdateGroupBody['address']) {
  if (address === undefined) return {};
  if (address === null) return { street: null, city: null, country: null };
  return { street: address.street, city: address.city, country: address.country };
}

function joinWords(words: string[]): string {
  return words.length <= 1 ? words.join('') : `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`;
}
