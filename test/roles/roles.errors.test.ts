import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { roles } from '../../src/db/schema/index.js';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser } from '../helpers/factories.js';
import { roleId } from '../helpers/users.factories.js';

const ctx = setupTestApp();

const BAD_IDS = ['abc', '1.5', '-1', '0', '99999999999999999999'];

describe('/api/roles validation', () => {
  it('rejects malformed bodies with 400 naming the field', async () => {
    const t = await newTenant(ctx);
    const post = async (body: object) => expectError(await api(ctx.app, t.admin.token).post('/api/roles', body), 400);
    expect(await post({})).toBe('body/name is required');
    expect(await post({ name: '' })).toMatch(/^body\/name /);
    expect(await post({ name: '   ' })).toMatch(/^body\/name /);
    expect(await post({ name: 'x'.repeat(201) })).toMatch(/^body\/name /);
    expect(await post({ name: 'R', description: 'x'.repeat(5001) })).toMatch(/^body\/description /);
    expect(await post({ name: 'R', permissions: ['contacts:delete'] })).toMatch(/^body\/permissions\/0 must be one of: contacts:read/);
    expect(await post({ name: 'R', permissions: ['groups:read', 'Admin'] })).toMatch(/^body\/permissions\/1 must be one of/);
    expect(await post({ name: 'R', permissions: { a: 1 } })).toMatch(/^body\/permissions /);
    expect(await post({ name: { a: 1 } })).toMatch(/^body\/name /);
    const put = async (body: object) => expectError(await api(ctx.app, t.admin.token).put(`/api/roles/${await roleId(ctx, t, 'Member')}`, body), 400);
    expect(await put({ permissions: ['*'] })).toMatch(/^body\/permissions\/0 /);
    expect(await put({ name: '' })).toMatch(/^body\/name /);
    const list = async (qs: string) => expectError(await api(ctx.app, t.admin.token).get(`/api/roles?${qs}`), 400);
    expect(await list('limit=0')).toMatch(/^querystring\/limit /);
    expect(await list('page=abc')).toMatch(/^querystring\/page /);
    expect(expectError(await api(ctx.app, t.admin.token).get('/api/roles/permissions?limit=-1'), 400)).toMatch(/^querystring\/limit /);
    const [{ n }] = [{ n: (await ctx.db.select().from(roles).where(eq(roles.tenantId, t.id))).length }];
    expect(n).toBe(5);
  });

  it('malformed ids are 400, unknown ids 404', async () => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    for (const id of BAD_IDS) {
      expect(expectError(await a.get(`/api/roles/${id}`), 400)).toMatch(/^params\/id /);
      expect(expectError(await a.put(`/api/roles/${id}`, { name: 'X' }), 400)).toMatch(/^params\/id /);
      expect(expectError(await a.delete(`/api/roles/${id}`), 400)).toMatch(/^params\/id /);
    }
    expect(expectError(await a.get('/api/roles/999999'), 404)).toBe('Role with id 999999 not found');
    expect(expectError(await a.put('/api/roles/999999', { name: 'X' }), 404)).toBe('Role with id 999999 not found');
    expect(expectError(await a.delete('/api/roles/999999'), 404)).toBe('Role with id 999999 not found');
  });
});

describe('/api/roles conflicts', () => {
  it('names are unique per tenant, case-insensitively', async () => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    expect(expectError(await a.post('/api/roles', { name: 'admin' }), 409)).toBe('A role named admin already exists');
    const role = (await a.post('/api/roles', { name: 'Greeter' })).json();
    expect(expectError(await a.put(`/api/roles/${role.id}`, { name: 'LEADER' }), 409)).toBe('A role named LEADER already exists');
    // renaming to itself in another case is fine
    expect((await a.put(`/api/roles/${role.id}`, { name: 'GREETER' })).json().name).toBe('GREETER');
    // the same name in another tenant is fine
    const other = await newTenant(ctx);
    expect((await api(ctx.app, other.admin.token).post('/api/roles', { name: 'Greeter' })).statusCode).toBe(201);
  });

  it('system roles cannot be deleted, renamed or have their permissions changed', async () => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    const leader = await roleId(ctx, t, 'Leader');
    const member = await roleId(ctx, t, 'Member');
    const admin = await roleId(ctx, t, 'Admin');
    expect(expectError(await a.delete(`/api/roles/${member}`), 409)).toBe('Role Member is a system role and cannot be deleted');
    expectError(await a.delete(`/api/roles/${leader}`), 409);
    expectError(await a.delete(`/api/roles/${admin}`), 409);
    expect(expectError(await a.put(`/api/roles/${leader}`, { permissions: ['groups:read'] }), 409)).toBe('Role Leader is a system role: its name and permissions cannot be changed');
    expectError(await a.put(`/api/roles/${member}`, { permissions: ['groups:read', 'events:read', 'contacts:read'] }), 409);
    expectError(await a.put(`/api/roles/${member}`, { name: 'Members' }), 409);
    expectError(await a.put(`/api/roles/${admin}`, { permissions: [] }), 409);
    const [row] = await ctx.db.select().from(roles).where(and(eq(roles.tenantId, t.id), eq(roles.id, leader)));
    expect(row).toMatchObject({ name: 'Leader', isSystem: true });
    expect(row.permissions).toHaveLength(12);
  });

  it('a role still assigned cannot be deleted', async () => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    const role = (await a.post('/api/roles', { name: 'Assigned', permissions: ['groups:read'] })).json();
    const u = await newUser(ctx, t, []);
    await a.put(`/api/users/${u.id}`, { roleIds: [role.id] });
    expect(expectError(await a.delete(`/api/roles/${role.id}`), 409)).toBe('Role Assigned is still assigned to 1 user; remove it from them first');
    expect((await a.get(`/api/roles/${role.id}`)).statusCode).toBe(200);
    await a.put(`/api/users/${u.id}`, { roleIds: [] });
    expect((await a.delete(`/api/roles/${role.id}`)).statusCode).toBe(204);
  });
});
