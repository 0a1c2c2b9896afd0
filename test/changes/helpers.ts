import { sql } from 'drizzle-orm';
import type { TestContext } from '../helpers/app.js';

export interface StoredChange {
  id: number;
  type: string;
  entityType: string;
  entityId: number;
  actorUserId: number | null;
  changes: Record<string, { from: unknown; to: unknown }> | null;
  data: Record<string, unknown>;
}

/** Every change of a tenant (straight from the table, oldest first), optionally only those after `afterId`. */
export async function storedChanges(ctx: TestContext, tenantId: number, afterId = 0): Promise<StoredChange[]> {
  const res = await ctx.db.execute(sql`select id, type, entity_type, entity_id, actor_user_id, changes, data from changes
    where tenant_id = ${tenantId} and id > ${afterId} order by id`);
  return (res as unknown as { rows: Record<string, unknown>[] }).rows.map((r) => ({
    id: Number(r.id),
    type: String(r.type),
    entityType: String(r.entity_type),
    entityId: Number(r.entity_id),
    actorUserId: r.actor_user_id === null ? null : Number(r.actor_user_id),
    changes: r.changes as StoredChange['changes'],
    data: r.data as Record<string, unknown>,
  }));
}

/** The id of the tenant's latest change (0 when none): take it before a write, then read what the write recorded. */
export async function lastChangeId(ctx: TestContext, tenantId: number): Promise<number> {
  const res = await ctx.db.execute(sql`select coalesce(max(id), 0) as id from changes where tenant_id = ${tenantId}`);
  return Number((res as unknown as { rows: { id: string | number }[] }).rows[0].id);
}

/** Runs a write and returns the changes it recorded. */
export async function recorded<T>(ctx: TestContext, tenantId: number, write: () => Promise<T>): Promise<{ result: T; changes: StoredChange[] }> {
  const before = await lastChangeId(ctx, tenantId);
  const result = await write();
  return { result, changes: await storedChanges(ctx, tenantId, before) };
}

export async function rows<T = Record<string, unknown>>(ctx: TestContext, query: ReturnType<typeof sql>): Promise<T[]> {
  return ((await ctx.db.execute(query)) as unknown as { rows: T[] }).rows;
}
