import type { Db } from '../../db/client.js';
import { NotFoundError } from '../../lib/errors.js';
import { todayIn } from '../../lib/periods.js';
import type { Principal } from '../../plugins/auth.js';
import { loadTenantSettings } from '../../tenancy/settings.js';
import { isGroupVisible, type GroupScope } from '../groups/groups.visibility.js';
import * as repo from './tasks.repository.js';

/** Checks of the references a write names: 404 naming them, before anything is written. */

/** Requests of these types are readable only with care:read (modules-contract §0). */
export const CARE_REQUEST_TYPES = ['Counseling', 'Welfare'];

/** Today in the tenant's time zone. */
export async function tenantToday(tx: Db, tenantId: number): Promise<string> {
  return todayIn((await loadTenantSettings(tx, tenantId)).timeZone);
}

export async function requireUser(tx: Db, tenantId: number, id: number) {
  const user = await repo.findUserRef(tx, tenantId, id);
  if (!user) throw new NotFoundError('User', id);
  return user;
}

export async function requireContact(tx: Db, tenantId: number, id: number) {
  const contact = await repo.findContactRef(tx, tenantId, id);
  if (!contact) throw new NotFoundError('Contact', id);
  return contact;
}

/** A group the caller can see (invisible is 404 like missing). */
export async function requireVisibleGroup(tx: Db, auth: Principal, scope: GroupScope, id: number) {
  const group = await repo.findGroupRef(tx, auth.tenantId, id);
  if (!group || !isGroupVisible(scope, group)) throw new NotFoundError('Group', id);
  return group;
}

/** A request the caller may read: Counseling and Welfare ones need care:read. */
export async function requireRequest(tx: Db, auth: Principal, id: number) {
  const request = await repo.findRequestRef(tx, auth.tenantId, id);
  if (!request || (CARE_REQUEST_TYPES.includes(request.type) && !auth.permissions.has('care:read'))) throw new NotFoundError('Request', id);
  return request;
}

/** Optional references of a task body (undefined: not given; null: cleared). */
export async function checkTaskRefs(
  tx: Db,
  auth: Principal,
  scope: GroupScope,
  body: { contactId?: number | null; groupId?: number | null; requestId?: number | null; assigneeUserId?: number | null },
) {
  if (body.contactId != null) await requireContact(tx, auth.tenantId, body.contactId);
  if (body.groupId != null) await requireVisibleGroup(tx, auth, scope, body.groupId);
  const request = body.requestId != null ? await requireRequest(tx, auth, body.requestId) : undefined;
  if (body.assigneeUserId != null) await requireUser(tx, auth.tenantId, body.assigneeUserId);
  return { request };
}
