import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { users } from '../../src/db/schema/index.js';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser, PASSWORD } from '../helpers/factories.js';

const ctx = setupTestApp();

describe('/api/users/me security', () => {
  it('needs a valid token', async () => {
    expectError(await api(ctx.app).get('/api/users/me'), 401);
    expectError(await api(ctx.app).put('/api/users/me/password', { currentPassword: PASSWORD, newPassword: 'new password 1' }), 401);
    expectError(await api(ctx.app, 'not-a-jwt').get('/api/users/me'), 401);
    const forged = ctx.app.jwt.sign({ sub: '1', tid: 1, sid: 'x', typ: 'refresh' });
    expectError(await api(ctx.app, forged).get('/api/users/me'), 401);
  });

  it('/me is not captured by /:id (a user with only users:read gets its own record)', async () => {
    const t = await newTenant(ctx);
    const u = await newUser(ctx, t, ['users:read']);
    const res = await api(ctx.app, u.token).get('/api/users/me');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: u.id, permissions: ['users:read'] });
  });

  it('a disabled user\'s token is refused', async () => {
    const t = await newTenant(ctx);
    const u = await newUser(ctx, t, 'Member');
    await ctx.db.update(users).set({ status: 'Disabled' }).where(and(eq(users.tenantId, t.id), eq(users.id, u.id)));
    expectError(await api(ctx.app, u.token).get('/api/users/me'), 401);
    expectError(await api(ctx.app, u.token).put('/api/users/me/password', { currentPassword: PASSWORD, newPassword: 'new password 1' }), 401);
  });

  it('never returns the password hash', async () => {
    const t = await newTenant(ctx);
    const res = await api(ctx.app, t.admin.token).get('/api/users/me');
    expect(res.body).not.toMatch(/argon2|password/i);
  });
});
