import { and, count, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { withTenant } from '../../src/db/client.js';
import { contacts, userRoles, users } from '../../src/db/schema/index.js';
import { api, expectError, setupTestApp, type TestContext } from '../helpers/app.js';
import { newTenant, newUser, PASSWORD, type TestTenant } from '../helpers/factories.js';
import { roleId } from '../helpers/users.factories.js';

const ctx = setupTestApp();

const BAD_IDS = ['abc', '1.5', '-1', '0', '99999999999999999999'];

async function userCount(t: TestTenant) {
  const [{ n }] = await ctx.db.select({ n: count() }).from(users).where(eq(users.tenantId, t.id));
  return n;
}

async function newCompany(c: TestContext, t: TestTenant) {
  const [row] = await withTenant(c.db, t.id, (tx) => tx.insert(contacts).values({ tenantId: t.id, category: 'Company' }).returning({ id: contacts.id }));
  return row.id;
}

const valid = { username: 'valid-user', password: PASSWORD, firstName: 'Val', lastName: 'Id' };

describe('GET /api/users errors', () => {
  it('rejects malformed filters and paging with 400 naming the field', async () => {
    const t = await newTenant(ctx);
    const get = async (qs: string) => expectError(await api(ctx.app, t.admin.token).get(`/api/users?${qs}`), 400);
    expect(await get('status=Gone')).toMatch(/^querystring\/status must be one of/);
    expect(await get('roleId=abc')).toMatch(/^querystring\/roleId /);
    expect(await get('roleId=0')).toMatch(/^querystring\/roleId /);
    expect(await get('limit=0')).toMatch(/^querystring\/limit /);
    expect(await get('page=-1')).toMatch(/^querystring\/page /);
    expect(await get('page=1.5')).toMatch(/^querystring\/page /);
    expect(await get(`q=${'x'.repeat(201)}`)).toMatch(/^querystring\/q /);
  });

  it('a roleId filter naming an unknown role gives an empty page', async () => {
    const t = await newTenant(ctx);
    const res = await api(ctx.app, t.admin.token).get('/api/users?roleId=999999');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ data: [], total: 0, page: 1, limit: 20 });
  });
});

describe('GET/PUT/DELETE /api/users/:id bad ids', () => {
  it('is 400 for malformed ids and 404 for unknown ones', async () => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    for (const id of BAD_IDS) {
      expect(expectError(await a.get(`/api/users/${id}`), 400)).toMatch(/^params\/id /);
      expect(expectError(await a.put(`/api/users/${id}`, { status: 'Active' }), 400)).toMatch(/^params\/id /);
      expect(expectError(await a.delete(`/api/users/${id}`), 400)).toMatch(/^params\/id /);
    }
    expect(expectError(await a.get('/api/users/999999'), 404)).toBe('User with id 999999 not found');
    expect(expectError(await a.put('/api/users/999999', { status: 'Active' }), 404)).toBe('User with id 999999 not found');
    expect(expectError(await a.delete('/api/users/999999'), 404)).toBe('User with id 999999 not found');
  });
});

