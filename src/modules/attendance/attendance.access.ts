import type { Db } from '../../db/client.js';
import { ForbiddenError, NotFoundError } from '../../lib/errors.js';
import type { Principal } from '../../plugins/auth.js';
import { isGroupManageable, isGroupVisible, loadGroupScope, type GroupScope } from '../groups/groups.visibility.js';
import { findSession, type SessionRow } from './sessions.repository.js';

/**
 * Sessions follow their group (modules-contract §1): visible when the group is (a session without a
 * group, i.e. of an event without a host, is visible to every reader, as the event is); writable
 * inside a led subtree, or with hierarchy:all (a session without a group only with hierarchy:all).
 * Invisible answers 404, visible but not writable 403.
 */
export function isSessionVisible(scope: GroupScope, session: SessionRow): boolean {
  return session.group === null || isGroupVisible(scope, session.group);
}

export async function readableSession(tx: Db, auth: Principal, id: number, scope?: GroupScope): Promise<{ session: SessionRow; scope: GroupScope }> {
  const s = scope ?? (await loadGroupScope(tx, auth));
  const session = await findSession(tx, auth.tenantId, id);
  if (!session || !isSessionVisible(s, session)) throw new NotFoundError('Session', id);
  return { session, scope: s };
}

export async function writableSession(tx: Db, auth: Principal, id: number): Promise<{ session: SessionRow; scope: GroupScope }> {
  const found = await readableSession(tx, auth, id);
  assertSessionManageable(found.scope, found.session);
  return found;
}

export function assertSessionManageable(scope: GroupScope, session: Pick<SessionRow, 'group'>): void {
  if (session.group ? !isGroupManageable(scope, session.group) : !scope.all) {
    throw new ForbiddenError(session.group ? `You do not lead group ${session.group.id} or a group above it` : 'Only a user who sees the whole hierarchy may record attendance of events without a group');
  }
}
