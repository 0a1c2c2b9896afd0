import { describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser, PASSWORD } from '../helpers/factories.js';

const ctx = setupTestApp();

describe('smoke', () => {
  it('health answers', async () => {
    const res = await api(ctx.app).get('/api/health');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok' });
  });

  it('logs in a factory tenant admin', async () => {
    const t = await newTenant(ctx);
    const res = await api(ctx.app).post('/api/auth/login', { username: 'admin', password: PASSWORD, churchName: t.slug });
    expect(res.statusCode).toBe(200);
    expect(res.json().user.roles).toEqual(['Admin']);
    const u = await newUser(ctx, t, ['contacts:read']);
    expect(u.id).toBeGreaterThan(0);
    expectError(await api(ctx.app).get('/api/no-such-route'), 404);
  });
});
