import { eq, type SQL } from 'drizzle-orm';
import { fieldChanges, recordChanges } from '../../changes/recorder.js';
import { withTenant, type Db } from '../../db/client.js';
import { groupMemberships } from '../../db/schema/index.js';
import { ConflictError, NotFoundError } from '../../lib/errors.js';
import { pageResult, toPage } from '../../lib/pagination.js';
import type { Principal } from '../../plugins/auth.js';
import { findContactRefs } from './contact-refs.js';
import { assertManageable, manageableGroup } from './groups.access.js';
import { findGroup } from './groups.repository.js';
import type { CreateMembershipBody, ListMembershipsQuery, UpdateMembershipBody } from './groups.schemas.js';
import { isGroupVisible, loadGroupScope, visibleGroupFilter, type GroupScope } from './groups.visibility.js';
import * as repo from './memberships.repository.js';

export function createMembershipsService(db: Db) {
  /** A membership whose group the caller can see and manage: invisible → 404, not led → 403. */
  async function manageableMembership(tx: Db, auth: Principal, scope: GroupScope, id: number) {
    const membership = await repo.findMembership(tx, auth.tenantId, id);
    const group = membership && (await findGroup(tx, auth.tenantId, membership.groupId));
    if (!membership || !group || !isGroupVisible(scope, group)) throw new NotFoundError('Group membership', id);
    assertManageable(scope, group);
    return { membership, group };
  }

  return {
    list: (auth: Principal, query: ListMembershipsQuery) =>
      withTenant(db, auth, async (tx) => {
        const page = toPage(query);
        const scope = await loadGroupScope(tx, auth);
        const filters: SQL[] = [visibleGroupFilter(scope)];
        if (query.groupId !== undefined) filters.push(eq(groupMemberships.groupId, query.groupId));
        if (query.contactId !== undefined) filters.push(eq(groupMemberships.contactId, query.contactId));
        if (query.role !== undefined) filters.push(eq(groupMemberships.role, query.role));
        if (query.isActive !== undefined) filters.push(eq(groupMemberships.isActive, query.isActive));
        const { rows, total } = await repo.listMemberships(tx, auth.tenantId, filters, page);
        return pageResult(page, rows, total);
      }),

    create: (auth: Principal, body: CreateMembershipBody) =>
      withTenant(db, auth, async (tx) => {
        const scope = await loadGroupScope(tx, auth);
        const group = await manageableGroup(tx, auth, scope, body.groupId);
        if (!(await findContactRefs(tx, auth.tenantId, [body.contactId])).has(body.contactId)) throw new NotFoundError('Contact', body.contactId);
        if (await repo.findMembershipOf(tx, auth.tenantId, body.groupId, body.contactId)) {
          throw new ConflictError(`Contact ${body.contactId} already has a membership in group ${body.groupId}`);
        }
        const values = { groupId: body.groupId, contactId: body.contactId, role: body.role ?? 'Member', isActive: body.isActive ?? true } as const;
        const id = await repo.insertMembership(tx, auth.tenantId, values);
        await recordChanges(tx, auth, [{
          type: 'membership.created', entityId: id,
          data: { membershipId: id, contactId: values.contactId, groupId: values.groupId, groupName: group.name, role: values.role, isActive: values.isActive },
        }]);
        return repo.getMembershipOut(tx, auth.tenantId, id);
      }),

    update: (auth: Principal, id: number, body: UpdateMembershipBody) =>
      withTenant(db, auth, async (tx) => {
        const scope = await loadGroupScope(tx, auth);
        const { membership, group } = await manageableMembership(tx, auth, scope, id);
        await repo.updateMembership(tx, auth.tenantId, id, { role: body.role, isActive: body.isActive });
        const diff = fieldChanges(membership, { role: body.role, isActive: body.isActive });
        if (diff) {
          await recordChanges(tx, auth, [{
            type: 'membership.updated', entityId: id, changes: diff,
            data: { membershipId: id, contactId: membership.contactId, groupId: membership.groupId, groupName: group.name, role: body.role ?? membership.role, isActive: body.isActive ?? membership.isActive },
          }]);
        }
        return repo.getMembershipOut(tx, auth.tenantId, id);
      }),

    remove: (auth: Principal, id: number) =>
      withTenant(db, auth, async (tx) => {
        const scope = await loadGroupScope(tx, auth);
        const { membership, group } = await manageableMembership(tx, auth, scope, id);
        await repo.deleteMembership(tx, auth.tenantId, id);
        await recordChanges(tx, auth, [{
          type: 'membership.deleted', entityId: id,
          data: { membershipId: id, contactId: membership.contactId, groupId: membership.groupId, groupName: group.name, role: membership.role },
        }]);
      }),
  };
}
