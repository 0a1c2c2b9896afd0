import { describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant } from '../helpers/factories.js';
import { addMembership, newContact, newGroup, newMemberOf } from '../helpers/groups.factories.js';

const ctx = setupTestApp();

describe('membership requests: errors', () => {
  it('validates the body and path ids', async () => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    expect(expectError(await a.post('/api/groups/membership-request', {}), 400)).toBe('body/groupId is required');
    expect(expectError(await a.post('/api/groups/membership-request', { groupId: 'abc' }), 400)).toMatch(/body\/groupId/);
    expect(expectError(await a.post('/api/groups/membership-request', { groupId: 1, contactId: -1 }), 400)).toMatch(/body\/contactId/);
    for (const id of ['abc', '1.5', '-1', '0', '99999999999999999999']) {
      expectError(await a.put(`/api/groups/membership-request/${id}/approve`), 400);
      expectError(await a.put(`/api/groups/membership-request/${id}/reject`), 400);
    }
    expect(expectError(await a.get('/api/groups/membership-request?groupId=x'), 400)).toMatch(/querystring\/groupId/);
  });

  it('unknown group, contact or request is 404 naming it', async () => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    const g = await newGroup(ctx, t, { name: 'G', category: 'Church' });
    expect(expectError(await a.post('/api/groups/membership-request', { groupId: 99999999 }), 404)).toBe('Group with id 99999999 not found');
    expect(expectError(await a.post('/api/groups/membership-request', { groupId: g.id, contactId: 99999999 }), 404)).toBe('Contact with id 99999999 not found');
    expect(expectError(await a.put('/api/groups/membership-request/99999999/approve'), 404)).toBe('Group membership request with id 99999999 not found');
    expect(expectError(await a.put('/api/groups/membership-request/99999999/reject'), 404)).toBe('Group membership request with id 99999999 not found');
  });

  it('a second pending request, or one by an active member, is 409', async () => {
    const t = await newTenant(ctx);
    const g = await newGroup(ctx, t, { name: 'G', category: 'Church' });
    const member = await newMemberOf(ctx, t);
    const m = api(ctx.app, member.token);
    expect((await m.post('/api/groups/membership-request', { groupId: g.id })).statusCode).toBe(201);
    expect(expectError(await m.post('/api/groups/membership-request', { groupId: g.id }), 409)).toBe(
      `Contact ${member.contactId} already has a pending request for group ${g.id}`,
    );
    const active = await newContact(ctx, t);
    await addMembership(ctx, t, g, active);
    expect(expectError(await api(ctx.app, t.admin.token).post('/api/groups/membership-request', { groupId: g.id, contactId: active }), 409)).toBe(
      `Contact ${active} is already an active member of group ${g.id}`,
    );
    const inactive = await newContact(ctx, t);
    await addMembership(ctx, t, g, inactive, 'Member', false);
    expect((await api(ctx.app, t.admin.token).post('/api/groups/membership-request', { groupId: g.id, contactId: inactive })).statusCode).toBe(201);
  });

  it('approve or reject of a handled request is 409, and the decision stands', async () => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    const g = await newGroup(ctx, t, { name: 'G', category: 'Church' });
    const c = await newContact(ctx, t);
    const req = (await a.post('/api/groups/membership-request', { groupId: g.id, contactId: c })).json();
    expect((await a.put(`/api/groups/membership-request/${req.id}/reject`)).statusCode).toBe(200);
    expect(expectError(await a.put(`/api/groups/membership-request/${req.id}/approve`), 409)).toMatch(/is not pending/);
    expectError(await a.put(`/api/groups/membership-request/${req.id}/reject`), 409);
    expect((await a.get(`/api/groups/membership?groupId=${g.id}`)).json().total).toBe(0);
    const req2 = (await a.post('/api/groups/membership-request', { groupId: g.id, contactId: c })).json();
    expect((await a.put(`/api/groups/membership-request/${req2.id}/approve`)).statusCode).toBe(200);
    expectError(await a.put(`/api/groups/membership-request/${req2.id}/approve`), 409);
    expectError(await a.put(`/api/groups/membership-request/${req2.id}/reject`), 409);
    expect((await a.get(`/api/groups/membership?groupId=${g.id}`)).json().data[0]).toMatchObject({ contactId: c, isActive: true, role: 'Member' });
  });

  it('approve accepts no body, an empty body or {}; never a 400 for a stray body', async () => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    const g = await newGroup(ctx, t, { name: 'G', category: 'Church' });
    for (const payload of [undefined, '', '{}']) {
      const c = await newContact(ctx, t);
      const req = (await a.post('/api/groups/membership-request', { groupId: g.id, contactId: c })).json();
      const res = await a.put(`/api/groups/membership-request/${req.id}/approve`, payload, payload === undefined ? undefined : { 'content-type': 'application/json' });
      expect(res.statusCode, String(payload)).toBe(200);
    }
  });
});
