import { and, eq, sql } from 'drizzle-orm';
import { withTenant } from '../../src/db/client.js';
import { changes } from '../../src/db/schema/index.js';
import { addDays, periodStart, todayIn } from '../../src/lib/periods.js';
import { api, type TestContext } from '../helpers/app.js';
import type { TestTenant } from '../helpers/factories.js';
import { categoryId } from '../helpers/groups.factories.js';

export const today = () => todayIn('UTC');
export const thisWeek = () => periodStart(today(), 'week');
export const weeksAgo = (n: number) => addDays(thisWeek(), -7 * n);

export const FIELDS = [
  { key: 'attendance', label: 'Attendance', type: 'number', required: true },
  { key: 'visitors', label: 'Visitors', type: 'number', required: false },
  { key: 'notes', label: 'Notes', type: 'text', required: false },
  { key: 'met', label: 'Met', type: 'boolean', required: true },
  { key: 'meetingDate', label: 'Meeting date', type: 'date', required: false },
  { key: 'venue', label: 'Venue', type: 'select', required: false, options: ['Home', 'Church'] },
];

export async function newTemplate(ctx: TestContext, t: TestTenant, body: Record<string, unknown> = {}) {
  const res = await api(ctx.app, t.admin.token).post('/api/reports/templates', {
    name: 'Weekly fellowship report', groupCategoryId: await categoryId(ctx, t, 'Fellowship'), fields: FIELDS, ...body,
  });
  if (res.statusCode !== 201) throw new Error(`template: ${res.statusCode} ${res.body}`);
  return res.json() as { id: number; name: string; fields: unknown[] };
}

/** The changes of a type in a tenant, oldest first. */
export async function changesOf(ctx: TestContext, t: TestTenant, type: string) {
  return withTenant(ctx.db, t.id, (tx) =>
    tx.select().from(changes).where(and(eq(changes.tenantId, t.id), eq(changes.type, type))).orderBy(changes.id),
  );
}

/** A change written as if it had happened at `at` (reports over the change feed). */
export async function pastChange(ctx: TestContext, t: TestTenant, c: { type: string; entityId: number; at: string; changes?: unknown; data?: unknown }) {
  await withTenant(ctx.db, t.id, (tx) =>
    tx.execute(sql`insert into changes (tenant_id, type, entity_type, entity_id, changes, data, occurred_at)
      values (${t.id}, ${c.type}, ${c.type.split('.')[0]}, ${c.entityId}, ${c.changes ? JSON.stringify(c.changes) : null}::jsonb,
              ${JSON.stringify(c.data ?? {})}::jsonb, ${c.at}::timestamptz)`),
  );
}

/** Runs SQL in a tenant (fixtures the API cannot make: backdated rows). */
export function tenantSql(ctx: TestContext, t: TestTenant, query: ReturnType<typeof sql>) {
  return withTenant(ctx.db, t.id, (tx) => tx.execute(query));
}
