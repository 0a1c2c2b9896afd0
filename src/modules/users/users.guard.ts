import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { ConflictError } from '../../lib/errors.js';
import type { Permission } from '../../lib/permissions.js';
import { countActiveHolders } from './users.repository.js';

/** Whoever holds this permission can repair every other account and role; a tenant must keep one. */
export const ADMIN_PERMISSION: Permission = 'roles:write';

// An arbitrary namespace for the advisory lock below, so it cannot collide with other locks.
const LOCK_NAMESPACE = 0x50617273;

/**
 * Runs a change that could take ADMIN_PERMISSION away from someone (disable, delete, role change,
 * role permission change) and undoes it with 409 when it would leave the tenant without an active
 * holder. The tenant-wide advisory lock serializes such changes: two admins disabling each other at
 * once would otherwise both see the other still active.
 */
export async function guardLastAdmin<T>(tx: Db, tenantId: number, message: string, change: () => Promise<T>): Promise<T> {
  await tx.execute(sql`select pg_advisory_xact_lock(${LOCK_NAMESPACE}::int, ${tenantId % 2147483647}::int)`);
  const before = await countActiveHolders(tx, tenantId, ADMIN_PERMISSION);
  const result = await change();
  if (before > 0 && (await countActiveHolders(tx, tenantId, ADMIN_PERMISSION)) === 0) throw new ConflictError(message);
  return result;
}

/** The permissions in `wanted` the caller does not hold itself (no privilege escalation). */
export function permissionsNotHeld(held: ReadonlySet<string>, wanted: Iterable<string>): string[] {
  return [...new Set(wanted)].filter((p) => !held.has(p)).sort();
}
