import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { contactEmails, passwordResetTokens, persons, refreshTokens, users } from '../../src/db/schema/index.js';
import { api, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser, PASSWORD } from '../helpers/factories.js';
import { login, roleId } from '../helpers/users.factories.js';

const ctx = setupTestApp();

describe('GET /api/users', () => {
  it('lists the tenant\'s users with their roles, ordered by username', async () => {
    const t = await newTenant(ctx);
    const b = await newUser(ctx, t, 'Member', { username: 'bob', email: 'bob@example.org' });
    const a = await newUser(ctx, t, 'Leader', { username: 'Alice' });
    await newUser(ctx, await newTenant(ctx), 'Member', { username: 'other' });
    const res = await api(ctx.app, t.admin.token).get('/api/users');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ total: 3, page: 1, limit: 20 });
    expect(body.data.map((u: { username: string }) => u.username)).toEqual(['admin', 'Alice', 'bob']);
    expect(body.data[2]).toEqual({
      id: b.id, username: 'bob', email: 'bob@example.org', contactId: b.contactId, status: 'Active',
      roles: [{ id: await roleId(ctx, t, 'Member'), name: 'Member' }], lastLoginAt: null, invitationPending: false,
    });
    expect(body.data[1].id).toBe(a.id);
    expect(JSON.stringify(body)).not.toMatch(/password/i);
  });

  it('filters by q (username or email, case-insensitive), roleId and status', async () => {
    const t = await newTenant(ctx);
    const api1 = api(ctx.app, t.admin.token);
    const m = await newUser(ctx, t, 'Member', { username: 'maria_x', email: 'Maria@Example.org' });
    const l = await newUser(ctx, t, 'Leader', { username: 'leo' });
    const q1 = await api1.get('/api/users?q=MARIA');
    expect(q1.json().data.map((u: { id: number }) => u.id)).toEqual([m.id]);
    const q2 = await api1.get('/api/users?q=maria@EXAMPLE.org');
    expect(q2.json().data.map((u: { id: number }) => u.id)).toEqual([m.id]);
    // `_` is a literal character, not a wildcard
    expect((await api1.get('/api/users?q=a_x')).json().total).toBe(1);
    expect((await api1.get('/api/users?q=i_x')).json().total).toBe(0);
    expect((await api1.get('/api/users?q=%25')).json().total).toBe(0);
    const byRole = await api1.get(`/api/users?roleId=${await roleId(ctx, t, 'Leader')}`);
    expect(byRole.json()).toMatchObject({ total: 1, data: [{ id: l.id }] });
    await api1.put(`/api/users/${l.id}`, { status: 'Disabled' });
    const disabled = await api1.get('/api/users?status=Disabled');
    expect(disabled.json()).toMatchObject({ total: 1, data: [{ id: l.id, status: 'Disabled' }] });
    expect((await api1.get('/api/users?status=Active')).json().total).toBe(2);
  });

  it('paginates with a true total and clamps limit to 100', async () => {
    const t = await newTenant(ctx);
    for (let i = 0; i < 3; i++) await newUser(ctx, t, 'Member', { username: `p${i}` });
    const res = await api(ctx.app, t.admin.token).get('/api/users?page=2&limit=2');
    expect(res.json()).toMatchObject({ total: 4, page: 2, limit: 2 });
    expect(res.json().data.map((u: { username: string }) => u.username)).toEqual(['p1', 'p2']);
    const clamped = await api(ctx.app, t.admin.token).get('/api/users?limit=500');
    expect(clamped.json()).toMatchObject({ limit: 100, total: 4 });
    const past = await api(ctx.app, t.admin.token).get('/api/users?page=9');
    expect(past.json()).toEqual({ data: [], total: 4, page: 9, limit: 20 });
  });

  it('shows lastLoginAt as an ISO instant after a login', async () => {
    const t = await newTenant(ctx);
    await login(ctx, t, 'admin');
    const res = await api(ctx.app, t.admin.token).get(`/api/users/${t.admin.id}`);
    expect(res.json().lastLoginAt).toMatch(/^\d{4}-\d{2}-\d{2}T.*Z$/);
  });
});

