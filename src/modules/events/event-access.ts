import type { Db } from '../../db/client.js';
import { ForbiddenError, NotFoundError } from '../../lib/errors.js';
import type { Principal } from '../../plugins/auth.js';
import { isGroupManageable, isGroupVisible, loadGroupScope, type GroupScope } from '../groups/groups.visibility.js';
import { findEventWithHost, findHostGroup, type EventWithHost, type HostGroup } from './events.repository.js';

/**
 * api-contract §4 for events: an event is visible when its hosting group is (an event without a
 * group is visible to every reader) and writable inside a led subtree (without a group: only with
 * hierarchy:all). Invisible answers 404, visible but not writable 403.
 */
export interface EventAccess extends EventWithHost {
  scope: GroupScope;
}

const NOT_LEADER = 'You may only manage events of groups inside a subtree you lead';
const NO_GROUP = 'Only a user who sees the whole hierarchy may manage events without a group';

export async function readableEvent(tx: Db, auth: Principal, id: number): Promise<EventAccess> {
  const scope = await loadGroupScope(tx, auth);
  const found = await findEventWithHost(tx, auth.tenantId, id);
  if (!found || (found.group && !isGroupVisible(scope, found.group))) throw new NotFoundError('Event', id);
  return { ...found, scope };
}

export async function writableEvent(tx: Db, auth: Principal, id: number): Promise<EventAccess> {
  const access = await readableEvent(tx, auth, id);
  assertManageable(access.scope, access.group);
  return access;
}

function assertManageable(scope: GroupScope, group: HostGroup | null): void {
  if (group ? !isGroupManageable(scope, group) : !scope.all) throw new ForbiddenError(group ? NOT_LEADER : NO_GROUP);
}

/** A group an event is to be hosted by (create, or a move on update): visible (404) and led (403). */
export async function assertHostable(tx: Db, auth: Principal, scope: GroupScope, groupId: number | null): Promise<void> {
  if (groupId === null) return assertManageable(scope, null);
  const group = await findHostGroup(tx, auth.tenantId, groupId);
  if (!group || !isGroupVisible(scope, group)) throw new NotFoundError('Group', groupId);
  assertManageable(scope, group);
}
