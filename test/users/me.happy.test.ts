import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { refreshTokens, users } from '../../src/db/schema/index.js';
import { api, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser, PASSWORD } from '../helpers/factories.js';
import { login, roleId } from '../helpers/users.factories.js';

const ctx = setupTestApp();

describe('GET /api/users/me', () => {
  it('returns the caller with roles and effective permissions', async () => {
    const t = await newTenant(ctx);
    const u = await newUser(ctx, t, 'Leader', { email: 'me@example.org' });
    const res = await api(ctx.app, u.token).get('/api/users/me');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      id: u.id, username: u.username, email: 'me@example.org', contactId: u.contactId, status: 'Active',
      roles: [{ id: await roleId(ctx, t, 'Leader'), name: 'Leader' }],
      permissions: ['attendance:read', 'attendance:write', 'checkin:write', 'contacts:read', 'contacts:write', 'events:read', 'events:write', 'groups:read', 'groups:write', 'reports:read', 'tasks:read', 'tasks:write'],
    });
  });

  it('works for a user without any permission and reflects role changes on the next request', async () => {
    const t = await newTenant(ctx);
    const u = await newUser(ctx, t, []);
    expect((await api(ctx.app, u.token).get('/api/users/me')).json()).toMatchObject({ permissions: [] });
    await api(ctx.app, t.admin.token).put(`/api/users/${u.id}`, { roleIds: [await roleId(ctx, t, 'Member')] });
    expect((await api(ctx.app, u.token).get('/api/users/me')).json()).toMatchObject({ roles: [{ name: 'Member' }], permissions: ['events:read', 'groups:read'] });
  });
});

describe('PUT /api/users/me/password', () => {
  it('changes the password, keeps the caller\'s session and revokes the others', async () => {
    const t = await newTenant(ctx);
    const u = await newUser(ctx, t, 'Member');
    const mine = await login(ctx, t, u.username);
    const other = await login(ctx, t, u.username);
    const res = await api(ctx.app, mine.accessToken).put('/api/users/me/password', { currentPassword: PASSWORD, newPassword: '  new secret  ' });
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect((await api(ctx.app).post('/api/auth/refresh', { refreshToken: other.refreshToken })).statusCode).toBe(401);
    expect((await api(ctx.app).post('/api/auth/refresh', { refreshToken: mine.refreshToken })).statusCode).toBe(200);
    const login1 = await api(ctx.app).post('/api/auth/login', { username: u.username, password: PASSWORD, churchName: t.slug });
    expect(login1.statusCode).toBe(401);
    // passwords are not trimmed: the spaces are part of the secret
    await login(ctx, t, u.username, '  new secret  ');
    const tokens = await ctx.db.select().from(refreshTokens).where(and(eq(refreshTokens.tenantId, t.id), eq(refreshTokens.userId, u.id)));
    expect(tokens.filter((r) => r.revokedAt === null).length).toBeGreaterThanOrEqual(2);
  });

  it('lets a user without permissions change its password', async () => {
    const t = await newTenant(ctx);
    const u = await newUser(ctx, t, []);
    const before = await ctx.db.select({ h: users.passwordHash }).from(users).where(and(eq(users.tenantId, t.id), eq(users.id, u.id)));
    const res = await api(ctx.app, u.token).put('/api/users/me/password', { currentPassword: PASSWORD, newPassword: 'another password' });
    expect(res.statusCode).toBe(204);
    const after = await ctx.db.select({ h: users.passwordHash }).from(users).where(and(eq(users.tenantId, t.id), eq(users.id, u.id)));
    expect(after[0].h).not.toBe(before[0].h);
    expect(after[0].h).toMatch(/^\$argon2id\$/);
  });
});
