import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { contactRequests } from '../../src/db/schema/index.js';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser } from '../helpers/factories.js';
import { newPerson } from '../helpers/contacts.factories.js';

const ctx = setupTestApp();

describe('requests: security', () => {
  it('401 without a token; 403 without the permissions', async () => {
    const t = await newTenant(ctx);
    const c = await newPerson(ctx, t, 'X', 'X');
    const req = (await api(ctx.app, t.admin.token).post('/api/crm/requests', { contactId: c.id, type: 'Prayer', description: 'x' })).json();
    const anon = api(ctx.app);
    expectError(await anon.get('/api/crm/requests'), 401);
    expectError(await anon.post('/api/crm/requests', {}), 401);
    expectError(await anon.put(`/api/crm/requests/${req.id}`, {}), 401);
    expectError(await anon.delete(`/api/crm/requests/${req.id}`), 401);
    expectError(await api(ctx.app, (await newUser(ctx, t, ['events:read'])).token).get('/api/crm/requests'), 403);
    const reader = api(ctx.app, (await newUser(ctx, t, ['contacts:read'])).token);
    expect((await reader.get('/api/crm/requests')).json().total).toBe(1);
    expectError(await reader.post('/api/crm/requests', { contactId: c.id, type: 'Prayer', description: 'y' }), 403);
    expectError(await reader.put(`/api/crm/requests/${req.id}`, { status: 'Resolved' }), 403);
    expectError(await reader.delete(`/api/crm/requests/${req.id}`), 403);
    const [row] = await ctx.db.select().from(contactRequests).where(eq(contactRequests.tenantId, t.id));
    expect(row).toMatchObject({ status: 'Open', description: 'x' });
  });

  it("another tenant's contacts and requests are 404 and invisible", async () => {
    const a = await newTenant(ctx);
    const b = await newTenant(ctx);
    const victim = await newPerson(ctx, a, 'V', 'A');
    const mine = await newPerson(ctx, b, 'M', 'B');
    const req = (await api(ctx.app, a.admin.token).post('/api/crm/requests', { contactId: victim.id, type: 'Prayer', description: 'secret' })).json();
    const attacker = api(ctx.app, b.admin.token);
    expect(expectError(await attacker.post('/api/crm/requests', { contactId: victim.id, type: 'Prayer', description: 'x' }), 404)).toBe(`Contact with id ${victim.id} not found`);
    expectError(await attacker.put(`/api/crm/requests/${req.id}`, { status: 'Resolved' }), 404);
    expectError(await attacker.delete(`/api/crm/requests/${req.id}`), 404);
    const own = (await attacker.post('/api/crm/requests', { contactId: mine.id, type: 'Prayer', description: 'x' })).json();
    expect(expectError(await attacker.put(`/api/crm/requests/${own.id}`, { contactId: victim.id }), 404)).toBe(`Contact with id ${victim.id} not found`);
    expect((await attacker.get(`/api/crm/requests?contactId=${victim.id}`)).json()).toMatchObject({ total: 0, data: [] });
    expect((await attacker.get('/api/crm/requests')).json()).toMatchObject({ total: 1, data: [{ id: own.id }] });
    const [row] = await ctx.db.select().from(contactRequests).where(eq(contactRequests.id, req.id));
    expect(row).toMatchObject({ tenantId: a.id, contactId: victim.id, status: 'Open', description: 'secret' });
  });
});
