import { describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser, PASSWORD } from '../helpers/factories.js';
import { login } from '../helpers/users.factories.js';

const ctx = setupTestApp();

describe('PUT /api/users/me/password errors', () => {
  it('a wrong current password is 400 (not 401) and changes nothing', async () => {
    const t = await newTenant(ctx);
    const u = await newUser(ctx, t, 'Member');
    const mine = await login(ctx, t, u.username);
    const other = await login(ctx, t, u.username);
    const res = await api(ctx.app, mine.accessToken).put('/api/users/me/password', { currentPassword: 'wrong password', newPassword: 'new password 1' });
    expect(expectError(res, 400)).toBe('body/currentPassword is incorrect');
    await login(ctx, t, u.username);
    expect((await api(ctx.app).post('/api/auth/refresh', { refreshToken: other.refreshToken })).statusCode).toBe(200);
  });

  it('validates the new password length and required fields', async () => {
    const t = await newTenant(ctx);
    const u = await newUser(ctx, t, 'Member');
    const put = (body: unknown) => api(ctx.app, u.token).put('/api/users/me/password', body as object);
    expect(expectError(await put({ currentPassword: PASSWORD, newPassword: 'short12' }), 400)).toMatch(/^body\/newPassword /);
    expect(expectError(await put({ currentPassword: PASSWORD, newPassword: 'x'.repeat(257) }), 400)).toMatch(/^body\/newPassword /);
    expect(expectError(await put({ currentPassword: PASSWORD }), 400)).toBe('body/newPassword is required');
    expect(expectError(await put({ newPassword: 'long enough pw' }), 400)).toBe('body/currentPassword is required');
    expect(expectError(await put({ currentPassword: PASSWORD, newPassword: { a: 'long enough pw' } }), 400)).toMatch(/^body\/newPassword /);
    expectError(await api(ctx.app, u.token).put('/api/users/me/password'), 400);
    const malformed = await ctx.app.inject({ method: 'PUT', url: '/api/users/me/password', headers: { authorization: `Bearer ${u.token}`, 'content-type': 'application/json' }, payload: '{"currentPassword":' });
    expectError(malformed, 400);
    // still the old password
    await login(ctx, t, u.username);
  });

  it('an invited user without a password cannot pass any current password', async () => {
    const t = await newTenant(ctx);
    const created = await api(ctx.app, t.admin.token).post('/api/users', { username: 'inv', email: 'inv@example.org', invite: true, firstName: 'I', lastName: 'N' });
    const token = ctx.app.jwt.sign({ sub: String(created.json().id), tid: t.id, sid: 'x', typ: 'access' });
    const res = await api(ctx.app, token).put('/api/users/me/password', { currentPassword: '', newPassword: 'new password 1' });
    expectError(res, 400);
    const res2 = await api(ctx.app, token).put('/api/users/me/password', { currentPassword: 'anything at all', newPassword: 'new password 1' });
    expect(expectError(res2, 400)).toBe('body/currentPassword is incorrect');
  });
});
