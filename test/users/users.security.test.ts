import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { withTenant } from '../../src/db/client.js';
import { users } from '../../src/db/schema/index.js';
import { insertPersonContact } from '../../src/modules/contacts/contacts.repository.js';
import { buildApp } from '../../src/app.js';
import { MemoryMailer } from '../../src/lib/mailer.js';
import { api, expectError, setupTestApp, testConfig } from '../helpers/app.js';
import { newTenant, newUser, PASSWORD } from '../helpers/factories.js';
import { addMembership, newTree } from '../helpers/groups.factories.js';
import { login, roleId } from '../helpers/users.factories.js';

const ctx = setupTestApp();

const newBody = { username: 'someone', password: PASSWORD, firstName: 'Some', lastName: 'One' };
const MANAGER: ('users:read' | 'users:write' | 'groups:read' | 'events:read')[] = ['users:read', 'users:write', 'groups:read', 'events:read'];

async function statusOf(tenantId: number, userId: number) {
  const [row] = await ctx.db.select({ status: users.status }).from(users).where(and(eq(users.tenantId, tenantId), eq(users.id, userId)));
  return row?.status;
}

describe('/api/users authentication and permissions', () => {
  it('every route needs a token', async () => {
    const a = api(ctx.app);
    expectError(await a.get('/api/users'), 401);
    expectError(await a.post('/api/users', newBody), 401);
    expectError(await a.get('/api/users/1'), 401);
    expectError(await a.put('/api/users/1', { status: 'Disabled' }), 401);
    expectError(await a.delete('/api/users/1'), 401);
    // authentication comes before validation
    expectError(await a.get('/api/users/abc'), 401);
  });

  it('reads need users:read and writes users:write', async () => {
    const t = await newTenant(ctx);
    const none = await newUser(ctx, t, ['contacts:read']);
    const reader = await newUser(ctx, t, ['users:read']);
    expect(expectError(await api(ctx.app, none.token).get('/api/users'), 403)).toBe('Missing permission users:read');
    expectError(await api(ctx.app, none.token).get(`/api/users/${reader.id}`), 403);
    const r = api(ctx.app, reader.token);
    expect((await r.get('/api/users')).statusCode).toBe(200);
    expect((await r.get(`/api/users/${none.id}`)).statusCode).toBe(200);
    expect(expectError(await r.post('/api/users', newBody), 403)).toBe('Missing permission users:write');
    expectError(await r.put(`/api/users/${none.id}`, { status: 'Disabled' }), 403);
    expectError(await r.delete(`/api/users/${none.id}`), 403);
    expect(await statusOf(t.id, none.id)).toBe('Active');
  });
});

describe('tenant isolation', () => {
  it('another tenant\'s users are 404 in paths and invisible in lists', async () => {
    const t = await newTenant(ctx);
    const other = await newTenant(ctx);
    const foreign = await newUser(ctx, other, 'Member');
    const a = api(ctx.app, t.admin.token);
    expect(expectError(await a.get(`/api/users/${foreign.id}`), 404)).toBe(`User with id ${foreign.id} not found`);
    expectError(await a.put(`/api/users/${foreign.id}`, { status: 'Disabled' }), 404);
    expectError(await a.delete(`/api/users/${foreign.id}`), 404);
    expect(await statusOf(other.id, foreign.id)).toBe('Active');
    const list = (await a.get('/api/users')).json();
    expect(list.data.map((u: { id: number }) => u.id)).toEqual([t.admin.id]);
  });

  it('another tenant\'s roleIds and contactId in bodies are 404; as a filter they match nothing', async () => {
    const t = await newTenant(ctx);
    const other = await newTenant(ctx);
    const foreignRole = await roleId(ctx, other, 'Member');
    const u = await newUser(ctx, t, 'Member');
    const a = api(ctx.app, t.admin.token);
    expect(expectError(await a.post('/api/users', { ...newBody, roleIds: [foreignRole] }), 404)).toBe(`Role with id ${foreignRole} not found`);
    expect(expectError(await a.post('/api/users', { ...newBody, contactId: other.admin.contactId }), 404)).toBe(`Contact with id ${other.admin.contactId} not found`);
    expectError(await a.put(`/api/users/${u.id}`, { roleIds: [foreignRole] }), 404);
    expectError(await a.put(`/api/users/${u.id}`, { contactId: other.admin.contactId }), 404);
    expect((await a.get(`/api/users?roleId=${foreignRole}`)).json()).toMatchObject({ data: [], total: 0 });
  });
});

