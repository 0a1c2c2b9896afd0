import crypto from 'node:crypto';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { users } from '../../src/db/schema/index.js';
import { api, expectError, probeRoutes, setupTestApp, TEST_SECRET } from '../helpers/app.js';
import { newTenant, newUser, PASSWORD } from '../helpers/factories.js';

const ctx = setupTestApp({}, probeRoutes);

const b64 = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

/** A JWT crafted by hand, so every kind of bad token can be made. */
function craft(header: Record<string, unknown>, claims: Record<string, unknown>, opts: { secret?: string; hash?: string; signature?: string } = {}) {
  const head = `${b64(header)}.${b64(claims)}`;
  const signature = opts.signature ?? crypto.createHmac(opts.hash ?? 'sha256', opts.secret ?? TEST_SECRET).update(head).digest('base64url');
  return `${head}.${signature}`;
}

function claimsFor(tenantId: number, userId: number, extra: Record<string, unknown> = {}) {
  const now = Math.floor(Date.now() / 1000);
  return { sub: String(userId), tid: tenantId, sid: crypto.randomUUID(), typ: 'access', iss: 'parish', aud: 'parish-api', iat: now, exp: now + 600, ...extra };
}

async function expect401(token: string) {
  const res = await api(ctx.app, token).get('/api/test/whoami');
  expectError(res, 401);
  return res;
}

