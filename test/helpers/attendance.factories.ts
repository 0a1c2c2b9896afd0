import { sql } from 'drizzle-orm';
import { expect } from 'vitest';
import { withTenant } from '../../src/db/client.js';
import { api, type TestContext } from './app.js';
import type { TestTenant } from './factories.js';

/** A service created through the API (as the tenant admin unless a token is given). */
export async function newService(ctx: TestContext, tenant: TestTenant, groupId: number, body: Record<string, unknown> = {}, token = tenant.admin.token) {
  const res = await api(ctx.app, token).post('/api/attendance/services', { name: 'Sunday Service', groupId, dayOfWeek: 0, startTime: '09:30', ...body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: number; name: string; group: { id: number; name: string } };
}

/** A session created through the API: `source` is {serviceId} | {groupId} | {eventId}. */
export async function newSession(ctx: TestContext, tenant: TestTenant, source: Record<string, number>, date: string, token = tenant.admin.token) {
  const res = await api(ctx.app, token).post('/api/attendance/sessions', { ...source, date });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: number; date: string; group: { id: number; name: string } | null };
}

/** Records contacts present (201 expected). */
export async function record(ctx: TestContext, tenant: TestTenant, sessionId: number, contactIds: number[], kind?: string, token = tenant.admin.token) {
  const res = await api(ctx.app, token).post(`/api/attendance/sessions/${sessionId}/records`, { contactIds, ...(kind ? { kind } : {}) });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { created: { id: number; contact: { id: number }; isFirstTime: boolean }[]; skipped: { contactId: number; reason: string }[] };
}

export interface ChangeRow {
  id: number;
  type: string;
  entity_id: number;
  actor_user_id: number | null;
  data: Record<string, unknown>;
}

/** The tenant's changes of the given types, oldest first. */
export async function changesOf(ctx: TestContext, tenant: TestTenant, ...types: string[]): Promise<ChangeRow[]> {
  const res = await withTenant(ctx.db, tenant.id, (tx) =>
    tx.execute(sql`select id, type, entity_id, actor_user_id, data from changes where tenant_id = ${tenant.id}
      and type in (${sql.join(types.map((t) => sql`${t}`), sql`, `)}) order by id`),
  );
  return (res as unknown as { rows: ChangeRow[] }).rows.map((r) => ({
    ...r, id: Number(r.id), entity_id: Number(r.entity_id), actor_user_id: r.actor_user_id === null ? null : Number(r.actor_user_id),
  }));
}

/** Row count of a table for the tenant (raw: attendance tables). */
export async function countOf(ctx: TestContext, tenant: TestTenant, table: string, where = 'true'): Promise<number> {
  const res = await withTenant(ctx.db, tenant.id, (tx) => tx.execute(sql.raw(`select count(*) as n from ${table} where tenant_id = ${tenant.id} and ${where}`)));
  return Number((res as unknown as { rows: { n: string | number }[] }).rows[0].n);
}

/** Dates N weeks before `date` (YYYY-MM-DD), oldest first. */
export function weeksBefore(date: string, n: number): string[] {
  const out: string[] = [];
  for (let i = n; i >= 1; i--) {
    const d = new Date(`${date}T00:00:00Z`);
    d.setUTCDate(d.getUTCDate() - 7 * i);
    out.push(d.toISOString().slice(0, 10));
  }
  return out;
}
