import { and, count, eq } from 'drizzle-orm';
import { expect } from 'vitest';
import { withTenant } from '../../src/db/client.js';
import { attendanceRecords, eventActivities, eventCategories, eventRegistrations } from '../../src/db/schema/index.js';
import { insertPersonContact } from '../../src/modules/contacts/contacts.repository.js';
import { api, type TestContext } from './app.js';
import type { TestTenant } from './factories.js';

/** Person contacts straight in the database; returns their ids in order. */
export async function newContacts(ctx: TestContext, tenant: TestTenant, n: number, lastName = 'Guest'): Promise<number[]> {
  return withTenant(ctx.db, tenant.id, async (tx) => {
    const ids: number[] = [];
    for (let i = 0; i < n; i++) ids.push(await insertPersonContact(tx, tenant.id, { firstName: `First${i}`, lastName: `${lastName}${i}` }));
    return ids;
  });
}

export async function newContact(ctx: TestContext, tenant: TestTenant, firstName = 'Ada', lastName = 'Lovelace'): Promise<number> {
  return withTenant(ctx.db, tenant.id, (tx) => insertPersonContact(tx, tenant.id, { firstName, lastName }));
}

/** An event created through the API (as the tenant admin unless a token is given). */
export async function newEvent(ctx: TestContext, tenant: TestTenant, body: Record<string, unknown> = {}, token = tenant.admin.token) {
  const res = await api(ctx.app, token).post('/api/events', { name: 'Sunday Service', startDate: '2026-03-01', ...body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: number; name: string; startDate: string; endDate: string; group: { id: number; name: string } | null };
}

export async function eventCategoryId(ctx: TestContext, tenant: TestTenant, name = 'Sunday Service'): Promise<number> {
  const [row] = await ctx.db.select({ id: eventCategories.id }).from(eventCategories).where(and(eq(eventCategories.tenantId, tenant.id), eq(eventCategories.name, name)));
  return row.id;
}

const tables = { registrations: eventRegistrations, attendance: attendanceRecords, activities: eventActivities };

/** Row count of an event's records, read straight from the database. */
export async function countRows(ctx: TestContext, tenant: TestTenant, kind: keyof typeof tables, eventId: number): Promise<number> {
  const t = tables[kind];
  const [row] = await ctx.db.select({ n: count() }).from(t).where(and(eq(t.tenantId, tenant.id), eq(t.eventId, eventId)));
  return Number(row.n);
}
