import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { passwordResetTokens, refreshTokens, tenants, users } from '../../src/db/schema/index.js';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser, PASSWORD } from '../helpers/factories.js';

const ctx = setupTestApp();

const post = (url: string, body: unknown) => api(ctx.app).post(url, body as never);

describe('login failures', () => {
  it('wrong password, unknown user, unknown tenant and a disabled user give the identical 401', async () => {
    const t = await newTenant(ctx);
    const u = await newUser(ctx, t, 'Member');
    await ctx.db.update(users).set({ status: 'Disabled' }).where(eq(users.id, u.id));
    const attempts = [
      { username: 'admin', password: 'wrong password', churchName: t.slug },
      { username: 'nobody', password: PASSWORD, churchName: t.slug },
      { username: 'admin', password: PASSWORD, churchName: 'no-such-church' },
      { username: u.username, password: PASSWORD, churchName: t.slug },
    ];
    const bodies = [];
    for (const body of attempts) {
      const res = await post('/api/auth/login', body);
      expectError(res, 401);
      bodies.push(res.body);
    }
    expect(new Set(bodies).size).toBe(1);
    expect(JSON.parse(bodies[0])).toEqual({ statusCode: 401, message: 'Invalid credentials', error: 'Unauthorized' });
  });

  it('a user of another tenant cannot log in through this tenant', async () => {
    const a = await newTenant(ctx);
    const b = await newTenant(ctx);
    const u = await newUser(ctx, a, 'Member');
    expectError(await post('/api/auth/login', { username: u.username, password: PASSWORD, churchName: b.slug }), 401);
  });

  it('missing fields, wrong types, empty and huge values → 400 naming the field', async () => {
    const t = await newTenant(ctx);
    const ok = { username: 'admin', password: PASSWORD, churchName: t.slug };
    const cases: [unknown, RegExp][] = [
      [{ password: PASSWORD, churchName: t.slug }, /^body\/username is required$/],
      [{ ...ok, password: undefined }, /^body\/password is required$/],
      [{ ...ok, churchName: undefined }, /^body\/churchName is required$/],
      [{ ...ok, username: 42 }, /^body\/username /],
      [{ ...ok, password: ['x'] }, /^body\/password /],
      [{ ...ok, churchName: { slug: 'x' } }, /^body\/churchName /],
      [{ ...ok, username: '' }, /^body\/username /],
      [{ ...ok, username: '   ' }, /^body\/username /],
      [{ ...ok, username: 'x'.repeat(100_000) }, /^body\/username /],
      [{ ...ok, password: 'x'.repeat(10_000) }, /^body\/password /],
      [{ ...ok, churchName: 'x'.repeat(1000) }, /^body\/churchName /],
      [[ok], /^body /],
    ];
    for (const [body, message] of cases) {
      const res = await post('/api/auth/login', body);
      expect(expectError(res, 400), JSON.stringify(body).slice(0, 80)).toMatch(message);
    }
  });

  it('a JSON body that is not an object → 400', async () => {
    for (const payload of ['"just a string"', 'null', '42', 'true', '[]']) {
      const res = await ctx.app.inject({ method: 'POST', url: '/api/auth/login', headers: { 'content-type': 'application/json' }, payload });
      expect(expectError(res, 400), payload).toMatch(/^body /);
    }
  });

  it('no body or an empty body → 400', async () => {
    expectError(await ctx.app.inject({ method: 'POST', url: '/api/auth/login' }), 400);
    expectError(await ctx.app.inject({ method: 'POST', url: '/api/auth/login', headers: { 'content-type': 'application/json' }, payload: '' }), 400);
    expectError(await ctx.app.inject({ method: 'POST', url: '/api/auth/login', headers: { 'content-type': 'application/json' }, payload: '{"username":' }), 400);
  });

  it('NUL characters and __proto__ keys do not reach the service', async () => {
    const t = await newTenant(ctx);
    const nul = await ctx.app.inject({
      method: 'POST', url: '/api/auth/login', headers: { 'content-type': 'application/json' },
      payload: `{"username":"admin\\u0000","password":"${PASSWORD}","churchName":"${t.slug}"}`,
    });
    expect(expectError(nul, 400)).toBe('Strings must not contain NUL characters');
    const proto = await ctx.app.inject({
      method: 'POST', url: '/api/auth/login', headers: { 'content-type': 'application/json' },
      payload: `{"__proto__":{"isAdmin":true},"username":"admin","password":"${PASSWORD}","churchName":"${t.slug}"}`,
    });
    expect(proto.statusCode).toBe(200);
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
  });
});

