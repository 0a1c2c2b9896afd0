import { and, eq, inArray } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { groups } from '../../db/schema/index.js';

/** Every group of the tenant by name and parent: the import resolves names against these. */
export async function loadGroupNames(tx: Db, tenantId: number) {
  return tx.select({ id: groups.id, name: groups.name, parentId: groups.parentId }).from(groups).where(eq(groups.tenantId, tenantId));
}

/** Current paths of the given groups (read under the tree lock, so they cannot move meanwhile). */
export async function loadPaths(tx: Db, tenantId: number, ids: number[]): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const rows = await tx.select({ id: groups.id, path: groups.path }).from(groups).where(and(eq(groups.tenantId, tenantId), inArray(groups.id, ids)));
  return new Map(rows.map((r) => [r.id, r.path]));
}
