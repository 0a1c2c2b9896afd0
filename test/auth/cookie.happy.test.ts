import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import { api, probeRoutes, setupTestApp } from '../helpers/app.js';
import { newTenant, PASSWORD } from '../helpers/factories.js';

const ctx = setupTestApp({}, probeRoutes);

/** The console's login: the refresh token as a cookie (console.md "Tokens"). */
const cookieLogin = (slug: string, host = '127.0.0.1:3000') =>
  ctx.app.inject({ method: 'POST', url: '/api/auth/login', headers: { host }, payload: { churchName: slug, username: 'admin', password: PASSWORD, refreshCookie: true } });

function refreshCookie(res: LightMyRequestResponse): string {
  const header = String(res.headers['set-cookie']);
  const match = /^parish_refresh=([^;]*);/.exec(header);
  if (!match) throw new Error(`no refresh cookie in ${header}`);
  return match[1];
}

const withCookie = (url: string, cookie: string, host = '127.0.0.1:3000') =>
  ctx.app.inject({ method: 'POST', url, headers: { host, cookie: `other=1; parish_refresh=${cookie}` }, payload: {} });

describe('the refresh token as a cookie', () => {
  it('login with refreshCookie sets an HttpOnly, SameSite=Strict cookie scoped to /api/auth and keeps the token out of the body', async () => {
    const t = await newTenant(ctx);
    const res = await cookieLogin(t.slug);
    expect(res.statusCode).toBe(200);
    expect(Object.keys(res.json()).sort()).toEqual(['accessToken', 'expiresIn', 'user']);
    const header = String(res.headers['set-cookie']);
    expect(header).toMatch(/^parish_refresh=[A-Za-z0-9_-]{43}; Max-Age=2592000; Path=\/api\/auth; HttpOnly; SameSite=Strict$/);
    expect(res.body).not.toContain(refreshCookie(res));
  });

  it('is Secure unless the request came to a loopback address', async () => {
    const t = await newTenant(ctx);
    expect(String((await cookieLogin(t.slug, 'parish.example.org')).headers['set-cookie'])).toMatch(/; Secure$/);
    expect(String((await cookieLogin(t.slug, 'localhost:3000')).headers['set-cookie'])).not.toMatch(/Secure/);
  });

  it('refresh reads the cookie, answers new tokens and rotates the cookie; the new access token works', async () => {
    const t = await newTenant(ctx);
    const first = refreshCookie(await cookieLogin(t.slug));
    const res = await withCookie('/api/auth/refresh', first);
    expect(res.statusCode).toBe(200);
    expect(res.json().refreshToken).toBeUndefined();
    expect(res.json().user.username).toBe('admin');
    const second = refreshCookie(res);
    expect(second).not.toBe(first);
    expect((await api(ctx.app, res.json().accessToken).get('/api/test/whoami')).json().userId).toBe(t.admin.id);
    expect((await withCookie('/api/auth/refresh', second)).statusCode).toBe(200);
  });

  it('logout reads the cookie, clears it, and the cookie no longer refreshes', async () => {
    const t = await newTenant(ctx);
    const cookie = refreshCookie(await cookieLogin(t.slug));
    const out = await withCookie('/api/auth/logout', cookie);
    expect(out.statusCode).toBe(204);
    expect(String(out.headers['set-cookie'])).toMatch(/^parish_refresh=; Max-Age=0; Path=\/api\/auth; HttpOnly; SameSite=Strict/);
    expect((await withCookie('/api/auth/refresh', cookie)).statusCode).toBe(401);
  });

  it('the body form is unchanged for API clients: no cookie is set', async () => {
    const t = await newTenant(ctx);
    const res = await api(ctx.app).post('/api/auth/login', { churchName: t.slug, username: 'admin', password: PASSWORD });
    expect(res.headers['set-cookie']).toBeUndefined();
    const refreshed = await api(ctx.app).post('/api/auth/refresh', { refreshToken: res.json().refreshToken });
    expect(refreshed.statusCode).toBe(200);
    expect(refreshed.headers['set-cookie']).toBeUndefined();
    expect(refreshed.json().refreshToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});
