import { describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser } from '../helpers/factories.js';
import { newContact, newGroup } from '../helpers/groups.factories.js';

const ctx = setupTestApp();

describe('membership requests: security', () => {
  it('401 without a token; 403 without the permission', async () => {
    const anon = api(ctx.app);
    expectError(await anon.get('/api/groups/membership-request'), 401);
    expectError(await anon.post('/api/groups/membership-request', { groupId: 1 }), 401);
    expectError(await anon.put('/api/groups/membership-request/1/approve'), 401);
    expectError(await anon.put('/api/groups/membership-request/1/reject'), 401);
    const t = await newTenant(ctx);
    const g = await newGroup(ctx, t, { name: 'G', category: 'Church' });
    const none = api(ctx.app, (await newUser(ctx, t, ['contacts:read'])).token);
    expectError(await none.get('/api/groups/membership-request'), 403);
    expectError(await none.post('/api/groups/membership-request', { groupId: g.id }), 403);
    const reader = await newUser(ctx, t, ['groups:read']);
    const r = api(ctx.app, reader.token);
    const req = await r.post('/api/groups/membership-request', { groupId: g.id });
    expect(req.statusCode).toBe(201);
    expect((await r.get('/api/groups/membership-request')).json()).toEqual({ data: [], total: 0, page: 1, limit: 20 });
    expectError(await r.put(`/api/groups/membership-request/${req.json().id}/approve`), 403);
    expectError(await r.put(`/api/groups/membership-request/${req.json().id}/reject`), 403);
    const other = await newContact(ctx, t);
    expect(expectError(await r.post('/api/groups/membership-request', { groupId: g.id, contactId: other }), 403)).toMatch(/own contact/);
    // Naming one's own contact explicitly is fine (here: already pending → 409, not 403).
    expectError(await r.post('/api/groups/membership-request', { groupId: g.id, contactId: reader.contactId }), 409);
  });

  it("another tenant's ids are 404 in paths and bodies (groupId, contactId); its requests never listed", async () => {
    const t1 = await newTenant(ctx);
    const t2 = await newTenant(ctx);
    const g2 = await newGroup(ctx, t2, { name: 'G2', category: 'Church' });
    const c2 = await newContact(ctx, t2);
    const req2 = (await api(ctx.app, t2.admin.token).post('/api/groups/membership-request', { groupId: g2.id, contactId: c2 })).json();
    const g1 = await newGroup(ctx, t1, { name: 'G1', category: 'Church' });
    const a = api(ctx.app, t1.admin.token);
    expect(expectError(await a.post('/api/groups/membership-request', { groupId: g2.id }), 404)).toBe(`Group with id ${g2.id} not found`);
    expect(expectError(await a.post('/api/groups/membership-request', { groupId: g1.id, contactId: c2 }), 404)).toBe(`Contact with id ${c2} not found`);
    expectError(await a.put(`/api/groups/membership-request/${req2.id}/approve`), 404);
    expectError(await a.put(`/api/groups/membership-request/${req2.id}/reject`), 404);
    expect((await a.get('/api/groups/membership-request')).json().total).toBe(0);
    expect((await a.get(`/api/groups/membership-request?groupId=${g2.id}`)).json().total).toBe(0);
    const theirs = (await api(ctx.app, t2.admin.token).get('/api/groups/membership-request')).json();
    expect(theirs.data[0]).toMatchObject({ id: req2.id, status: 'Pending' });
  });
});