describe('no privilege escalation', () => {
  it('a manager cannot grant a role holding permissions it lacks (Admin, Leader), but can grant Member', async () => {
    const t = await newTenant(ctx);
    const manager = await newUser(ctx, t, MANAGER);
    const target = await newUser(ctx, t, []);
    const m = api(ctx.app, manager.token);
    const admin = await roleId(ctx, t, 'Admin');
    const msg = expectError(await m.post('/api/users', { ...newBody, roleIds: [admin] }), 403);
    expect(msg).toMatch(/^You cannot grant role Admin: it has permissions you do not hold \(.*roles:write/);
    expectError(await m.put(`/api/users/${target.id}`, { roleIds: [await roleId(ctx, t, 'Leader')] }), 403);
    expect((await api(ctx.app, target.token).get('/api/users/me')).json().permissions).toEqual([]);
    const ok = await m.put(`/api/users/${target.id}`, { roleIds: [await roleId(ctx, t, 'Member')] });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().roles.map((r: { name: string }) => r.name)).toEqual(['Member']);
  });

  it('a manager cannot manage an account that holds more than itself (no email takeover of an admin)', async () => {
    const t = await newTenant(ctx);
    const manager = await newUser(ctx, t, MANAGER);
    const m = api(ctx.app, manager.token);
    expect(expectError(await m.put(`/api/users/${t.admin.id}`, { email: 'mine@example.org' }), 403)).toMatch(/^You cannot manage user admin/);
    expectError(await m.put(`/api/users/${t.admin.id}`, { status: 'Disabled' }), 403);
    expectError(await m.put(`/api/users/${t.admin.id}`, { roleIds: [] }), 403);
    expectError(await m.delete(`/api/users/${t.admin.id}`), 403);
    const [row] = await ctx.db.select().from(users).where(and(eq(users.tenantId, t.id), eq(users.id, t.admin.id)));
    expect(row).toMatchObject({ status: 'Active', email: `admin@${t.slug}.example.org` });
  });

  it('nobody changes its own roles or status, or deletes itself', async () => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    const member = await roleId(ctx, t, 'Member');
    expect(expectError(await a.put(`/api/users/${t.admin.id}`, { roleIds: [member] }), 403)).toBe('You cannot change your own roles or status');
    expect(expectError(await a.put(`/api/users/${t.admin.id}`, { status: 'Disabled' }), 403)).toBe('You cannot change your own roles or status');
    expect(expectError(await a.delete(`/api/users/${t.admin.id}`), 403)).toBe('You cannot delete your own account');
    const me = (await a.get('/api/users/me')).json();
    expect(me).toMatchObject({ status: 'Active', roles: [{ name: 'Admin' }] });
    // a manager with users:write cannot raise itself either
    const manager = await newUser(ctx, t, MANAGER);
    expectError(await api(ctx.app, manager.token).put(`/api/users/${manager.id}`, { roleIds: [await roleId(ctx, t, 'Admin')] }), 403);
    // its own email is fine
    expect((await api(ctx.app, manager.token).put(`/api/users/${manager.id}`, { email: 'me@example.org' })).statusCode).toBe(200);
  });

  it('two admins disabling each other at once: the last one holding roles:write stays (409)', async () => {
    const t = await newTenant(ctx);
    const second = await newUser(ctx, t, 'Admin');
    const [r1, r2] = await Promise.all([
      api(ctx.app, t.admin.token).put(`/api/users/${second.id}`, { status: 'Disabled' }),
      api(ctx.app, second.token).put(`/api/users/${t.admin.id}`, { status: 'Disabled' }),
    ]);
    const codes = [r1.statusCode, r2.statusCode].sort();
    expect(codes[0]).toBe(200);
    // the loser is either refused by the guard, or (if the winner committed before its request was
    // authenticated) already disabled
    expect([401, 409]).toContain(codes[1]);
    if (codes[1] === 409) expect(expectError(r1.statusCode === 409 ? r1 : r2, 409)).toMatch(/last active user holding roles:write/);
    const statuses = [await statusOf(t.id, t.admin.id), await statusOf(t.id, second.id)].sort();
    expect(statuses).toEqual(['Active', 'Disabled']);
  });

  it('two admins deleting each other at once: one admin remains', async () => {
    const t = await newTenant(ctx);
    const second = await newUser(ctx, t, 'Admin');
    await Promise.all([
      api(ctx.app, t.admin.token).delete(`/api/users/${second.id}`),
      api(ctx.app, second.token).delete(`/api/users/${t.admin.id}`),
    ]);
    const left = [await statusOf(t.id, t.admin.id), await statusOf(t.id, second.id)].filter(Boolean);
    expect(left).toEqual(['Active']);
  });

  it('a disabled user\'s access and refresh tokens stop working', async () => {
    const t = await newTenant(ctx);
    const u = await newUser(ctx, t, ['users:read']);
    const session = await login(ctx, t, u.username);
    await api(ctx.app, t.admin.token).put(`/api/users/${u.id}`, { status: 'Disabled' });
    expectError(await api(ctx.app, session.accessToken).get('/api/users'), 401);
    expectError(await api(ctx.app, u.token).get('/api/users'), 401);
    expectError(await api(ctx.app).post('/api/auth/refresh', { refreshToken: session.refreshToken }), 401);
  });

  it('passwords are never returned', async () => {
    const t = await newTenant(ctx);
    const res = await api(ctx.app, t.admin.token).post('/api/users', { ...newBody, password: 'visible secret 123' });
    expect(res.body).not.toContain('visible secret 123');
    expect(res.body).not.toMatch(/argon2|password/i);
    const list = await api(ctx.app, t.admin.token).get('/api/users');
    expect(list.body).not.toMatch(/argon2|password/i);
  });

  it('a manager cannot link a contact that leads groups outside its own led subtrees', async () => {
    const t = await newTenant(ctx);
    const tree = await newTree(ctx, t);
    const manager = await newUser(ctx, t, MANAGER);
    await addMembership(ctx, t, tree.zoneA, manager.contactId, 'Leader');
    const contact = (first: string) => withTenant(ctx.db, t.id, (tx) => insertPersonContact(tx, t.id, { firstName: first, lastName: 'Contact' }));
    const pastor = await contact('Pastor');
    await addMembership(ctx, t, tree.church, pastor, 'Leader');
    const cellLeader = await contact('Cell');
    await addMembership(ctx, t, tree.fellowshipA1, cellLeader, 'Assistant');
    const plain = await contact('Plain');
    await addMembership(ctx, t, tree.zoneB, plain, 'Member');
    const m = api(ctx.app, manager.token);
    const msg = expectError(await m.post('/api/users', { ...newBody, contactId: pastor }), 403);
    expect(msg).toBe(`You cannot link contact ${pastor}: it leads groups outside the part of the hierarchy you lead`);
    expectError(await m.put(`/api/users/${manager.id}`, { contactId: pastor }), 403);
    const target = await newUser(ctx, t, []);
    expectError(await m.put(`/api/users/${target.id}`, { contactId: pastor }), 403);
    expect((await m.post('/api/users', { ...newBody, username: 'cell', contactId: cellLeader })).statusCode).toBe(201);
    expect((await m.post('/api/users', { ...newBody, username: 'plain', contactId: plain })).statusCode).toBe(201);
    // with hierarchy:all anything goes
    expect((await api(ctx.app, t.admin.token).post('/api/users', { ...newBody, username: 'pastor', contactId: pastor })).statusCode).toBe(201);
  });

  it('passwords never reach the log, even at trace level', async () => {
    const lines: string[] = [];
    const app = await buildApp({ config: testConfig(), db: ctx.db, mailer: new MemoryMailer(), logger: { level: 'trace', stream: { write: (l: string) => void lines.push(l) } } });
    await app.ready();
    try {
      const t = await newTenant(ctx);
      const token = app.jwt.sign({ sub: String(t.admin.id), tid: t.id, sid: 's', typ: 'access' });
      expect((await api(app, token).post('/api/users', { ...newBody, password: 'first-secret-value' })).statusCode).toBe(201);
      expect((await api(app, token).post('/api/users', { ...newBody, username: 'x y', password: 'second-secret-value' })).statusCode).toBe(400);
      expect((await api(app, token).put('/api/users/me/password', { currentPassword: 'third-secret-value', newPassword: 'fourth-secret-value' })).statusCode).toBe(400);
      expect((await api(app, token).put('/api/users/me/password', { currentPassword: PASSWORD, newPassword: 'fifth-secret-value' })).statusCode).toBe(204);
      expect(lines.length).toBeGreaterThan(0);
      expect(lines.join('\n')).not.toMatch(/secret-value|correct horse/);
    } finally {
      await app.close();
    }
  });
});
