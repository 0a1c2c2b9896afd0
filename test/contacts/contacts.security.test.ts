import { describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser } from '../helpers/factories.js';
import { newPerson } from '../helpers/contacts.factories.js';

const ctx = setupTestApp();

describe('contacts: authentication and permissions', () => {
  it('401 without a token or with a bad one, whatever the input', async () => {
    const anon = api(ctx.app);
    for (const res of [
      await anon.get('/api/crm/contacts'),
      await anon.get('/api/crm/people?limit=abc'),
      await anon.get('/api/crm/companies'),
      await anon.get('/api/crm/contacts/1'),
      await anon.post('/api/crm/contacts', { category: 'Robot' }),
      await anon.put('/api/crm/contacts/abc', {}),
      await anon.delete('/api/crm/contacts/1'),
      await api(ctx.app, 'not.a.token').get('/api/crm/contacts'),
    ]) expectError(res, 401);
  });

  it('403 without contacts:read; 403 on writes without contacts:write', async () => {
    const t = await newTenant(ctx);
    const c = await newPerson(ctx, t, 'Target', 'Person');
    const none = api(ctx.app, (await newUser(ctx, t, ['groups:read'])).token);
    for (const path of ['/api/crm/contacts', '/api/crm/people', '/api/crm/companies', `/api/crm/contacts/${c.id}`]) expectError(await none.get(path), 403);
    const reader = api(ctx.app, (await newUser(ctx, t, ['contacts:read'])).token);
    expect((await reader.get(`/api/crm/contacts/${c.id}`)).statusCode).toBe(200);
    expectError(await reader.post('/api/crm/contacts', { category: 'Person', person: { firstName: 'A', lastName: 'B' } }), 403);
    expectError(await reader.put(`/api/crm/contacts/${c.id}`, { status: 'Deceased' }), 403);
    expectError(await reader.delete(`/api/crm/contacts/${c.id}`), 403);
    const after = (await reader.get(`/api/crm/contacts/${c.id}`)).json();
    expect(after.status).toBe('Active');
    expect((await reader.get('/api/crm/contacts')).json().total).toBe(4); // admin, target, two users
  });

  it('a Member (no contacts permissions) cannot read contacts', async () => {
    const t = await newTenant(ctx);
    const member = await newUser(ctx, t, 'Member');
    expectError(await api(ctx.app, member.token).get('/api/crm/contacts'), 403);
  });
});

describe('contacts: tenant isolation', () => {
  it("another tenant's contact is 404 for read, update and delete, and untouched", async () => {
    const a = await newTenant(ctx);
    const b = await newTenant(ctx);
    const victim = await newPerson(ctx, a, 'Victim', 'Alpha', { emails: [{ value: 'victim@example.org' }] });
    const attacker = api(ctx.app, b.admin.token);
    expect(expectError(await attacker.get(`/api/crm/contacts/${victim.id}`), 404)).toBe(`Contact with id ${victim.id} not found`);
    expectError(await attacker.put(`/api/crm/contacts/${victim.id}`, { status: 'Deceased', person: { firstName: 'Pwned' } }), 404);
    expectError(await attacker.delete(`/api/crm/contacts/${victim.id}`), 404);
    expectError(await attacker.delete(`/api/crm/contacts/${a.admin.contactId}`), 404);
    const still = (await api(ctx.app, a.admin.token).get(`/api/crm/contacts/${victim.id}`)).json();
    expect(still).toMatchObject({ status: 'Active', person: { firstName: 'Victim' } });
  });

  it("lists and searches never show another tenant's contacts", async () => {
    const a = await newTenant(ctx);
    const b = await newTenant(ctx);
    await newPerson(ctx, a, 'Secret', 'Zebediah', { emails: [{ value: 'zeb@example.org' }], phones: [{ value: '+256 777 123456' }] });
    const attacker = api(ctx.app, b.admin.token);
    const all = (await attacker.get('/api/crm/contacts?limit=100')).json();
    expect(all.total).toBe(1);
    expect(all.data.map((c: { id: number }) => c.id)).toEqual([b.admin.contactId]);
    for (const q of ['zebediah', 'zeb@example', '777123456', 'secret']) {
      expect((await attacker.get(`/api/crm/contacts?q=${q}`)).json()).toMatchObject({ total: 0, data: [] });
      expect((await api(ctx.app, a.admin.token).get(`/api/crm/contacts?q=${q}`)).json().total).toBe(1);
    }
  });

  it("cannot move another tenant's contact into a relationship through a PUT body (ids in bodies are checked)", async () => {
    const a = await newTenant(ctx);
    const b = await newTenant(ctx);
    const mine = await newPerson(ctx, b, 'Mine', 'B');
    const theirs = await newPerson(ctx, a, 'Theirs', 'A');
    const res = await api(ctx.app, b.admin.token).post('/api/crm/relationships', { contactId: mine.id, relatedContactId: theirs.id, type: 'Friend' });
    expect(expectError(res, 404)).toBe(`Contact with id ${theirs.id} not found`);
  });
});
