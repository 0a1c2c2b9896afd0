import { sql } from 'drizzle-orm';
import { readableChangeSql } from '../../changes/readable.js';
import type { Db } from '../../db/client.js';
import { changeReader } from '../groups/groups.visibility.js';
import { activeUsers } from '../users/users.service.js';

export interface UserReads {
  permissions: ReadonlySet<string>;
  /** The ones of the changes asked about this user may read now. */
  changeIds: Set<number>;
}

/**
 * What each of `userIds` may read of `changeIds` right now, by the change feed's one rule
 * (src/changes/readable.ts): a webhook's owner (at fan-out and again at delivery) and a
 * notification's recipients. Disabled and deleted users are absent from the map: they read nothing.
 * One statement per user.
 */
export async function readsOf(tx: Db, tenantId: number, userIds: readonly number[], changeIds: readonly number[]): Promise<Map<number, UserReads>> {
  const out = new Map<number, UserReads>();
  if (userIds.length === 0 || changeIds.length === 0) return out;
  const ids = sql.join([...new Set(changeIds)].map((id) => sql`${id}`), sql`, `);
  for (const [userId, who] of await activeUsers(tx, tenantId, userIds)) {
    const readable = readableChangeSql(await changeReader(tx, who));
    const result = await tx.execute(sql`select c.id from changes c where c.tenant_id = ${tenantId} and c.id in (${ids}) and ${readable}`);
    out.set(userId, { permissions: who.permissions, changeIds: new Set((result as unknown as { rows: { id: string | number }[] }).rows.map((r) => Number(r.id))) });
  }
  return out;
}
