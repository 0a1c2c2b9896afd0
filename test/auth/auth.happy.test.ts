import { and, eq, isNull } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { contactEmails, persons, refreshTokens, roles, userRoles, users } from '../../src/db/schema/index.js';
import { api, probeRoutes, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser, PASSWORD } from '../helpers/factories.js';

const ctx = setupTestApp({}, probeRoutes);

const login = (slug: string, username = 'admin', password = PASSWORD) =>
  api(ctx.app).post('/api/auth/login', { username, password, churchName: slug });

async function lastMailTo(to: string) {
  // The mailer is not awaited by the request (the answer must not wait on SMTP).
  for (let i = 0; i < 50; i++) {
    const mail = [...ctx.mailer.sent].reverse().find((m) => m.to === to);
    if (mail) return mail;
    await new Promise((r) => setTimeout(r, 10));
  }
  return undefined;
}

describe('POST /api/auth/login', () => {
  it('returns tokens and the user with role names and permission keys', async () => {
    const t = await newTenant(ctx);
    const res = await login(t.slug);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['accessToken', 'expiresIn', 'refreshToken', 'user']);
    expect(body.expiresIn).toBe(900);
    expect(body.accessToken.split('.')).toHaveLength(3);
    expect(body.refreshToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(body.user).toMatchObject({ id: t.admin.id, username: 'admin', email: `admin@${t.slug}.example.org`, contactId: t.admin.contactId, roles: ['Admin'] });
    expect(body.user.permissions).toContain('contacts:read');
    expect(body.user.permissions).toContain('hierarchy:all');
    expect(Object.keys(body.user).sort()).toEqual(['contactId', 'email', 'id', 'permissions', 'roles', 'username']);
    // The access token works.
    const me = await api(ctx.app, body.accessToken).get('/api/test/whoami');
    expect(me.json()).toMatchObject({ userId: t.admin.id, tenantId: t.id });
    // The refresh token is stored only as a hash.
    const stored = await ctx.db.select().from(refreshTokens).where(eq(refreshTokens.userId, t.admin.id));
    expect(stored.some((r) => r.tokenHash === body.refreshToken)).toBe(false);
    expect(stored.length).toBeGreaterThan(0);
  });

  it('accepts the email instead of the username, and is case-insensitive on both and on the church', async () => {
    const t = await newTenant(ctx);
    expect((await login(t.slug, `ADMIN@${t.slug}.example.org`)).statusCode).toBe(200);
    expect((await login(t.slug.toUpperCase(), 'Admin')).statusCode).toBe(200);
  });

  it('records the last login time', async () => {
    const t = await newTenant(ctx);
    await login(t.slug);
    const [row] = await ctx.db.select({ at: users.lastLoginAt }).from(users).where(eq(users.id, t.admin.id));
    expect(row.at).toBeInstanceOf(Date);
  });

  it('a member sees only its own permissions', async () => {
    const t = await newTenant(ctx);
    const u = await newUser(ctx, t, 'Member');
    const body = (await login(t.slug, u.username)).json();
    expect(body.user.roles).toEqual(['Member']);
    expect(body.user.permissions.sort()).toEqual(['events:read', 'groups:read']);
  });
});

describe('POST /api/auth/refresh and logout', () => {
  it('rotates: a new refresh token, same shape as login, and the old one stops working', async () => {
    const t = await newTenant(ctx);
    const first = (await login(t.slug)).json();
    const res = await api(ctx.app).post('/api/auth/refresh', { refreshToken: first.refreshToken });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['accessToken', 'expiresIn', 'refreshToken', 'user']);
    expect(body.refreshToken).not.toBe(first.refreshToken);
    expect(body.user.id).toBe(t.admin.id);
    expect((await api(ctx.app, body.accessToken).get('/api/test/whoami')).statusCode).toBe(200);
    // The new one rotates in turn.
    expect((await api(ctx.app).post('/api/auth/refresh', { refreshToken: body.refreshToken })).statusCode).toBe(200);
  });

  it('logout → 204 and the family is revoked', async () => {
    const t = await newTenant(ctx);
    const first = (await login(t.slug)).json();
    const rotated = (await api(ctx.app).post('/api/auth/refresh', { refreshToken: first.refreshToken })).json();
    const res = await api(ctx.app).post('/api/auth/logout', { refreshToken: rotated.refreshToken });
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect((await api(ctx.app).post('/api/auth/refresh', { refreshToken: rotated.refreshToken })).statusCode).toBe(401);
    const live = await ctx.db.select().from(refreshTokens).where(and(eq(refreshTokens.userId, t.admin.id), isNull(refreshTokens.revokedAt)));
    expect(live).toEqual([]);
  });

  it('logout with an unknown token is still 204', async () => {
    expect((await api(ctx.app).post('/api/auth/logout', { refreshToken: 'unknown-token' })).statusCode).toBe(204);
  });
});

