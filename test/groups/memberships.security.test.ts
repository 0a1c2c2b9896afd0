import { describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser } from '../helpers/factories.js';
import { addMembership, newContact, newGroup } from '../helpers/groups.factories.js';

const ctx = setupTestApp();

describe('memberships: security', () => {
  it('401 without a token; 403 without the permission', async () => {
    const anon = api(ctx.app);
    expectError(await anon.get('/api/groups/membership'), 401);
    expectError(await anon.post('/api/groups/membership', { groupId: 1, contactId: 1 }), 401);
    expectError(await anon.put('/api/groups/membership/1', { role: 'Member' }), 401);
    expectError(await anon.delete('/api/groups/membership/1'), 401);
    const t = await newTenant(ctx);
    const g = await newGroup(ctx, t, { name: 'G', category: 'Church' });
    const c = await newContact(ctx, t);
    const m = await addMembership(ctx, t, g, c);
    const none = api(ctx.app, (await newUser(ctx, t, ['contacts:read'])).token);
    expectError(await none.get('/api/groups/membership'), 403);
    const reader = api(ctx.app, (await newUser(ctx, t, ['groups:read'])).token);
    expect((await reader.get('/api/groups/membership')).json().total).toBe(1);
    expectError(await reader.post('/api/groups/membership', { groupId: g.id, contactId: c }), 403);
    expectError(await reader.put(`/api/groups/membership/${m.id}`, { role: 'Leader' }), 403);
    expectError(await reader.delete(`/api/groups/membership/${m.id}`), 403);
  });

  it("another tenant's ids are 404 in paths and bodies (groupId, contactId); its memberships never listed", async () => {
    const t1 = await newTenant(ctx);
    const t2 = await newTenant(ctx);
    const g2 = await newGroup(ctx, t2, { name: 'G2', category: 'Church' });
    const c2 = await newContact(ctx, t2);
    const m2 = await addMembership(ctx, t2, g2, c2);
    const g1 = await newGroup(ctx, t1, { name: 'G1', category: 'Church' });
    const c1 = await newContact(ctx, t1);
    const a = api(ctx.app, t1.admin.token);
    expect(expectError(await a.post('/api/groups/membership', { groupId: g2.id, contactId: c1 }), 404)).toBe(`Group with id ${g2.id} not found`);
    expect(expectError(await a.post('/api/groups/membership', { groupId: g1.id, contactId: c2 }), 404)).toBe(`Contact with id ${c2} not found`);
    expectError(await a.put(`/api/groups/membership/${m2.id}`, { isActive: false }), 404);
    expectError(await a.delete(`/api/groups/membership/${m2.id}`), 404);
    expect((await a.get('/api/groups/membership')).json().total).toBe(0);
    expect((await a.get(`/api/groups/membership?groupId=${g2.id}`)).json().total).toBe(0);
    expect((await a.get(`/api/groups/membership?contactId=${c2}`)).json().total).toBe(0);
    const still = (await api(ctx.app, t2.admin.token).get(`/api/groups/membership?groupId=${g2.id}`)).json();
    expect(still.data[0]).toMatchObject({ id: m2.id, isActive: true });
  });
});
