import crypto from 'node:crypto';
import { expect } from 'vitest';
import { api, type TestContext } from './app.js';
import type { TestTenant } from './factories.js';

/** A Person body with every field of the contract set (values unique per call). */
export function fullPersonBody(overrides: Record<string, unknown> = {}) {
  const tag = crypto.randomBytes(3).toString('hex');
  return {
    category: 'Person',
    status: 'Inactive',
    person: {
      firstName: `Ada${tag}`, lastName: `Lovelace${tag}`, middleName: 'King', gender: 'Female',
      civilStatus: 'Married', dateOfBirth: '1815-12-10', occupation: 'Mathematician',
    },
    emails: [{ value: `ada.${tag}@example.org`, isPrimary: false }, { value: `ada2.${tag}@example.org`, isPrimary: true }],
    phones: [{ value: '+44 (20) 7946-0018', isPrimary: true }, { value: '0700 123 456', isPrimary: false }],
    addresses: [{ street: '12 St James Square', city: 'London', country: 'UK', isPrimary: true }],
    occasions: [{ type: 'Birthday', date: '1815-12-10', details: 'Born in London' }],
    identifications: [{ type: 'Passport', value: `P${tag}`, issuedBy: 'UK', expiresOn: '2030-01-31' }],
    ...overrides,
  };
}

/** Creates a contact through the API as the tenant admin and returns the created body. */
export async function newContact(ctx: TestContext, tenant: TestTenant, body: Record<string, unknown>) {
  const res = await api(ctx.app, tenant.admin.token).post('/api/crm/contacts', body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

export function newPerson(ctx: TestContext, tenant: TestTenant, firstName: string, lastName: string, extra: Record<string, unknown> = {}) {
  return newContact(ctx, tenant, { category: 'Person', person: { firstName, lastName }, ...extra });
}

export function newCompany(ctx: TestContext, tenant: TestTenant, name: string, extra: Record<string, unknown> = {}) {
  return newContact(ctx, tenant, { category: 'Company', company: { name }, ...extra });
}
