import { sql } from 'drizzle-orm';
import { expect } from 'vitest';
import { withTenant } from '../../src/db/client.js';
import { api, type TestContext } from '../helpers/app.js';
import type { TestTenant } from '../helpers/factories.js';

/** Helpers of the search tests: records the search finds, written straight or through the API. */

export async function person(ctx: TestContext, t: TestTenant, firstName: string, lastName: string, extra: Record<string, unknown> = {}) {
  const { person: personExtra, ...rest } = extra as { person?: Record<string, unknown> };
  const res = await api(ctx.app, t.admin.token).post('/api/crm/contacts', { category: 'Person', person: { firstName, lastName, ...personExtra }, ...rest });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id as number;
}

export async function company(ctx: TestContext, t: TestTenant, name: string, extra: Record<string, unknown> = {}) {
  const res = await api(ctx.app, t.admin.token).post('/api/crm/contacts', { category: 'Company', company: { name }, ...extra });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id as number;
}

export async function request(ctx: TestContext, t: TestTenant, contactId: number, type: string, description: string) {
  const res = await api(ctx.app, t.admin.token).post('/api/crm/requests', { contactId, type, description });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id as number;
}

export async function event(ctx: TestContext, t: TestTenant, name: string, startDate: string, groupId?: number) {
  const res = await api(ctx.app, t.admin.token).post('/api/events', { name, startDate, ...(groupId ? { groupId } : {}) });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id as number;
}

export interface TaskInput {
  title: string;
  description?: string;
  groupId?: number | null;
  confidential?: boolean;
  createdBy?: number | null;
  assignee?: number | null;
}

/** A task row (the tasks module's table), written straight. */
export async function task(ctx: TestContext, t: TestTenant, input: TaskInput): Promise<number> {
  return withTenant(ctx.db, t.id, async (tx) => {
    const result = await tx.execute(sql`insert into tasks (tenant_id, title, description, group_id, confidential, created_by_user_id, assignee_user_id)
      values (${t.id}, ${input.title}, ${input.description ?? null}, ${input.groupId ?? null}, ${input.confidential ?? false}, ${input.createdBy ?? null}, ${input.assignee ?? null})
      returning id`);
    return Number((result as unknown as { rows: { id: number }[] }).rows[0].id);
  });
}

/** Attendance of contacts at an event (the attendance trigger dates it by the event's start date). */
export async function attended(ctx: TestContext, t: TestTenant, eventId: number, contactIds: number[]) {
  await withTenant(ctx.db, t.id, (tx) =>
    tx.execute(sql`insert into attendance_records (tenant_id, event_id, contact_id)
      select ${t.id}, ${eventId}, c from unnest(${`{${contactIds.join(',')}}`}::bigint[]) c`));
}

/** A gift (the finance module's table), written straight. */
export async function gave(ctx: TestContext, t: TestTenant, contactId: number, date: string, status = 'Completed') {
  await withTenant(ctx.db, t.id, (tx) =>
    tx.execute(sql`insert into contributions (tenant_id, contact_id, date, amount, method, status) values (${t.id}, ${contactId}, ${date}::date, 1000, 'Cash', ${status})`));
}

/** YYYY-MM-DD, `days` from today in UTC (test tenants keep the default UTC zone). */
export function daysFromToday(days: number): string {
  const d = new Date();
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

export function ids(body: { data: { id: number }[] }): number[] {
  return body.data.map((c) => c.id);
}
