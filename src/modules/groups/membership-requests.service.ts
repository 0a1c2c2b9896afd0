import { eq, type SQL } from 'drizzle-orm';
import { recordChanges, type NewChange } from '../../changes/recorder.js';
import { withTenant, type Db } from '../../db/client.js';
import { groupMembershipRequests } from '../../db/schema/index.js';
import { ConflictError, ForbiddenError, NotFoundError } from '../../lib/errors.js';
import { pageResult, toPage } from '../../lib/pagination.js';
import type { Principal } from '../../plugins/auth.js';
import { findContactRefs } from './contact-refs.js';
import { assertManageable, visibleGroup } from './groups.access.js';
import { findGroup } from './groups.repository.js';
import type { CreateMembershipRequestBody, ListMembershipRequestsQuery } from './groups.schemas.js';
import { isGroupVisible, loadGroupScope, manageableGroupFilter } from './groups.visibility.js';
import { findMembershipOf, getMembershipOut, upsertActiveMember } from './memberships.repository.js';
import * as repo from './membership-requests.repository.js';

type Decision = 'Approved' | 'Rejected';

export function createMembershipRequestsService(db: Db) {
  /** approve / reject: the request's group must be visible (404) and led by the caller (403). */
  function handle(auth: Principal, id: number, decision: Decision) {
    return withTenant(db, auth, async (tx) => {
      const scope = await loadGroupScope(tx, auth);
      const request = await repo.findRequest(tx, auth.tenantId, id);
      const group = request && (await findGroup(tx, auth.tenantId, request.groupId));
      if (!request || !group || !isGroupVisible(scope, group)) throw new NotFoundError('Group membership request', id);
      assertManageable(scope, group);
      if (request.status !== 'Pending' || !(await repo.handleRequest(tx, auth.tenantId, id, decision, auth.userId))) {
        throw new ConflictError(`Group membership request ${id} is not pending (it was already handled)`);
      }
      const out = await repo.getRequestOut(tx, auth.tenantId, id);
      const ids = { contactId: request.contactId, groupId: request.groupId, groupName: group.name, requestId: id };
      const changes: NewChange[] = [{ type: decision === 'Approved' ? 'membership_request.approved' : 'membership_request.rejected', entityId: id, data: ids }];
      if (decision === 'Rejected') {
        await recordChanges(tx, auth, changes);
        return out;
      }
      const before = await findMembershipOf(tx, auth.tenantId, request.groupId, request.contactId);
      const membershipId = await upsertActiveMember(tx, auth.tenantId, request.groupId, request.contactId);
      const membership = await getMembershipOut(tx, auth.tenantId, membershipId);
      const data = { membershipId, contactId: request.contactId, groupId: request.groupId, groupName: group.name, role: membership.role, isActive: true, requestId: id };
      // Approval joins the group (or reactivates an inactive membership); an active member stays as is.
      if (!before) changes.push({ type: 'membership.created', entityId: membershipId, data });
      else if (!before.isActive) {
        changes.push({ type: 'membership.updated', entityId: membershipId, changes: { isActive: { from: false, to: true }, ...(before.role !== membership.role ? { role: { from: before.role, to: membership.role } } : {}) }, data });
      }
      await recordChanges(tx, auth, changes);
      return { ...out, membership };
    });
  }

  return {
    /** Pending requests of groups the caller may manage; nothing without groups:write. */
    list: (auth: Principal, query: ListMembershipRequestsQuery) =>
      withTenant(db, auth, async (tx) => {
        const page = toPage(query);
        if (!auth.permissions.has('groups:write')) return pageResult(page, [], 0);
        const scope = await loadGroupScope(tx, auth);
        const filters: SQL[] = [eq(groupMembershipRequests.status, 'Pending'), manageableGroupFilter(scope)];
        if (query.groupId !== undefined) filters.push(eq(groupMembershipRequests.groupId, query.groupId));
        if (query.contactId !== undefined) filters.push(eq(groupMembershipRequests.contactId, query.contactId));
        const { rows, total } = await repo.listRequests(tx, auth.tenantId, filters, page);
        return pageResult(page, rows, total);
      }),

    create: (auth: Principal, body: CreateMembershipRequestBody) =>
      withTenant(db, auth, async (tx) => {
        const scope = await loadGroupScope(tx, auth);
        const group = await visibleGroup(tx, auth, scope, body.groupId);
        const contactId = body.contactId ?? auth.contactId;
        if (contactId !== auth.contactId) {
          // On behalf of someone else: only a manager of the group may do that.
          if (!auth.permissions.has('groups:write')) throw new ForbiddenError('Without groups:write you may only request membership for your own contact');
          assertManageable(scope, group);
        }
        if (!(await findContactRefs(tx, auth.tenantId, [contactId])).has(contactId)) throw new NotFoundError('Contact', contactId);
        const membership = await findMembershipOf(tx, auth.tenantId, group.id, contactId);
        if (membership?.isActive) throw new ConflictError(`Contact ${contactId} is already an active member of group ${group.id}`);
        if (await repo.findPending(tx, auth.tenantId, group.id, contactId)) {
          throw new ConflictError(`Contact ${contactId} already has a pending request for group ${group.id}`);
        }
        const id = await repo.insertRequest(tx, auth.tenantId, group.id, contactId);
        await recordChanges(tx, auth, [{ type: 'membership_request.created', entityId: id, data: { contactId, groupId: group.id, groupName: group.name, requestId: id } }]);
        return repo.getRequestOut(tx, auth.tenantId, id);
      }),

    approve: (auth: Principal, id: number) => handle(auth, id, 'Approved'),
    reject: (auth: Principal, id: number) => handle(auth, id, 'Rejected'),
  };
}