describe('GET /api/users/:id', () => {
  it('returns the user with effective permissions', async () => {
    const t = await newTenant(ctx);
    const u = await newUser(ctx, t, ['contacts:read', 'users:read']);
    const res = await api(ctx.app, t.admin.token).get(`/api/users/${u.id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: u.id, username: u.username, status: 'Active', permissions: ['contacts:read', 'users:read'] });
    expect(res.json().roles).toHaveLength(1);
    expect(res.json()).not.toHaveProperty('passwordHash');
  });
});

describe('POST /api/users', () => {
  it('creates a user with a password and a new Person contact; the user can log in', async () => {
    const t = await newTenant(ctx);
    const memberId = await roleId(ctx, t, 'Member');
    const res = await api(ctx.app, t.admin.token).post('/api/users', {
      username: 'newbie', email: 'newbie@example.org', password: 'a good password', firstName: 'New', lastName: 'Bie', roleIds: [memberId], id: 99, status: 'Disabled',
    });
    expect(res.statusCode).toBe(201);
    const user = res.json();
    expect(user).toMatchObject({ username: 'newbie', email: 'newbie@example.org', status: 'Active', roles: [{ id: memberId, name: 'Member' }], permissions: ['events:read', 'groups:read'], lastLoginAt: null });
    expect(user.id).not.toBe(99);
    expect(JSON.stringify(user)).not.toMatch(/password/i);
    const [person] = await ctx.db.select().from(persons).where(and(eq(persons.tenantId, t.id), eq(persons.contactId, user.contactId)));
    expect(person).toMatchObject({ firstName: 'New', lastName: 'Bie' });
    const [email] = await ctx.db.select().from(contactEmails).where(and(eq(contactEmails.tenantId, t.id), eq(contactEmails.contactId, user.contactId)));
    expect(email.value).toBe('newbie@example.org');
    const [row] = await ctx.db.select().from(users).where(and(eq(users.tenantId, t.id), eq(users.id, user.id)));
    expect(row.passwordHash).toMatch(/^\$argon2id\$/);
    const loggedIn = await api(ctx.app).post('/api/auth/login', { username: 'NEWBIE', password: 'a good password', churchName: t.slug });
    expect(loggedIn.statusCode).toBe(200);
    expect(loggedIn.json().user.roles).toEqual(['Member']);
  });

  it('links an existing Person contact given by contactId', async () => {
    const t = await newTenant(ctx);
    const holder = await newUser(ctx, t, 'Member');
    // free the contact: delete the user that held it
    await api(ctx.app, t.admin.token).delete(`/api/users/${holder.id}`);
    const res = await api(ctx.app, t.admin.token).post('/api/users', { username: 'linked', password: PASSWORD, contactId: holder.contactId });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ contactId: holder.contactId, email: null, roles: [], permissions: [] });
  });

  it('invites by email: a set-password link that works through reset-password', async () => {
    const t = await newTenant(ctx);
    const before = ctx.mailer.sent.length;
    const res = await api(ctx.app, t.admin.token).post('/api/users', { username: 'invited', email: 'inv@example.org', invite: true, firstName: 'In', lastName: 'Vited' });
    expect(res.statusCode).toBe(201);
    const mails = ctx.mailer.sent.slice(before);
    expect(mails).toHaveLength(1);
    expect(mails[0].to).toBe('inv@example.org');
    expect(mails[0].text).toContain(t.slug);
    expect(mails[0].text).toContain('invited');
    const token = /https:\/\/parish\.example\.org\/reset-password\/([A-Za-z0-9_-]+)/.exec(mails[0].text)?.[1];
    expect(token).toBeTruthy();
    const [reset] = await ctx.db.select().from(passwordResetTokens).where(and(eq(passwordResetTokens.tenantId, t.id), eq(passwordResetTokens.userId, res.json().id)));
    expect(reset.expiresAt.getTime()).toBeGreaterThan(Date.now() + 6 * 24 * 3600 * 1000);
    expect(reset.tokenHash).not.toBe(token);
    // no password yet: login fails
    expect((await api(ctx.app).post('/api/auth/login', { username: 'invited', password: 'whatever1', churchName: t.slug })).statusCode).toBe(401);
    const set = await api(ctx.app).put(`/api/auth/reset-password/${token}`, { password: 'my own password' });
    expect(set.statusCode).toBe(200);
    const ok = await api(ctx.app).post('/api/auth/login', { username: 'invited', password: 'my own password', churchName: t.slug });
    expect(ok.statusCode).toBe(200);
  });

  it('sends an invitation again while it is pending (POST /api/users/:id/invitation), and not once a password is chosen', async () => {
    const t = await newTenant(ctx);
    const res = await api(ctx.app, t.admin.token).post('/api/users', { username: 'again', email: 'again@example.org', invite: true, firstName: 'A', lastName: 'Gain' });
    const id = res.json().id;
    expect(res.json().invitationPending).toBe(true);
    const listed = (await api(ctx.app, t.admin.token).get('/api/users?q=again')).json().data[0];
    expect(listed).toMatchObject({ id, invitationPending: true });
    const before = ctx.mailer.sent.length;
    const again = await api(ctx.app, t.admin.token).post(`/api/users/${id}/invitation`, {});
    expect(again.statusCode).toBe(202);
    expect(again.json()).toEqual({ message: 'Invitation sent to again@example.org' });
    const mails = ctx.mailer.sent.slice(before);
    expect(mails).toHaveLength(1);
    expect(mails[0].to).toBe('again@example.org');
    const token = /reset-password\/([A-Za-z0-9_-]+)/.exec(mails[0].text)?.[1];
    expect((await api(ctx.app).put(`/api/auth/reset-password/${token}`, { password: 'chosen at last' })).statusCode).toBe(200);
    expect((await api(ctx.app, t.admin.token).get(`/api/users/${id}`)).json().invitationPending).toBe(false);
    const late = await api(ctx.app, t.admin.token).post(`/api/users/${id}/invitation`, {});
    expect(late.statusCode).toBe(409);
    expect(late.json().message).toMatch(/already chosen a password/);
    expect((await api(ctx.app, t.admin.token).post('/api/users/999999/invitation', {})).statusCode).toBe(404);
    const member = await newUser(ctx, t, 'Member');
    expect((await api(ctx.app, member.token).post(`/api/users/${id}/invitation`, {})).statusCode).toBe(403);
  });
});

describe('PUT /api/users/:id', () => {
  it('updates email, contact, status and roles', async () => {
    const t = await newTenant(ctx);
    const u = await newUser(ctx, t, 'Member');
    const other = await newUser(ctx, t, 'Member');
    await api(ctx.app, t.admin.token).delete(`/api/users/${other.id}`);
    const leaderId = await roleId(ctx, t, 'Leader');
    const res = await api(ctx.app, t.admin.token).put(`/api/users/${u.id}`, { email: 'Changed@Example.org', contactId: other.contactId, roleIds: [leaderId], username: 'ignored' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: u.id, username: u.username, email: 'Changed@Example.org', contactId: other.contactId, roles: [{ id: leaderId, name: 'Leader' }] });
    expect(res.json().permissions).toContain('contacts:write');
    // the new permissions apply on the user's next request
    expect((await api(ctx.app, u.token).get('/api/users/me')).json().permissions).toContain('contacts:write');
    const cleared = await api(ctx.app, t.admin.token).put(`/api/users/${u.id}`, { email: null, roleIds: [] });
    expect(cleared.json()).toMatchObject({ email: null, roles: [], permissions: [] });
  });

  it('accepts back what it read (output-only fields ignored)', async () => {
    const t = await newTenant(ctx);
    const u = await newUser(ctx, t, 'Member');
    const read = (await api(ctx.app, t.admin.token).get(`/api/users/${u.id}`)).json();
    const res = await api(ctx.app, t.admin.token).put(`/api/users/${u.id}`, read);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(read);
    // also for the caller's own record: status and roles unchanged is not a change
    const me = (await api(ctx.app, t.admin.token).get(`/api/users/${t.admin.id}`)).json();
    const self = await api(ctx.app, t.admin.token).put(`/api/users/${t.admin.id}`, { ...me, roleIds: me.roles.map((r: { id: number }) => r.id) });
    expect(self.statusCode).toBe(200);
  });

  it('disabling revokes refresh tokens and the old access token stops working; enabling restores access', async () => {
    const t = await newTenant(ctx);
    const u = await newUser(ctx, t, 'Member');
    const session = await login(ctx, t, u.username);
    expect((await api(ctx.app, session.accessToken).get('/api/users/me')).statusCode).toBe(200);
    const res = await api(ctx.app, t.admin.token).put(`/api/users/${u.id}`, { status: 'Disabled' });
    expect(res.json().status).toBe('Disabled');
    expect((await api(ctx.app, session.accessToken).get('/api/users/me')).statusCode).toBe(401);
    expect((await api(ctx.app).post('/api/auth/refresh', { refreshToken: session.refreshToken })).statusCode).toBe(401);
    const tokens = await ctx.db.select().from(refreshTokens).where(and(eq(refreshTokens.tenantId, t.id), eq(refreshTokens.userId, u.id)));
    expect(tokens.every((r) => r.revokedAt !== null)).toBe(true);
    expect((await api(ctx.app).post('/api/auth/login', { username: u.username, password: PASSWORD, churchName: t.slug })).statusCode).toBe(401);
    await api(ctx.app, t.admin.token).put(`/api/users/${u.id}`, { status: 'Active' });
    expect((await api(ctx.app, session.accessToken).get('/api/users/me')).statusCode).toBe(200);
  });
});

describe('DELETE /api/users/:id', () => {
  it('deletes the user; its tokens stop working and its contact stays', async () => {
    const t = await newTenant(ctx);
    const u = await newUser(ctx, t, 'Member');
    const session = await login(ctx, t, u.username);
    const res = await api(ctx.app, t.admin.token).delete(`/api/users/${u.id}`);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect((await api(ctx.app, t.admin.token).get(`/api/users/${u.id}`)).statusCode).toBe(404);
    expect((await api(ctx.app, session.accessToken).get('/api/users/me')).statusCode).toBe(401);
    expect((await api(ctx.app).post('/api/auth/refresh', { refreshToken: session.refreshToken })).statusCode).toBe(401);
    const [person] = await ctx.db.select().from(persons).where(and(eq(persons.tenantId, t.id), eq(persons.contactId, u.contactId)));
    expect(person).toBeDefined();
  });
});

describe('POST /api/users invitation mail failure', () => {
  it('still creates the user when the mail server fails', async () => {
    const t = await newTenant(ctx);
    const send = ctx.mailer.send;
    ctx.mailer.send = async () => {
      throw new Error('smtp down');
    };
    try {
      const res = await api(ctx.app, t.admin.token).post('/api/users', { username: 'late', email: 'late@example.org', invite: true, firstName: 'L', lastName: 'Ate' });
      expect(res.statusCode).toBe(201);
    } finally {
      ctx.mailer.send = send;
    }
  });
});