describe('refresh and logout failures', () => {
  it('unknown, empty, huge and mistyped refresh tokens', async () => {
    expect(expectError(await post('/api/auth/refresh', { refreshToken: 'unknown' }), 401)).toBe('Invalid or expired refresh token');
    expectError(await post('/api/auth/refresh', { refreshToken: '' }), 400);
    expectError(await post('/api/auth/refresh', { refreshToken: 'x'.repeat(5000) }), 400);
    expectError(await post('/api/auth/refresh', { refreshToken: 12345 }), 400);
    // Without a body token the refresh cookie is read (test/auth/cookie.*): none at all is 401.
    expect(expectError(await post('/api/auth/refresh', {}), 401)).toMatch(/^No refresh token/);
  });
});

describe('forgot and reset failures', () => {
  it('forgot-password needs the church and a username or an email', async () => {
    expect(expectError(await post('/api/auth/forgot-password', { churchName: 'x' }), 400)).toBe('body must have username or email');
    expect(expectError(await post('/api/auth/forgot-password', { username: 'admin' }), 400)).toBe('body/churchName is required');
    expectError(await post('/api/auth/forgot-password', { churchName: 'x', email: 'y'.repeat(300) }), 400);
  });

  it('unknown reset token → 400; weak, huge and missing passwords → 400', async () => {
    expect(expectError(await api(ctx.app).put('/api/auth/reset-password/unknown-token', { password: 'long enough pw' }), 400)).toBe('Invalid or expired reset token');
    expect(expectError(await api(ctx.app).put('/api/auth/reset-password/unknown-token', { password: 'short' }), 400)).toMatch(/^body\/password /);
    expectError(await api(ctx.app).put('/api/auth/reset-password/unknown-token', { password: 'x'.repeat(300) }), 400);
    expect(expectError(await api(ctx.app).put('/api/auth/reset-password/unknown-token', {}), 400)).toBe('body/password is required');
    expect(expectError(await api(ctx.app).put(`/api/auth/reset-password/${'x'.repeat(99)}`, { password: 'long enough pw' }), 400)).toBe('Invalid or expired reset token');
  });

  it('a weak new password does not use up the token', async () => {
    const t = await newTenant(ctx);
    const email = `admin@${t.slug}.example.org`;
    await post('/api/auth/forgot-password', { churchName: t.slug, email });
    await new Promise((r) => setTimeout(r, 20));
    const token = [...ctx.mailer.sent].reverse().find((m) => m.to === email)!.text.match(/reset-password\/([A-Za-z0-9_-]+)/)![1];
    expectError(await api(ctx.app).put(`/api/auth/reset-password/${token}`, { password: 'weak' }), 400);
    expect((await api(ctx.app).put(`/api/auth/reset-password/${token}`, { password: 'strong enough' })).statusCode).toBe(200);
  });

  it('no mail for an account without email or a disabled account', async () => {
    const t = await newTenant(ctx);
    const noEmail = await newUser(ctx, t, 'Member');
    const before = ctx.mailer.sent.length;
    expect((await post('/api/auth/forgot-password', { churchName: t.slug, username: noEmail.username })).statusCode).toBe(202);
    const disabled = await newUser(ctx, t, 'Member', { email: `off@${t.slug}.example.org` });
    await ctx.db.update(users).set({ status: 'Disabled' }).where(eq(users.id, disabled.id));
    expect((await post('/api/auth/forgot-password', { churchName: t.slug, username: disabled.username })).statusCode).toBe(202);
    await new Promise((r) => setTimeout(r, 20));
    expect(ctx.mailer.sent.length).toBe(before);
  });
});