describe('access tokens', () => {
  it('a correctly crafted token is accepted (the crafting itself is right)', async () => {
    const t = await newTenant(ctx);
    const res = await api(ctx.app, craft({ alg: 'HS256', typ: 'JWT' }, claimsFor(t.id, t.admin.id))).get('/api/test/whoami');
    expect(res.statusCode).toBe(200);
    expect(res.json().userId).toBe(t.admin.id);
  });

  it('no token, an empty bearer, a non-bearer scheme and garbage are 401', async () => {
    expect(expectError(await api(ctx.app).get('/api/test/whoami'), 401)).toBe('Missing bearer token');
    for (const authorization of ['Bearer ', 'Bearer', 'Basic YWRtaW46eA==', 'Bearer not.a.jwt', 'Bearer a.b', 'Bearer ' + 'x'.repeat(10_000)]) {
      const res = await ctx.app.inject({ method: 'GET', url: '/api/test/whoami', headers: { authorization } });
      expectError(res, 401);
    }
  });

  it('expired, tampered, alg none, HS512, missing claims, wrong typ, wrong iss/aud → 401', async () => {
    const t = await newTenant(ctx);
    const now = Math.floor(Date.now() / 1000);
    const base = claimsFor(t.id, t.admin.id);
    const good = craft({ alg: 'HS256', typ: 'JWT' }, base);
    const [h, p, s] = good.split('.');
    const cases: Record<string, string> = {
      expired: craft({ alg: 'HS256', typ: 'JWT' }, { ...base, iat: now - 3600, exp: now - 600 }),
      tamperedPayload: `${h}.${b64({ ...base, tid: t.id + 1 })}.${s}`,
      tamperedSignature: `${h}.${p}.${s.slice(0, -2)}${s.endsWith('AA') ? 'BB' : 'AA'}`,
      algNone: `${b64({ alg: 'none', typ: 'JWT' })}.${p}.`,
      algNoneSigned: craft({ alg: 'none', typ: 'JWT' }, base),
      hs512: craft({ alg: 'HS512', typ: 'JWT' }, base, { hash: 'sha512' }),
      hs384: craft({ alg: 'HS384', typ: 'JWT' }, base, { hash: 'sha384' }),
      otherSecret: craft({ alg: 'HS256', typ: 'JWT' }, base, { secret: 'another-secret-another-secret-another' }),
      noExp: craft({ alg: 'HS256', typ: 'JWT' }, { ...base, exp: undefined }),
      noTyp: craft({ alg: 'HS256', typ: 'JWT' }, { ...base, typ: undefined }),
      typRefresh: craft({ alg: 'HS256', typ: 'JWT' }, { ...base, typ: 'refresh' }),
      noSid: craft({ alg: 'HS256', typ: 'JWT' }, { ...base, sid: undefined }),
      noTid: craft({ alg: 'HS256', typ: 'JWT' }, { ...base, tid: undefined }),
      tidString: craft({ alg: 'HS256', typ: 'JWT' }, { ...base, tid: String(t.id) }),
      tidHuge: craft({ alg: 'HS256', typ: 'JWT' }, { ...base, tid: 1e30 }),
      tidObject: craft({ alg: 'HS256', typ: 'JWT' }, { ...base, tid: { $ne: 0 } }),
      subAbc: craft({ alg: 'HS256', typ: 'JWT' }, { ...base, sub: 'abc' }),
      subHuge: craft({ alg: 'HS256', typ: 'JWT' }, { ...base, sub: '99999999999999999999' }),
      subOtherTenant: craft({ alg: 'HS256', typ: 'JWT' }, { ...base, tid: t.id + 100000 }),
      wrongIss: craft({ alg: 'HS256', typ: 'JWT' }, { ...base, iss: 'evil' }),
      wrongAud: craft({ alg: 'HS256', typ: 'JWT' }, { ...base, aud: 'other' }),
      noIat: craft({ alg: 'HS256', typ: 'JWT' }, { ...base, iat: undefined }),
      notYetValid: craft({ alg: 'HS256', typ: 'JWT' }, { ...base, nbf: now + 3600 }),
      badHeaderJson: `${b64('{not json')}.${p}.${s}`,
      payloadNotObject: craft({ alg: 'HS256', typ: 'JWT' }, 'x' as never),
    };
    for (const [name, token] of Object.entries(cases)) {
      const res = await api(ctx.app, token).get('/api/test/whoami');
      expect(res.statusCode, `${name}: ${res.body}`).toBe(401);
      expectError(res, 401);
    }
  });

  it('a refresh token used as an access token is 401', async () => {
    const t = await newTenant(ctx);
    const login = await api(ctx.app).post('/api/auth/login', { username: 'admin', password: PASSWORD, churchName: t.slug });
    expect(login.statusCode).toBe(200);
    await expect401(login.json().refreshToken);
    // The access token itself works.
    expect((await api(ctx.app, login.json().accessToken).get('/api/test/whoami')).statusCode).toBe(200);
  });

  it('a disabled user is refused on the next request and cannot refresh or log in', async () => {
    const t = await newTenant(ctx);
    const u = await newUser(ctx, t, 'Member');
    const login = await api(ctx.app).post('/api/auth/login', { username: u.username, password: PASSWORD, churchName: t.slug });
    expect(login.statusCode).toBe(200);
    const { accessToken, refreshToken } = login.json();
    expect((await api(ctx.app, accessToken).get('/api/test/whoami')).statusCode).toBe(200);
    await ctx.db.update(users).set({ status: 'Disabled' }).where(eq(users.id, u.id));
    expect(expectError(await api(ctx.app, accessToken).get('/api/test/whoami'), 401)).toBe('Invalid or expired token');
    expectError(await api(ctx.app).post('/api/auth/refresh', { refreshToken }), 401);
    expect(expectError(await api(ctx.app).post('/api/auth/login', { username: u.username, password: PASSWORD, churchName: t.slug }), 401)).toBe('Invalid credentials');
    // Re-enabling does not bring the refused session back: the family was revoked.
    await ctx.db.update(users).set({ status: 'Active' }).where(eq(users.id, u.id));
    expectError(await api(ctx.app).post('/api/auth/refresh', { refreshToken }), 401);
  });

  it('a token of a tenant A user cannot be replayed with tenant B id', async () => {
    const a = await newTenant(ctx);
    const b = await newTenant(ctx);
    // Same user id number does not exist in B (ids are global identities), so the lookup fails → 401.
    await expect401(craft({ alg: 'HS256', typ: 'JWT' }, claimsFor(b.id, a.admin.id + 1_000_000)));
  });

  it('the token is checked before the route: bad input behind a bad token is 401, not 400/404', async () => {
    expectError(await api(ctx.app, 'garbage').get('/api/test/contacts-reader?x=abc'), 401);
    expectError(await api(ctx.app).post('/api/test/echo', { nonsense: true }), 401);
    // Permission is checked before validation too: a member with a bad body is 403.
    const t = await newTenant(ctx);
    const member = await newUser(ctx, t, 'Member');
    expect(expectError(await api(ctx.app, member.token).post('/api/test/echo', { nonsense: true }), 403)).toBe('Missing permission contacts:write');
    expectError(await api(ctx.app, member.token).get('/api/test/contacts-reader'), 403);
    const writer = await newUser(ctx, t, ['contacts:write']);
    expect(expectError(await api(ctx.app, writer.token).post('/api/test/echo', { nonsense: true }), 400)).toBe('body/name is required');
    const ok = await api(ctx.app, writer.token).post('/api/test/echo', { name: '  Ann  ', extra: 1 });
    expect(ok.json()).toEqual({ name: 'Ann' });
  });
});