describe('forgot and reset password', () => {
  const message = 'If the account exists, a password reset link has been sent to its email address';

  it('identical 202 for known and unknown accounts; the known one gets a PUBLIC_URL link', async () => {
    const t = await newTenant(ctx);
    const email = `admin@${t.slug}.example.org`;
    const known = await api(ctx.app).post('/api/auth/forgot-password', { churchName: t.slug, username: 'admin' });
    const unknownUser = await api(ctx.app).post('/api/auth/forgot-password', { churchName: t.slug, username: 'nobody' });
    const unknownChurch = await api(ctx.app).post('/api/auth/forgot-password', { churchName: 'no-such-church', email });
    for (const res of [known, unknownUser, unknownChurch]) {
      expect(res.statusCode).toBe(202);
      expect(res.json()).toEqual({ message });
    }
    const mail = await lastMailTo(email);
    expect(mail?.text).toMatch(new RegExp(`${ctx.config.publicUrl.replace(/[.]/g, '\\.')}/reset-password/[A-Za-z0-9_-]{43}`));
    expect(ctx.config.publicUrl).toBe('https://parish.example.org');
  });

  it('reset by email works once, revokes refresh tokens, and the new password logs in', async () => {
    const t = await newTenant(ctx);
    const email = `admin@${t.slug}.example.org`;
    const session = (await login(t.slug)).json();
    await api(ctx.app).post('/api/auth/forgot-password', { churchName: t.slug, email });
    const token = (await lastMailTo(email))!.text.match(/reset-password\/([A-Za-z0-9_-]+)/)![1];
    const res = await api(ctx.app).put(`/api/auth/reset-password/${token}`, { password: 'a brand new password' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ message: expect.any(String) });
    expect((await api(ctx.app).post('/api/auth/refresh', { refreshToken: session.refreshToken })).statusCode).toBe(401);
    expect((await login(t.slug)).statusCode).toBe(401);
    expect((await login(t.slug, 'admin', 'a brand new password')).statusCode).toBe(200);
    const again = await api(ctx.app).put(`/api/auth/reset-password/${token}`, { password: 'yet another password' });
    expect(again.statusCode).toBe(400);
    expect(again.json().message).toBe('Invalid or expired reset token');
    expect((await login(t.slug, 'admin', 'a brand new password')).statusCode).toBe(200);
  });

  it('a password keeps its surrounding spaces', async () => {
    const t = await newTenant(ctx);
    const email = `admin@${t.slug}.example.org`;
    await api(ctx.app).post('/api/auth/forgot-password', { churchName: t.slug, username: 'admin' });
    const token = (await lastMailTo(email))!.text.match(/reset-password\/([A-Za-z0-9_-]+)/)![1];
    expect((await api(ctx.app).put(`/api/auth/reset-password/${token}`, { password: '  spaced out  ' })).statusCode).toBe(200);
    expect((await login(t.slug, 'admin', 'spaced out')).statusCode).toBe(401);
    expect((await login(t.slug, 'admin', '  spaced out  ')).statusCode).toBe(200);
  });
});

describe('POST /api/register', () => {
  it('creates a Member user linked to a new Person contact', async () => {
    const t = await newTenant(ctx);
    const res = await api(ctx.app).post('/api/register', {
      churchName: t.slug, username: 'newbie', email: 'newbie@example.org', password: 'long enough pw', firstName: ' Nora ', lastName: 'Newman', id: 99, roles: ['Admin'],
    });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).toEqual({ id: expect.any(Number), username: 'newbie', email: 'newbie@example.org', contactId: expect.any(Number), roles: ['Member'] });
    expect(body.id).not.toBe(99);
    const [person] = await ctx.db.select().from(persons).where(and(eq(persons.tenantId, t.id), eq(persons.contactId, body.contactId)));
    expect(person).toMatchObject({ firstName: 'Nora', lastName: 'Newman' });
    const emails = await ctx.db.select().from(contactEmails).where(and(eq(contactEmails.tenantId, t.id), eq(contactEmails.contactId, body.contactId)));
    expect(emails.map((e) => e.value)).toEqual(['newbie@example.org']);
    const roleNames = await ctx.db
      .select({ name: roles.name })
      .from(userRoles)
      .innerJoin(roles, and(eq(roles.tenantId, userRoles.tenantId), eq(roles.id, userRoles.roleId)))
      .where(and(eq(userRoles.tenantId, t.id), eq(userRoles.userId, body.id)));
    expect(roleNames).toEqual([{ name: 'Member' }]);
    const logged = await login(t.slug, 'newbie', 'long enough pw');
    expect(logged.statusCode).toBe(200);
    expect(logged.json().user.permissions.sort()).toEqual(['events:read', 'groups:read']);
  });
});
