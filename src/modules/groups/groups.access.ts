import type { Db } from '../../db/client.js';
import { BadRequestError, ForbiddenError, NotFoundError } from '../../lib/errors.js';
import type { Principal } from '../../plugins/auth.js';
import { findGroup, type GroupRow } from './groups.repository.js';
import { isGroupManageable, isGroupVisible, type GroupScope } from './groups.visibility.js';

/** Shared guards of the groups module: every route goes through these (api-contract §4). */

/** A group the caller can see, else 404 (missing, another tenant's, or invisible alike). */
export async function visibleGroup(tx: Db, auth: Principal, scope: GroupScope, id: number): Promise<GroupRow> {
  const group = await findGroup(tx, auth.tenantId, id);
  if (!group || !isGroupVisible(scope, group)) throw new NotFoundError('Group', id);
  return group;
}

/** A group the caller may write to: invisible → 404, visible but outside a led subtree → 403. */
export async function manageableGroup(tx: Db, auth: Principal, scope: GroupScope, id: number): Promise<GroupRow> {
  const group = await visibleGroup(tx, auth, scope, id);
  assertManageable(scope, group);
  return group;
}

export function assertManageable(scope: GroupScope, group: GroupRow): void {
  if (!isGroupManageable(scope, group)) throw new ForbiddenError(`You do not lead group ${group.id} or a group above it`);
}

/** Tenant-wide structure (root groups, categories, import) needs hierarchy:all on top of the write permission. */
export function assertWholeTree(auth: Principal, what: string): void {
  if (!auth.permissions.has('hierarchy:all')) throw new ForbiddenError(`${what} requires the hierarchy:all permission`);
}

const MAX_META_BYTES = 16 * 1024;
const MAX_META_DEPTH = 8;

/** metaData is free-form but bounded: at most 16 KB serialized and 8 levels deep. */
export function assertMetaData(meta: Record<string, unknown> | undefined): void {
  if (meta === undefined) return;
  // Depth first: the walk stops at the limit, so serializing afterwards cannot recurse too deep.
  if (depthOf(meta, 1) > MAX_META_DEPTH) throw new BadRequestError(`body/metaData must be at most ${MAX_META_DEPTH} levels deep`);
  if (Buffer.byteLength(JSON.stringify(meta)) > MAX_META_BYTES) throw new BadRequestError('body/metaData must be at most 16 KB when serialized');
}

function depthOf(value: unknown, depth: number): number {
  if (depth > MAX_META_DEPTH) return depth;
  let max = depth;
  for (const v of Object.values(value as Record<string, unknown>)) {
    if (v !== null && typeof v === 'object') max = Math.max(max, depthOf(v, depth + 1));
    if (max > MAX_META_DEPTH) break;
  }
  return max;
}