describe('refresh token security', () => {
  it('reuse of a rotated token → 401 and the whole family is revoked', async () => {
    const t = await newTenant(ctx);
    const login = await api(ctx.app).post('/api/auth/login', { username: 'admin', password: PASSWORD, churchName: t.slug });
    const first = login.json().refreshToken;
    const rotated = await api(ctx.app).post('/api/auth/refresh', { refreshToken: first });
    expect(rotated.statusCode).toBe(200);
    const second = rotated.json().refreshToken;
    expect(second).not.toBe(first);
    // The stolen (already used) token is replayed: refused, and the legitimate new token dies with it.
    expect(expectError(await api(ctx.app).post('/api/auth/refresh', { refreshToken: first }), 401)).toBe('Invalid or expired refresh token');
    expectError(await api(ctx.app).post('/api/auth/refresh', { refreshToken: second }), 401);
  });

  it('another login session (family) survives the revocation', async () => {
    const t = await newTenant(ctx);
    const body = { username: 'admin', password: PASSWORD, churchName: t.slug };
    const s1 = (await api(ctx.app).post('/api/auth/login', body)).json().refreshToken;
    const s2 = (await api(ctx.app).post('/api/auth/login', body)).json().refreshToken;
    await api(ctx.app).post('/api/auth/refresh', { refreshToken: s1 });
    await api(ctx.app).post('/api/auth/refresh', { refreshToken: s1 });
    expect((await api(ctx.app).post('/api/auth/refresh', { refreshToken: s2 })).statusCode).toBe(200);
  });

  it('an access token is not a refresh token', async () => {
    const t = await newTenant(ctx);
    expectError(await api(ctx.app).post('/api/auth/refresh', { refreshToken: t.admin.token }), 401);
  });

  it('concurrent use of one refresh token yields at most one new token', async () => {
    const t = await newTenant(ctx);
    const refreshToken = (await api(ctx.app).post('/api/auth/login', { username: 'admin', password: PASSWORD, churchName: t.slug })).json().refreshToken;
    const results = await Promise.all([1, 2, 3].map(() => api(ctx.app).post('/api/auth/refresh', { refreshToken })));
    expect(results.filter((r) => r.statusCode === 200).length).toBeLessThanOrEqual(1);
    for (const r of results) expect([200, 401]).toContain(r.statusCode);
  });
});

describe('passwords and reset links', () => {
  it('the reset link uses PUBLIC_URL, never the Host header', async () => {
    const t = await newTenant(ctx);
    const before = ctx.mailer.sent.length;
    const res = await ctx.app.inject({
      method: 'POST', url: '/api/auth/forgot-password',
      headers: { host: 'evil.example.com', 'x-forwarded-host': 'evil.example.com' },
      payload: { churchName: t.slug, username: 'admin' },
    });
    expect(res.statusCode).toBe(202);
    await new Promise((r) => setTimeout(r, 20));
    const mail = ctx.mailer.sent.slice(before).find((m) => m.to === `admin@${t.slug}.example.org`);
    expect(mail?.text).toContain(`${ctx.config.publicUrl}/reset-password/`);
    expect(mail?.text).not.toContain('evil');
  });

  it('passwords are stored as argon2id hashes', async () => {
    const t = await newTenant(ctx);
    const [row] = await ctx.db.select({ hash: users.passwordHash }).from(users).where(eq(users.id, t.admin.id));
    expect(row.hash).toMatch(/^\$argon2id\$/);
    expect(row.hash).not.toContain(PASSWORD);
  });
});

describe('the transaction a read begins with its principal check (PostgreSQL)', () => {
  it('is let go however the request ends: unused by the handler, refused, invalid, a disabled user', async () => {
    const t = await newTenant(ctx);
    const reader = await newUser(ctx, t, ['contacts:read']);
    const nobody = await newUser(ctx, t, []);
    const disabled = await newUser(ctx, t, ['contacts:read']);
    await ctx.db.update(users).set({ status: 'Disabled' }).where(eq(users.id, disabled.id));
    // The test pool has 5 connections: one kept per request would hang every request after the fifth.
    for (let i = 0; i < 8; i++) {
      expect((await api(ctx.app, reader.token).get('/api/test/whoami')).statusCode).toBe(200);
      expectError(await api(ctx.app, nobody.token).get('/api/test/contacts-reader'), 403);
      expectError(await api(ctx.app, disabled.token).get('/api/test/contacts-reader'), 401);
      expectError(await api(ctx.app, reader.token).get('/api/crm/contacts?limit=abc'), 400);
      expect((await api(ctx.app, reader.token).get('/api/crm/contacts')).statusCode).toBe(200);
    }
  }, 30_000);
});
