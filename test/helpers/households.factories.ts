import { expect } from 'vitest';
import { api, type TestContext } from './app.js';
import { newPerson } from './contacts.factories.js';
import type { TestTenant } from './factories.js';

export type Role = 'Head' | 'Spouse' | 'Child' | 'Other';

/** Creates a household through the API as the tenant admin and returns the created body. */
export async function newHousehold(ctx: TestContext, tenant: TestTenant, body: { members: { contactId: number; role: Role }[]; [key: string]: unknown }) {
  const res = await api(ctx.app, tenant.admin.token).post('/api/crm/households', body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

/** A family of new people sharing a last name, e.g. `newFamily(ctx, t, 'Mwangi', ['Head', 'Spouse', 'Child'])`. */
export async function newFamily(ctx: TestContext, tenant: TestTenant, lastName: string, roles: Role[], extra: Record<string, unknown> = {}) {
  const people: { contact: { id: number; [key: string]: unknown }; role: Role }[] = [];
  for (const [i, role] of roles.entries()) people.push({ contact: await newPerson(ctx, tenant, `${role}${i}`, lastName), role });
  const household = await newHousehold(ctx, tenant, { members: people.map((p) => ({ contactId: p.contact.id, role: p.role })), ...extra });
  return { household, people: people.map((p) => p.contact) };
}
