import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { contacts } from '../../src/db/schema/index.js';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser } from '../helpers/factories.js';
import { newPerson } from '../helpers/contacts.factories.js';

const ctx = setupTestApp();

describe('import: security', () => {
  it('401 without a token; 403 without contacts:write', async () => {
    const t = await newTenant(ctx);
    const body = { contacts: [{ firstName: 'A', lastName: 'B' }] };
    expectError(await api(ctx.app).post('/api/crm/contacts/import', body), 401);
    expectError(await api(ctx.app).post('/api/crm/contacts/import', { contacts: 'not even valid' }), 401);
    const reader = await newUser(ctx, t, ['contacts:read']);
    expectError(await api(ctx.app, reader.token).post('/api/crm/contacts/import', body), 403);
    expect(await ctx.db.$count(contacts, eq(contacts.tenantId, t.id))).toBe(2);
  });

  it("an import in tenant B never matches or updates tenant A's contacts (email or phone)", async () => {
    const a = await newTenant(ctx);
    const b = await newTenant(ctx);
    const victim = await newPerson(ctx, a, 'Victim', 'Alpha', { emails: [{ value: 'shared@example.org' }], phones: [{ value: '0700 111 222' }] });
    const res = await api(ctx.app, b.admin.token).post('/api/crm/contacts/import', {
      contacts: [
        { firstName: 'Evil', lastName: 'Twin', email: 'SHARED@example.org' },
        { firstName: 'Phone', lastName: 'Twin', phone: '0700111222' },
        { firstName: 'Admin', lastName: 'Twin', email: `admin@${a.slug}.example.org` },
      ],
    });
    expect(res.json()).toMatchObject({ total: 3, created: 3, updated: 0, unchanged: 0, failed: 0, errors: [] });
    const read = (await api(ctx.app, a.admin.token).get(`/api/crm/contacts/${victim.id}`)).json();
    expect(read).toMatchObject({ person: { firstName: 'Victim', lastName: 'Alpha' }, emails: [{ value: 'shared@example.org' }], phones: [{ value: '0700 111 222' }] });
    expect((await api(ctx.app, a.admin.token).get(`/api/crm/contacts/${a.admin.contactId}`)).json().person.lastName).toBe('Administrator');
    expect(await ctx.db.$count(contacts, eq(contacts.tenantId, a.id))).toBe(2);
    expect(await ctx.db.$count(contacts, eq(contacts.tenantId, b.id))).toBe(4);
    expect((await api(ctx.app, b.admin.token).get('/api/crm/contacts?q=twin')).json().total).toBe(3);
  });
});
