import { describe, expect, it } from 'vitest';
import { expectError, setupTestApp } from '../helpers/app.js';
import { newTenant, PASSWORD } from '../helpers/factories.js';

const ctx = setupTestApp({ authRateLimit: { accountFailures: 3, ipPerMinute: 5 } });

let ipCounter = 0;
/** Each test uses its own client addresses so the per-IP budget of one test does not spill over. */
const freshIp = () => `10.1.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`;

const post = (url: string, payload: object, ip: string) =>
  ctx.app.inject({ method: 'POST', url, payload, remoteAddress: ip });

describe('per-account login throttle', () => {
  it('after 3 failures the account is 429 with Retry-After, even with the right password', async () => {
    const t = await newTenant(ctx);
    for (let i = 0; i < 3; i++) {
      expectError(await post('/api/auth/login', { username: 'admin', password: 'wrong password', churchName: t.slug }, freshIp()), 401);
    }
    const res = await post('/api/auth/login', { username: 'admin', password: PASSWORD, churchName: t.slug }, freshIp());
    expect(expectError(res, 429)).toMatch(/^Too many attempts; retry in \d+ seconds$/);
    const retryAfter = Number(res.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(800);
    expect(retryAfter).toBeLessThanOrEqual(900);
    // The key is case-insensitive: changing the case does not get around it.
    expectError(await post('/api/auth/login', { username: 'ADMIN', password: PASSWORD, churchName: t.slug.toUpperCase() }, freshIp()), 429);
    // Another account of another tenant is not affected.
    const other = await newTenant(ctx);
    expect((await post('/api/auth/login', { username: 'admin', password: PASSWORD, churchName: other.slug }, freshIp())).statusCode).toBe(200);
  });

  it('unknown users are throttled the same way (no enumeration by throttle behaviour)', async () => {
    const t = await newTenant(ctx);
    for (let i = 0; i < 3; i++) expectError(await post('/api/auth/login', { username: 'ghost', password: 'x', churchName: t.slug }, freshIp()), 401);
    expectError(await post('/api/auth/login', { username: 'ghost', password: 'x', churchName: t.slug }, freshIp()), 429);
  });

  it('a success resets the per-account counter', async () => {
    const t = await newTenant(ctx);
    const wrong = { username: 'admin', password: 'wrong password', churchName: t.slug };
    expectError(await post('/api/auth/login', wrong, freshIp()), 401);
    expectError(await post('/api/auth/login', wrong, freshIp()), 401);
    expect((await post('/api/auth/login', { ...wrong, password: PASSWORD }, freshIp())).statusCode).toBe(200);
    expectError(await post('/api/auth/login', wrong, freshIp()), 401);
    expectError(await post('/api/auth/login', wrong, freshIp()), 401);
    // Without the reset this would be the 5th failure and a 429.
    expect((await post('/api/auth/login', { ...wrong, password: PASSWORD }, freshIp())).statusCode).toBe(200);
  });

  it('forgot-password is throttled per account', async () => {
    const t = await newTenant(ctx);
    for (let i = 0; i < 3; i++) expect((await post('/api/auth/forgot-password', { churchName: t.slug, username: 'admin' }, freshIp())).statusCode).toBe(202);
    const res = await post('/api/auth/forgot-password', { churchName: t.slug, username: 'admin' }, freshIp());
    expectError(res, 429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  });
});

describe('per-IP limit', () => {
  it('login and forgot-password share 5 requests a minute per IP; then 429 with Retry-After', async () => {
    const t = await newTenant(ctx);
    const ip = freshIp();
    const other = await newTenant(ctx);
    for (let i = 0; i < 3; i++) expect((await post('/api/auth/login', { username: 'admin', password: PASSWORD, churchName: t.slug }, ip)).statusCode).toBe(200);
    for (let i = 0; i < 2; i++) expect((await post('/api/auth/forgot-password', { churchName: other.slug, email: `u${i}@x.org` }, ip)).statusCode).toBe(202);
    const res = await post('/api/auth/login', { username: 'admin', password: PASSWORD, churchName: t.slug }, ip);
    expect(expectError(res, 429)).toMatch(/^Too many requests; retry in \d+ seconds$/);
    const retryAfter = Number(res.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expectError(await post('/api/auth/forgot-password', { churchName: t.slug, username: 'admin' }, ip), 429);
    // Another address is not limited; other public routes are not limited at all.
    expect((await post('/api/auth/login', { username: 'admin', password: PASSWORD, churchName: t.slug }, freshIp())).statusCode).toBe(200);
    for (let i = 0; i < 3; i++) expect((await ctx.app.inject({ method: 'GET', url: '/api/health', remoteAddress: ip })).statusCode).toBe(200);
    expect((await post('/api/auth/logout', { refreshToken: 'x' }, ip)).statusCode).toBe(204);
  });

  it('X-Forwarded-For does not get around the limit when no proxy is trusted', async () => {
    const ip = freshIp();
    for (let i = 0; i < 6; i++) {
      const res = await ctx.app.inject({ method: 'POST', url: '/api/auth/login', payload: {}, remoteAddress: ip, headers: { 'x-forwarded-for': `203.0.113.${i}` } });
      expect(res.statusCode).toBe(i < 5 ? 400 : 429);
    }
  });

  it('the per-IP limit applies before validation and hashing (bad bodies count too)', async () => {
    const ip = freshIp();
    for (let i = 0; i < 5; i++) expectError(await post('/api/auth/login', { nonsense: true }, ip), 400);
    expectError(await post('/api/auth/login', { nonsense: true }, ip), 429);
  });
});