describe('POST /api/users errors', () => {
  it('validates the body with 400 naming the field', async () => {
    const t = await newTenant(ctx);
    const post = async (body: object) => expectError(await api(ctx.app, t.admin.token).post('/api/users', body), 400);
    expect(await post({ ...valid, username: undefined })).toBe('body/username is required');
    expect(await post({ ...valid, username: 'ab' })).toMatch(/^body\/username /);
    expect(await post({ ...valid, username: 'has space' })).toMatch(/^body\/username /);
    expect(await post({ ...valid, username: 'a@b.org' })).toMatch(/^body\/username /);
    expect(await post({ ...valid, username: 'x'.repeat(101) })).toMatch(/^body\/username /);
    expect(await post({ ...valid, email: 'not-an-email' })).toMatch(/^body\/email /);
    expect(await post({ ...valid, email: `${'x'.repeat(250)}@example.org` })).toMatch(/^body\/email /);
    expect(await post({ ...valid, password: 'short' })).toMatch(/^body\/password /);
    expect(await post({ ...valid, password: undefined })).toBe('body/password is required unless invite is true');
    expect(await post({ ...valid, invite: true })).toBe('body must have either password or invite: true, not both');
    expect(await post({ ...valid, password: undefined, invite: true })).toBe('body/email is required when invite is true');
    expect(await post({ ...valid, invite: 'maybe' })).toMatch(/^body\/invite /);
    expect(await post({ ...valid, firstName: undefined })).toBe('body/firstName is required when contactId is not given');
    expect(await post({ ...valid, lastName: undefined })).toBe('body/lastName is required when contactId is not given');
    expect(await post({ ...valid, firstName: 'x'.repeat(201) })).toMatch(/^body\/firstName /);
    for (const id of ['abc', 1.5, -1, 0, '99999999999999999999']) {
      expect(await post({ ...valid, roleIds: [id] })).toMatch(/^body\/roleIds\/0 /);
      expect(await post({ ...valid, contactId: id })).toMatch(/^body\/contactId /);
    }
    expect(await post({ ...valid, roleIds: [1, 1] })).toMatch(/^body\/roleIds /);
    expect(await post({ ...valid, roleIds: Array.from({ length: 51 }, (_, i) => i + 1) })).toMatch(/^body\/roleIds /);
    expect(await userCount(t)).toBe(1);
  });

  it('unknown role or contact ids are 404 naming them, and nothing is written', async () => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    const member = await roleId(ctx, t, 'Member');
    expect(expectError(await a.post('/api/users', { ...valid, roleIds: [member, 999998, 999999] }), 404)).toBe('Roles with id 999998, 999999 not found');
    expect(expectError(await a.post('/api/users', { ...valid, contactId: 999999 }), 404)).toBe('Contact with id 999999 not found');
    expect(await userCount(t)).toBe(1);
    const [{ n }] = await ctx.db.select({ n: count() }).from(contacts).where(eq(contacts.tenantId, t.id));
    expect(n).toBe(1);
  });

  it('a Company contact cannot be linked', async () => {
    const t = await newTenant(ctx);
    const company = await newCompany(ctx, t);
    const msg = expectError(await api(ctx.app, t.admin.token).post('/api/users', { ...valid, contactId: company }), 400);
    expect(msg).toMatch(/^body\/contactId must name a Person contact/);
  });

  it('usernames are unique case-insensitively, emails too, and a contact links to one user', async () => {
    const t = await newTenant(ctx);
    const u = await newUser(ctx, t, 'Member', { username: 'Taken', email: 'taken@example.org' });
    const a = api(ctx.app, t.admin.token);
    expect(expectError(await a.post('/api/users', { ...valid, username: 'tAKEN' }), 409)).toBe('Username tAKEN is already taken');
    expect(expectError(await a.post('/api/users', { ...valid, email: 'TAKEN@example.org' }), 409)).toBe('Email TAKEN@example.org is already taken');
    expect(expectError(await a.post('/api/users', { ...valid, contactId: u.contactId }), 409)).toBe(`Contact ${u.contactId} is already linked to user ${u.id}`);
    expect(await userCount(t)).toBe(2);
  });

  it('the same username may exist in another tenant', async () => {
    const t1 = await newTenant(ctx);
    const t2 = await newTenant(ctx);
    await newUser(ctx, t1, 'Member', { username: 'shared' });
    const res = await api(ctx.app, t2.admin.token).post('/api/users', { ...valid, username: 'shared' });
    expect(res.statusCode).toBe(201);
  });
});

describe('PUT /api/users/:id errors', () => {
  it('validates the body', async () => {
    const t = await newTenant(ctx);
    const u = await newUser(ctx, t, 'Member');
    const put = async (body: object) => expectError(await api(ctx.app, t.admin.token).put(`/api/users/${u.id}`, body), 400);
    expect(await put({ status: 'Deleted' })).toMatch(/^body\/status must be one of: Active, Disabled/);
    expect(await put({ email: 'nope' })).toMatch(/^body\/email /);
    expect(await put({ roleIds: 'abc' })).toMatch(/^body\/roleIds/);
    expect(await put({ contactId: -1 })).toMatch(/^body\/contactId /);
  });

  it('unknown references are 404, duplicates 409, and nothing is written', async () => {
    const t = await newTenant(ctx);
    const u = await newUser(ctx, t, 'Member', { email: 'u@example.org' });
    const v = await newUser(ctx, t, 'Member', { email: 'v@example.org' });
    const a = api(ctx.app, t.admin.token);
    expect(expectError(await a.put(`/api/users/${u.id}`, { email: 'new@example.org', roleIds: [999999] }), 404)).toBe('Role with id 999999 not found');
    expect(expectError(await a.put(`/api/users/${u.id}`, { email: 'new@example.org', contactId: 999999 }), 404)).toBe('Contact with id 999999 not found');
    expect(expectError(await a.put(`/api/users/${u.id}`, { email: 'V@example.org' }), 409)).toBe('Email V@example.org is already taken');
    expect(expectError(await a.put(`/api/users/${u.id}`, { email: 'new@example.org', contactId: v.contactId }), 409)).toBe(`Contact ${v.contactId} is already linked to user ${v.id}`);
    const [row] = await ctx.db.select().from(users).where(and(eq(users.tenantId, t.id), eq(users.id, u.id)));
    expect(row).toMatchObject({ email: 'u@example.org', contactId: u.contactId });
    const links = await ctx.db.select().from(userRoles).where(and(eq(userRoles.tenantId, t.id), eq(userRoles.userId, u.id)));
    expect(links.map((l) => l.roleId)).toEqual([await roleId(ctx, t, 'Member')]);
  });

  it('keeping one\'s own email (any case) is not a conflict', async () => {
    const t = await newTenant(ctx);
    const u = await newUser(ctx, t, 'Member', { email: 'same@example.org' });
    const res = await api(ctx.app, t.admin.token).put(`/api/users/${u.id}`, { email: 'SAME@example.org' });
    expect(res.statusCode).toBe(200);
    expect(res.json().email).toBe('SAME@example.org');
  });
});
