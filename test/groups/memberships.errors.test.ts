import { describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant } from '../helpers/factories.js';
import { addMembership, newContact, newGroup } from '../helpers/groups.factories.js';

const ctx = setupTestApp();

describe('memberships: errors', () => {
  it('validates ids, roles and types, naming the field', async () => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    const g = await newGroup(ctx, t, { name: 'G', category: 'Church' });
    const c = await newContact(ctx, t);
    expect(expectError(await a.post('/api/groups/membership', { groupId: g.id }), 400)).toBe('body/contactId is required');
    expect(expectError(await a.post('/api/groups/membership', { contactId: c }), 400)).toBe('body/groupId is required');
    expect(expectError(await a.post('/api/groups/membership', { groupId: g.id, contactId: c, role: 'Boss' }), 400)).toMatch(/body\/role must be one of: Leader, Assistant, Member/);
    expect(expectError(await a.post('/api/groups/membership', { groupId: g.id, contactId: c, isActive: 'maybe' }), 400)).toMatch(/body\/isActive/);
    expect(expectError(await a.post('/api/groups/membership', { groupId: 'abc', contactId: c }), 400)).toMatch(/body\/groupId/);
    expect(expectError(await a.post('/api/groups/membership', { groupId: g.id, contactId: '99999999999999999999' }), 400)).toMatch(/body\/contactId/);
    for (const id of ['abc', '1.5', '-1', '0', '99999999999999999999']) {
      expectError(await a.put(`/api/groups/membership/${id}`, { role: 'Member' }), 400);
      expectError(await a.delete(`/api/groups/membership/${id}`), 400);
    }
    expect(expectError(await a.get('/api/groups/membership?groupId=abc'), 400)).toMatch(/querystring\/groupId/);
    expect(expectError(await a.get('/api/groups/membership?role=Boss'), 400)).toMatch(/querystring\/role/);
    expect(expectError(await a.get('/api/groups/membership?contactId=0'), 400)).toMatch(/querystring\/contactId/);
    const m = await addMembership(ctx, t, g, c);
    expect(expectError(await a.put(`/api/groups/membership/${m.id}`, { role: 'Chief' }), 400)).toMatch(/body\/role/);
  });

  it('unknown group or contact is 404 naming it; a second membership is 409', async () => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    const g = await newGroup(ctx, t, { name: 'G', category: 'Church' });
    const c = await newContact(ctx, t);
    expect(expectError(await a.post('/api/groups/membership', { groupId: 99999999, contactId: c }), 404)).toBe('Group with id 99999999 not found');
    expect(expectError(await a.post('/api/groups/membership', { groupId: g.id, contactId: 99999999 }), 404)).toBe('Contact with id 99999999 not found');
    expect((await a.post('/api/groups/membership', { groupId: g.id, contactId: c })).statusCode).toBe(201);
    expect(expectError(await a.post('/api/groups/membership', { groupId: g.id, contactId: c, role: 'Leader' }), 409)).toBe(
      `Contact ${c} already has a membership in group ${g.id}`,
    );
    expect((await a.get('/api/groups/membership')).json().total).toBe(1);
    expect(expectError(await a.put('/api/groups/membership/99999999', { role: 'Member' }), 404)).toBe('Group membership with id 99999999 not found');
    expect(expectError(await a.delete('/api/groups/membership/99999999'), 404)).toBe('Group membership with id 99999999 not found');
  });
});
