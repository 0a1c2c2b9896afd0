import { describe, expect, it } from 'vitest';
import { expectError, setupTestApp } from '../helpers/app.js';
import { newTenant, PASSWORD } from '../helpers/factories.js';

const ctx = setupTestApp();

const post = (url: string, payload: unknown, cookie?: string) =>
  ctx.app.inject({ method: 'POST', url, headers: { host: '127.0.0.1:3000', ...(cookie ? { cookie } : {}) }, payload: payload as object });

describe('the refresh cookie: errors', () => {
  it('refresh without a body token or a cookie is 401 and says what is missing', async () => {
    expect(expectError(await post('/api/auth/refresh', {}), 401)).toMatch(/refresh token/i);
  });

  it('an unknown cookie is 401 and the answer clears the cookie', async () => {
    const res = await post('/api/auth/refresh', {}, 'parish_refresh=not-a-token');
    expectError(res, 401);
    expect(String(res.headers['set-cookie'])).toMatch(/^parish_refresh=; Max-Age=0;/);
  });

  it('a rotated cookie presented again is 401 and ends the session (reuse detection)', async () => {
    const t = await newTenant(ctx);
    const login = await post('/api/auth/login', { churchName: t.slug, username: 'admin', password: PASSWORD, refreshCookie: true });
    const first = /parish_refresh=([^;]*)/.exec(String(login.headers['set-cookie']))![1];
    const rotated = await post('/api/auth/refresh', {}, `parish_refresh=${first}`);
    const second = /parish_refresh=([^;]*)/.exec(String(rotated.headers['set-cookie']))![1];
    expectError(await post('/api/auth/refresh', {}, `parish_refresh=${first}`), 401);
    expectError(await post('/api/auth/refresh', {}, `parish_refresh=${second}`), 401);
  });

  it('refreshCookie must be a boolean; logout without any token is still 204', async () => {
    const t = await newTenant(ctx);
    expectError(await post('/api/auth/login', { churchName: t.slug, username: 'admin', password: PASSWORD, refreshCookie: 'yes' }), 400);
    expect((await post('/api/auth/logout', {})).statusCode).toBe(204);
  });
});
