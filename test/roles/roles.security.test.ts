import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { roles, users } from '../../src/db/schema/index.js';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser } from '../helpers/factories.js';
import { roleId } from '../helpers/users.factories.js';

const ctx = setupTestApp();

const ROLE_ADMIN: ('roles:read' | 'roles:write' | 'groups:read')[] = ['roles:read', 'roles:write', 'groups:read'];

async function permissionsOf(tenantId: number, id: number) {
  const [row] = await ctx.db.select({ permissions: roles.permissions }).from(roles).where(and(eq(roles.tenantId, tenantId), eq(roles.id, id)));
  return row?.permissions;
}

describe('/api/roles authentication and permissions', () => {
  it('every route needs a token', async () => {
    const a = api(ctx.app);
    expectError(await a.get('/api/roles/permissions'), 401);
    expectError(await a.get('/api/roles'), 401);
    expectError(await a.post('/api/roles', { name: 'X' }), 401);
    expectError(await a.get('/api/roles/1'), 401);
    expectError(await a.put('/api/roles/1', { name: 'X' }), 401);
    expectError(await a.delete('/api/roles/1'), 401);
  });

  it('reads need roles:read and writes roles:write', async () => {
    const t = await newTenant(ctx);
    const none = api(ctx.app, (await newUser(ctx, t, ['users:read'])).token);
    const reader = api(ctx.app, (await newUser(ctx, t, ['roles:read'])).token);
    const member = await roleId(ctx, t, 'Member');
    expect(expectError(await none.get('/api/roles/permissions'), 403)).toBe('Missing permission roles:read');
    expectError(await none.get('/api/roles'), 403);
    expectError(await none.get(`/api/roles/${member}`), 403);
    expect((await reader.get('/api/roles/permissions')).statusCode).toBe(200);
    expect((await reader.get('/api/roles')).statusCode).toBe(200);
    expect((await reader.get(`/api/roles/${member}`)).statusCode).toBe(200);
    expect(expectError(await reader.post('/api/roles', { name: 'X' }), 403)).toBe('Missing permission roles:write');
    expectError(await reader.put(`/api/roles/${member}`, { description: 'x' }), 403);
    expectError(await reader.delete(`/api/roles/${member}`), 403);
  });

  it('/permissions is not captured by /:id', async () => {
    const t = await newTenant(ctx);
    const res = await api(ctx.app, t.admin.token).get('/api/roles/permissions');
    expect(res.statusCode).toBe(200);
    expect(res.json().data[0]).toHaveProperty('key');
  });
});

describe('tenant isolation', () => {
  it('another tenant\'s roles are 404 and never listed', async () => {
    const t = await newTenant(ctx);
    const other = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    const foreign = (await api(ctx.app, other.admin.token).post('/api/roles', { name: 'Foreign' })).json();
    expect(expectError(await a.get(`/api/roles/${foreign.id}`), 404)).toBe(`Role with id ${foreign.id} not found`);
    expectError(await a.put(`/api/roles/${foreign.id}`, { name: 'Mine now', permissions: ['roles:write'] }), 404);
    expectError(await a.delete(`/api/roles/${foreign.id}`), 404);
    expect(await permissionsOf(other.id, foreign.id)).toEqual([]);
    expect((await a.get('/api/roles?q=Foreign')).json()).toMatchObject({ total: 0, data: [] });
    expect((await a.get('/api/roles')).json().total).toBe(5);
  });
});

describe('no privilege escalation through roles', () => {
  it('a role admin cannot create or widen a role beyond its own permissions', async () => {
    const t = await newTenant(ctx);
    const ra = api(ctx.app, (await newUser(ctx, t, ROLE_ADMIN)).token);
    expect(expectError(await ra.post('/api/roles', { name: 'Super', permissions: ['groups:read', 'hierarchy:all'] }), 403))
      .toBe('You cannot create role Super: it has permissions you do not hold (hierarchy:all)');
    const ok = await ra.post('/api/roles', { name: 'Reader', permissions: ['groups:read'] });
    expect(ok.statusCode).toBe(201);
    expectError(await ra.put(`/api/roles/${ok.json().id}`, { permissions: ['groups:read', 'users:write'] }), 403);
    expect(await permissionsOf(t.id, ok.json().id)).toEqual(['groups:read']);
  });

  it('a role admin cannot widen its own role', async () => {
    const t = await newTenant(ctx);
    const u = await newUser(ctx, t, ROLE_ADMIN);
    const own = await roleId(ctx, t, `role-${u.username}`);
    const res = await api(ctx.app, u.token).put(`/api/roles/${own}`, { permissions: [...ROLE_ADMIN, 'users:write'] });
    expectError(res, 403);
    expect((await api(ctx.app, u.token).get('/api/users/me')).json().permissions).toEqual(['groups:read', 'roles:read', 'roles:write']);
  });

  it('a role admin cannot edit a role that holds permissions it lacks', async () => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    const strong = (await a.post('/api/roles', { name: 'Strong', permissions: ['users:write', 'groups:read'] })).json();
    const ra = api(ctx.app, (await newUser(ctx, t, ROLE_ADMIN)).token);
    expect(expectError(await ra.put(`/api/roles/${strong.id}`, { permissions: ['groups:read'] }), 403)).toMatch(/^You cannot edit role Strong/);
    expectError(await ra.put(`/api/roles/${strong.id}`, { name: 'Weak' }), 403);
    expect((await a.get(`/api/roles/${strong.id}`)).json()).toMatchObject({ name: 'Strong', permissions: ['groups:read', 'users:write'] });
  });

  it('the last active holder of roles:write cannot lose it through its role (409)', async () => {
    const t = await newTenant(ctx);
    const u = await newUser(ctx, t, ROLE_ADMIN);
    const own = await roleId(ctx, t, `role-${u.username}`);
    // the seeded admin leaves: u is now the only active holder of roles:write
    await ctx.db.update(users).set({ status: 'Disabled' }).where(and(eq(users.tenantId, t.id), eq(users.id, t.admin.id)));
    const res = await api(ctx.app, u.token).put(`/api/roles/${own}`, { permissions: ['roles:read', 'groups:read'] });
    expect(expectError(res, 409)).toMatch(/last active user holding roles:write/);
    expect((await permissionsOf(t.id, own))?.sort()).toEqual(['groups:read', 'roles:read', 'roles:write']);
    // with another active holder, the same change goes through
    await ctx.db.update(users).set({ status: 'Active' }).where(and(eq(users.tenantId, t.id), eq(users.id, t.admin.id)));
    const ok = await api(ctx.app, u.token).put(`/api/roles/${own}`, { permissions: ['roles:read', 'groups:read'] });
    expect(ok.statusCode).toBe(200);
    expect((await api(ctx.app, u.token).get('/api/users/me')).json().permissions).toEqual(['groups:read', 'roles:read']);
  });
});
