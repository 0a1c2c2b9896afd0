import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { roles } from '../../src/db/schema/index.js';
import { PERMISSION_CATALOG } from '../../src/lib/permissions.js';
import { api, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser } from '../helpers/factories.js';
import { roleId } from '../helpers/users.factories.js';

const ctx = setupTestApp();

describe('GET /api/roles/permissions', () => {
  it('lists the catalog in an envelope', async () => {
    const t = await newTenant(ctx);
    const res = await api(ctx.app, t.admin.token).get('/api/roles/permissions?limit=100');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ total: PERMISSION_CATALOG.length, page: 1, limit: 100 });
    expect(body.data).toHaveLength(PERMISSION_CATALOG.length);
    expect(body.data.map((p: { key: string }) => p.key)).toEqual(PERMISSION_CATALOG.map((p) => p.key));
    expect(body.data).toContainEqual({ key: 'roles:write', resource: 'roles', action: 'write', description: 'Create, update and delete roles' });
    expect(body.data).toContainEqual(expect.objectContaining({ key: 'hierarchy:all', resource: 'hierarchy', action: 'all' }));
  });

  it('pages', async () => {
    const t = await newTenant(ctx);
    const res = await api(ctx.app, t.admin.token).get('/api/roles/permissions?page=2&limit=3');
    expect(res.json()).toMatchObject({ total: PERMISSION_CATALOG.length, page: 2, limit: 3 });
    expect(res.json().data.map((p: { key: string }) => p.key)).toEqual(PERMISSION_CATALOG.slice(3, 6).map((p) => p.key));
    expect((await api(ctx.app, t.admin.token).get('/api/roles/permissions?page=50')).json()).toMatchObject({ data: [], total: PERMISSION_CATALOG.length });
  });
});

describe('GET /api/roles', () => {
  it('lists the seeded system roles by name with user counts', async () => {
    const t = await newTenant(ctx);
    await newUser(ctx, t, 'Member');
    await newUser(ctx, t, 'Member');
    const res = await api(ctx.app, t.admin.token).get('/api/roles');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ total: 5, page: 1, limit: 20 });
    expect(body.data.map((r: { name: string }) => r.name)).toEqual(['Admin', 'Check-in', 'Leader', 'Member', 'Treasurer']);
    expect(body.data[3]).toEqual({
      id: await roleId(ctx, t, 'Member'), name: 'Member', description: 'Read visible groups and events',
      permissions: ['groups:read', 'events:read'], isSystem: true, userCount: 2,
    });
    expect(body.data[0]).toMatchObject({ isSystem: true, userCount: 1 });
    expect(body.data[0].permissions).toHaveLength(PERMISSION_CATALOG.length);
  });

  it('filters by q (name, case-insensitive) and pages', async () => {
    const t = await newTenant(ctx);
    const res = await api(ctx.app, t.admin.token).get('/api/roles?q=EAD');
    expect(res.json().data.map((r: { name: string }) => r.name)).toEqual(['Leader']);
    const page = await api(ctx.app, t.admin.token).get('/api/roles?limit=1&page=2');
    expect(page.json()).toMatchObject({ total: 5, limit: 1, page: 2, data: [{ name: 'Check-in' }] });
  });
});

describe('POST /api/roles', () => {
  it('creates a role (permissions deduplicated, output-only fields ignored)', async () => {
    const t = await newTenant(ctx);
    const res = await api(ctx.app, t.admin.token).post('/api/roles', {
      name: 'Usher', description: 'Takes attendance', permissions: ['events:write', 'events:read', 'events:read'], isSystem: true, id: 1, userCount: 9,
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({ id: expect.any(Number), name: 'Usher', description: 'Takes attendance', permissions: ['events:read', 'events:write'], isSystem: false, userCount: 0 });
    const [row] = await ctx.db.select().from(roles).where(and(eq(roles.tenantId, t.id), eq(roles.id, res.json().id)));
    expect(row).toMatchObject({ name: 'Usher', isSystem: false, permissions: ['events:read', 'events:write'] });
    const minimal = await api(ctx.app, t.admin.token).post('/api/roles', { name: 'Nothing' });
    expect(minimal.json()).toMatchObject({ name: 'Nothing', description: null, permissions: [] });
  });
});

describe('GET/PUT/DELETE /api/roles/:id', () => {
  it('reads a role', async () => {
    const t = await newTenant(ctx);
    const id = await roleId(ctx, t, 'Leader');
    const res = await api(ctx.app, t.admin.token).get(`/api/roles/${id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id, name: 'Leader', isSystem: true, userCount: 0 });
  });

  it('updates a role; its holders get the new permissions on their next request', async () => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    const role = (await a.post('/api/roles', { name: 'Helper', permissions: ['groups:read'] })).json();
    const holder = await newUser(ctx, t, []);
    await a.put(`/api/users/${holder.id}`, { roleIds: [role.id] });
    expect((await api(ctx.app, holder.token).get('/api/crm/contacts')).statusCode).not.toBe(200);
    const res = await a.put(`/api/roles/${role.id}`, { name: 'Helpers', description: 'Helps', permissions: ['contacts:read', 'groups:read'] });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ id: role.id, name: 'Helpers', description: 'Helps', permissions: ['contacts:read', 'groups:read'], isSystem: false, userCount: 1 });
    expect((await api(ctx.app, holder.token).get('/api/users/me')).json().permissions).toEqual(['contacts:read', 'groups:read']);
    // a partial update keeps the rest
    const partial = await a.put(`/api/roles/${role.id}`, { description: null });
    expect(partial.json()).toMatchObject({ name: 'Helpers', description: null, permissions: ['contacts:read', 'groups:read'] });
  });

  it('a system role accepts a new description and its own data back unchanged', async () => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    const id = await roleId(ctx, t, 'Member');
    const read = (await a.get(`/api/roles/${id}`)).json();
    const same = await a.put(`/api/roles/${id}`, { ...read, permissions: [...read.permissions].reverse() });
    expect(same.statusCode).toBe(200);
    const res = await a.put(`/api/roles/${id}`, { description: 'Everyone who belongs' });
    expect(res.json()).toMatchObject({ name: 'Member', description: 'Everyone who belongs', isSystem: true });
  });

  it('deletes an unassigned role', async () => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    const role = (await a.post('/api/roles', { name: 'Temp' })).json();
    const res = await a.delete(`/api/roles/${role.id}`);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect((await a.get(`/api/roles/${role.id}`)).statusCode).toBe(404);
    expect(await ctx.db.select().from(roles).where(and(eq(roles.tenantId, t.id), eq(roles.id, role.id)))).toEqual([]);
  });
});
