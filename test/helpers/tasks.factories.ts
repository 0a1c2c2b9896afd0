import { and, asc, eq } from 'drizzle-orm';
import { recordChanges, type NewChange } from '../../src/changes/recorder.js';
import { withTenant } from '../../src/db/client.js';
import { changes, pipelines } from '../../src/db/schema/index.js';
import { api, type TestContext } from './app.js';
import type { TestTenant, TestUser } from './factories.js';

/** A task made through the API by `user` (201 expected). */
export async function newTask(ctx: TestContext, user: { token: string }, body: Record<string, unknown>) {
  const res = await api(ctx.app, user.token).post('/api/tasks', body);
  if (res.statusCode !== 201) throw new Error(`task not created: ${res.statusCode} ${res.body}`);
  return res.json() as { id: number; status: string; [k: string]: unknown };
}

/** A change recorded straight into the feed (a stand-in for a module that does not record it yet). */
export async function recordDirect(ctx: TestContext, tenant: TestTenant, change: NewChange, actor: TestUser | null = null) {
  return withTenant(ctx.db, tenant.id, (tx) => recordChanges(tx, { tenantId: tenant.id, userId: actor?.id ?? null }, [change]));
}

/** The changes of one entity, oldest first. */
export async function changesOf(ctx: TestContext, tenant: TestTenant, entityType: string, entityId: number) {
  return withTenant(ctx.db, tenant.id, (tx) =>
    tx.select().from(changes).where(and(eq(changes.tenantId, tenant.id), eq(changes.entityType, entityType), eq(changes.entityId, entityId))).orderBy(asc(changes.id)),
  );
}

export async function changeCount(ctx: TestContext, tenant: TestTenant): Promise<number> {
  const rows = await withTenant(ctx.db, tenant.id, (tx) => tx.select({ id: changes.id }).from(changes).where(eq(changes.tenantId, tenant.id)));
  return rows.length;
}

/** The seeded `New people` pipeline of a tenant. */
export async function newPeoplePipeline(ctx: TestContext, tenant: TestTenant): Promise<number> {
  const [row] = await withTenant(ctx.db, tenant.id, (tx) => tx.select({ id: pipelines.id }).from(pipelines).where(and(eq(pipelines.tenantId, tenant.id), eq(pipelines.name, 'New people'))));
  return row.id;
}