describe('expiry and races', () => {
  async function resetTokenFor(slug: string) {
    const email = `admin@${slug}.example.org`;
    await post('/api/auth/forgot-password', { churchName: slug, email });
    for (let i = 0; i < 50; i++) {
      const mail = [...ctx.mailer.sent].reverse().find((m) => m.to === email);
      if (mail) return mail.text.match(/reset-password\/([A-Za-z0-9_-]+)/)![1];
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error('no mail');
  }

  it('an expired reset token → 400', async () => {
    const t = await newTenant(ctx);
    const token = await resetTokenFor(t.slug);
    await ctx.db.update(passwordResetTokens).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(passwordResetTokens.userId, t.admin.id));
    expect(expectError(await api(ctx.app).put(`/api/auth/reset-password/${token}`, { password: 'long enough pw' }), 400)).toBe('Invalid or expired reset token');
  });

  it('two concurrent resets with one token: exactly one succeeds', async () => {
    const t = await newTenant(ctx);
    const token = await resetTokenFor(t.slug);
    const results = await Promise.all(['first password', 'second password'].map((password) => api(ctx.app).put(`/api/auth/reset-password/${token}`, { password })));
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 400]);
  });

  it('an expired refresh token → 401', async () => {
    const t = await newTenant(ctx);
    const { refreshToken } = (await post('/api/auth/login', { username: 'admin', password: PASSWORD, churchName: t.slug })).json();
    await ctx.db.update(refreshTokens).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(refreshTokens.userId, t.admin.id));
    expectError(await post('/api/auth/refresh', { refreshToken }), 401);
  });
});

describe('register failures', () => {
  const reg = (churchName: string, extra: Record<string, unknown> = {}) =>
    post('/api/register', { churchName, username: 'someone', email: 'someone@example.org', password: 'long enough pw', firstName: 'Some', lastName: 'One', ...extra });

  it('duplicate username or email (any case) in the tenant → 409; the same in another tenant is fine', async () => {
    const t = await newTenant(ctx);
    expect((await reg(t.slug)).statusCode).toBe(201);
    expect(expectError(await reg(t.slug, { email: 'other@example.org', username: 'SOMEONE' }), 409)).toBe('That username is already taken');
    expect(expectError(await reg(t.slug, { username: 'another', email: 'Someone@Example.org' }), 409)).toBe('That email is already taken');
    expect(expectError(await reg(t.slug, { username: 'admin', email: 'x@example.org' }), 409)).toBe('That username is already taken');
    const other = await newTenant(ctx);
    expect((await reg(other.slug)).statusCode).toBe(201);
  });

  it('unknown church → 404; registration disabled → 403', async () => {
    expect(expectError(await reg('no-such-church'), 404)).toMatch(/no-such-church/);
    const closed = await newTenant(ctx, { allowRegistration: false });
    expect(expectError(await reg(closed.slug), 403)).toBe('This church does not allow self-registration');
    const [row] = await ctx.db.select().from(tenants).where(eq(tenants.id, closed.id));
    expect(row.allowRegistration).toBe(false);
  });

  it('bad fields → 400 naming the field, nothing created', async () => {
    const t = await newTenant(ctx);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ password: 'short' }, /^body\/password /],
      [{ email: 'not-an-email' }, /^body\/email must be a valid email$/],
      [{ username: 'has space' }, /^body\/username /],
      [{ username: 'a@b' }, /^body\/username /],
      [{ username: 'ab' }, /^body\/username /],
      [{ firstName: '' }, /^body\/firstName /],
      [{ lastName: 'x'.repeat(201) }, /^body\/lastName /],
      [{ firstName: 7 }, /^body\/firstName /],
      [{ email: undefined }, /^body\/email is required$/],
    ];
    for (const [extra, message] of cases) expect(expectError(await reg(t.slug, extra), 400), JSON.stringify(extra)).toMatch(message);
    const rows = await ctx.db.select().from(users).where(eq(users.tenantId, t.id));
    expect(rows.map((r) => r.username)).toEqual(['admin']);
  });

  it('concurrent duplicate registrations: one 201, the others 409, never 500', async () => {
    const t = await newTenant(ctx);
    const results = await Promise.all([1, 2, 3].map(() => reg(t.slug)));
    expect(results.map((r) => r.statusCode).sort()).toEqual([201, 409, 409]);
    for (const r of results.filter((x) => x.statusCode === 409)) expectError(r, 409);
  });
});
