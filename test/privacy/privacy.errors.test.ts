import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { fullPersonBody } from '../helpers/contacts.factories.js';
import { newTenant, newUser, type TestTenant } from '../helpers/factories.js';
import { newGroup } from '../helpers/groups.factories.js';
import { count, person, post, query } from './privacy.helpers.js';

const ctx = setupTestApp();

describe('privacy routes: bad input and refused writes leave everything as it was', () => {
  let tenant: TestTenant;
  let a: { id: number };
  let b: { id: number };
  let changesBefore: number;

  const changeCount = () => count(ctx, tenant, sql`SELECT count(*) FROM changes`);
  /** Everything a merge or an erase would touch, as one comparable snapshot. */
  const snapshot = () =>
    query(ctx, tenant, sql`SELECT
      (SELECT json_agg(json_build_object('id', c.id, 'first', p.first_name, 'search', c.search_text) ORDER BY c.id) FROM contacts c LEFT JOIN persons p ON p.contact_id = c.id AND p.tenant_id = c.tenant_id)::text AS contacts,
      (SELECT json_agg(json_build_object('c', contact_id, 'v', value) ORDER BY id) FROM contact_emails)::text AS emails,
      (SELECT json_agg(json_build_object('c', contact_id, 'g', group_id) ORDER BY id) FROM group_memberships)::text AS memberships,
      (SELECT json_agg(json_build_object('id', id, 'c', changes, 'd', data) ORDER BY id) FROM changes)::text AS changes,
      (SELECT json_agg(json_build_object('u', username, 's', status, 'c', contact_id) ORDER BY id) FROM users)::text AS users`);

  beforeAll(async () => {
    tenant = await newTenant(ctx);
    a = await post(ctx, tenant.admin.token, '/api/crm/contacts', fullPersonBody());
    b = await post(ctx, tenant.admin.token, '/api/crm/contacts', fullPersonBody());
    const group = await newGroup(ctx, tenant, { name: 'Choir' });
    await post(ctx, tenant.admin.token, '/api/groups/membership', { groupId: group.id, contactId: b.id });
  });

  it('malformed ids and queries are 400', async () => {
    const client = api(ctx.app, tenant.admin.token);
    for (const id of ['abc', '1.5', '-1', '0']) {
      expectError(await client.get(`/api/crm/contacts/${id}/export`), 400);
      expectError(await client.post(`/api/crm/contacts/${id}/erase`, { confirm: true }), 400);
      expectError(await client.post(`/api/crm/contacts/${id}/merge`, { sourceIds: [a.id] }), 400);
    }
    for (const q of ['page=0', 'limit=0', 'page=abc', 'limit=-5']) expectError(await client.get(`/api/crm/duplicates?${q}`), 400);
  });

  it('unknown contacts are 404 naming them', async () => {
    const client = api(ctx.app, tenant.admin.token);
    expect(expectError(await client.get('/api/crm/contacts/999999/export'), 404)).toBe('Contact with id 999999 not found');
    expect(expectError(await client.post('/api/crm/contacts/999999/erase', { confirm: true }), 404)).toBe('Contact with id 999999 not found');
  });

  describe('merge', () => {
    beforeAll(async () => {
      changesBefore = await changeCount();
    });

    it('400 for an empty, oversized or self-including sourceIds, nothing written', async () => {
      const client = api(ctx.app, tenant.admin.token);
      const snap = await snapshot();
      expectError(await client.post(`/api/crm/contacts/${a.id}/merge`, { sourceIds: [] }), 400);
      expectError(await client.post(`/api/crm/contacts/${a.id}/merge`, {}), 400);
      expectError(await client.post(`/api/crm/contacts/${a.id}/merge`, { sourceIds: Array.from({ length: 11 }, (_, i) => 1000 + i) }), 400);
      expect(expectError(await client.post(`/api/crm/contacts/${a.id}/merge`, { sourceIds: [b.id, a.id] }), 400)).toMatch(new RegExp(`sourceIds.*${a.id}`));
      expect(await snapshot()).toEqual(snap);
    });

    it('404 naming every unknown id, survivor or source, and nothing moves', async () => {
      const client = api(ctx.app, tenant.admin.token);
      const snap = await snapshot();
      expect(expectError(await client.post(`/api/crm/contacts/${a.id}/merge`, { sourceIds: [b.id, 999998, 999999] }), 404)).toBe('Contact with id 999998, 999999 not found');
      expect(expectError(await client.post('/api/crm/contacts/999997/merge', { sourceIds: [b.id] }), 404)).toBe('Contact with id 999997 not found');
      expect(await snapshot()).toEqual(snap);
      expect(await changeCount()).toBe(changesBefore);
    });

    it('409 when the survivor and a source both have a user (a contact has one user), nothing moves', async () => {
      const u1 = await newUser(ctx, tenant, ['contacts:read'], { contactId: a.id });
      const u2 = await newUser(ctx, tenant, ['contacts:read'], { contactId: b.id });
      const snap = await snapshot();
      const changes = await changeCount();
      const message = expectError(await api(ctx.app, tenant.admin.token).post(`/api/crm/contacts/${a.id}/merge`, { sourceIds: [b.id] }), 409);
      expect(message).toContain(`user ${u2.id}`);
      expect(message).toContain(`user ${u1.id}`);
      expect(await snapshot()).toEqual(snap);
      expect(await changeCount()).toBe(changes);
    });

    it('409 when two sources have users', async () => {
      const c = await person(ctx, tenant, 'Cee', 'Three');
      const d = await person(ctx, tenant, 'Dee', 'Four');
      await newUser(ctx, tenant, ['contacts:read'], { contactId: c.id });
      await newUser(ctx, tenant, ['contacts:read'], { contactId: d.id });
      const target = await person(ctx, tenant, 'Target', 'Free');
      expectError(await api(ctx.app, tenant.admin.token).post(`/api/crm/contacts/${target.id}/merge`, { sourceIds: [c.id, d.id] }), 409);
      expect(await count(ctx, tenant, sql`SELECT count(*) FROM contacts WHERE id IN (${c.id}, ${d.id})`)).toBe(2);
    });
  });

  describe('erase', () => {
    it('403 for your own contact', async () => {
      const snap = await snapshot();
      expect(expectError(await api(ctx.app, tenant.admin.token).post(`/api/crm/contacts/${tenant.admin.contactId}/erase`, { confirm: true }), 403)).toMatch(/own contact/);
      expect(await snapshot()).toEqual(snap);
    });

    it('a failure after the erasing began (the last administrator\'s contact) rolls all of it back: 409, nothing changed', async () => {
      // Someone who may erase but not administer users erases the only administrator's contact.
      const officer = await newUser(ctx, tenant, ['privacy:write', 'contacts:read']);
      // The admin's contact gets personal data and a diff in the audit first.
      await api(ctx.app, tenant.admin.token).put(`/api/crm/contacts/${tenant.admin.contactId}`, { emails: [{ value: 'the.admin@example.org' }] });
      const snap = await snapshot();
      const message = expectError(await api(ctx.app, officer.token).post(`/api/crm/contacts/${tenant.admin.contactId}/erase`, { confirm: true }), 409);
      expect(message).toMatch(/last active user/);
      expect(await snapshot()).toEqual(snap);
      expect(snap[0].emails).toContain('the.admin@example.org');
      expect((await api(ctx.app, tenant.admin.token).get('/api/users/me')).statusCode).toBe(200);
    });

    it('body must be JSON with confirm true', async () => {
      const res = await ctx.app.inject({ method: 'POST', url: `/api/crm/contacts/${b.id}/erase`, payload: '{bad', headers: { authorization: `Bearer ${tenant.admin.token}`, 'content-type': 'application/json' } });
      expectError(res, 400);
      expectError(await api(ctx.app, tenant.admin.token).post(`/api/crm/contacts/${b.id}/erase`, { confirm: 'yes' }), 400);
      expect(await count(ctx, tenant, sql`SELECT count(*) FROM contact_emails WHERE contact_id = ${b.id}`)).toBe(2);
    });
  });
});
