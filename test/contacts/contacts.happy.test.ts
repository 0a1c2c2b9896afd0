import { and, eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { withTenant } from '../../src/db/client.js';
import {
  attendanceRecords, contacts, eventActivities, eventActivityContacts, eventRegistrations, events, groupMembershipRequests,
} from '../../src/db/schema/index.js';
import { api, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser } from '../helpers/factories.js';
import { addMembership, newGroup, newLeaderOf } from '../helpers/groups.factories.js';
import { fullPersonBody, newCompany, newContact, newPerson } from '../helpers/contacts.factories.js';

const ctx = setupTestApp();

const STATUSES = ['Active', 'Inactive', 'MovedAway', 'TransferredToAnotherChurch', 'Deceased'];

describe('POST/GET /api/crm/contacts/:id', () => {
  it('round-trips every field of a person, with every nested array', async () => {
    const t = await newTenant(ctx);
    const body = fullPersonBody();
    const created = await newContact(ctx, t, body);
    const read = (await api(ctx.app, t.admin.token).get(`/api/crm/contacts/${created.id}`)).json();
    for (const c of [created, read]) {
      expect(c).toMatchObject({ id: created.id, category: 'Person', status: 'Inactive', person: body.person, emails: body.emails, phones: body.phones, addresses: body.addresses });
      expect(c.company).toBeUndefined();
      expect(c.occasions).toEqual([{ id: expect.any(Number), ...body.occasions[0] }]);
      expect(c.identifications).toEqual([{ id: expect.any(Number), ...body.identifications[0] }]);
      expect(c).toMatchObject({ relationships: [], requests: [], groupMemberships: [] });
      expect(new Date(c.createdAt).toISOString()).toBe(c.createdAt);
    }
  });

  it('round-trips a company; a new contact is Active and arrays are empty arrays', async () => {
    const t = await newTenant(ctx);
    const c = await newContact(ctx, t, { category: 'Company', company: { name: 'Acme Ltd', industry: 'Bakery', website: 'https://acme.example' } });
    expect(c).toMatchObject({ category: 'Company', status: 'Active', company: { name: 'Acme Ltd', industry: 'Bakery', website: 'https://acme.example' } });
    expect(c.person).toBeUndefined();
    for (const key of ['emails', 'phones', 'addresses', 'occasions', 'identifications', 'relationships', 'requests', 'groupMemberships']) expect(c[key]).toEqual([]);
  });

  it('makes the first entry primary when none is marked, and ignores unknown and output-only fields', async () => {
    const t = await newTenant(ctx);
    const c = await newContact(ctx, t, {
      id: 999, tenantId: 42, category: 'Person', person: { firstName: 'A', lastName: 'B', shoeSize: 9 },
      emails: [{ value: 'one@example.org' }, { value: 'two@example.org' }], phones: [{ value: '0700 000 001' }],
    });
    expect(c.id).not.toBe(999);
    expect(c.person.shoeSize).toBeUndefined();
    expect(c.emails).toEqual([{ value: 'one@example.org', isPrimary: true }, { value: 'two@example.org', isPrimary: false }]);
    expect(c.phones).toEqual([{ value: '0700 000 001', isPrimary: true }]);
  });

  it('accepts every contact status on create', async () => {
    const t = await newTenant(ctx);
    for (const status of STATUSES) expect((await newPerson(ctx, t, 'S', status, { status })).status).toBe(status);
  });

  it('lists only the group memberships of groups visible to the caller', async () => {
    const t = await newTenant(ctx);
    const c = await newPerson(ctx, t, 'Grace', 'Member');
    const open = await newGroup(ctx, t, { name: 'Open Fellowship' });
    const hidden = await newGroup(ctx, t, { name: 'Hidden Fellowship', privacy: 'Private' });
    const m = await addMembership(ctx, t, open, c.id, 'Member');
    await addMembership(ctx, t, hidden, c.id, 'Assistant', false);
    const admin = (await api(ctx.app, t.admin.token).get(`/api/crm/contacts/${c.id}`)).json();
    expect(admin.groupMemberships.map((g: { group: { name: string } }) => g.group.name)).toEqual(['Hidden Fellowship', 'Open Fellowship']);
    const leader = await newLeaderOf(ctx, t, await newGroup(ctx, t, { name: 'Elsewhere', privacy: 'Private' }));
    const seen = (await api(ctx.app, leader.token).get(`/api/crm/contacts/${c.id}`)).json();
    expect(seen.groupMemberships).toEqual([{ id: m.id, groupId: open.id, group: { id: open.id, name: 'Open Fellowship' }, role: 'Member', isActive: true }]);
  });
});

describe('GET /api/crm/contacts, /people, /companies', () => {
  it('lists items with exactly the list fields, ordered by last name, first name, id', async () => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    const zed = await newPerson(ctx, t, 'Amy', 'zed', { emails: [{ value: 'amy@example.org' }], phones: [{ value: '+1 555 0100' }] });
    const adams2 = await newPerson(ctx, t, 'Bea', 'Adams');
    const adams1 = await newPerson(ctx, t, 'Al', 'Adams');
    const twin = await newPerson(ctx, t, 'Al', 'Adams');
    const firm = await newCompany(ctx, t, 'Baker & Sons');
    const res = await a.get('/api/crm/contacts');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ total: 6, page: 1, limit: 20 });
    expect(body.data.map((c: { id: number }) => c.id)).toEqual([adams1.id, twin.id, adams2.id, t.admin.contactId, firm.id, zed.id]);
    expect(body.data.find((c: { id: number }) => c.id === zed.id)).toEqual({
      id: zed.id, category: 'Person', status: 'Active', person: { firstName: 'Amy', lastName: 'zed', gender: null },
      emails: [{ value: 'amy@example.org', isPrimary: true }], phones: [{ value: '+1 555 0100', isPrimary: true }], householdId: null,
    });
    expect(body.data.find((c: { id: number }) => c.id === firm.id)).toEqual({
      id: firm.id, category: 'Company', status: 'Active', company: { name: 'Baker & Sons' }, emails: [], phones: [], householdId: null,
    });
    const people = (await a.get('/api/crm/people')).json();
    expect(people.total).toBe(5);
    expect(people.data.every((c: { category: string }) => c.category === 'Person')).toBe(true);
    expect((await a.get('/api/crm/companies')).json()).toMatchObject({ total: 1, data: [{ id: firm.id }] });
    expect((await a.get('/api/crm/contacts?category=Company')).json().total).toBe(1);
  });

  it('paginates, clamps limit to 100 and returns an empty page past the end', async () => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    for (let i = 0; i < 4; i++) await newPerson(ctx, t, 'P', `L${i}`);
    const page2 = (await a.get('/api/crm/contacts?page=2&limit=2')).json();
    expect(page2).toMatchObject({ total: 5, page: 2, limit: 2 });
    expect(page2.data.map((c: { person: { lastName: string } }) => c.person.lastName)).toEqual(['L1', 'L2']);
    expect((await a.get('/api/crm/contacts?limit=500')).json()).toMatchObject({ limit: 100, total: 5 });
    expect((await a.get('/api/crm/contacts?page=9')).json()).toMatchObject({ data: [], total: 5, page: 9 });
  });

  it('filters by status and category', async () => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    const gone = await newPerson(ctx, t, 'Gone', 'Away', { status: 'MovedAway' });
    await newCompany(ctx, t, 'Closed Inc', { status: 'MovedAway' });
    expect((await a.get('/api/crm/contacts?status=MovedAway')).json().total).toBe(2);
    expect((await a.get('/api/crm/people?status=MovedAway')).json()).toMatchObject({ total: 1, data: [{ id: gone.id }] });
    expect((await a.get('/api/crm/contacts?status=Deceased')).json()).toMatchObject({ total: 0, data: [] });
  });

  it('searches names, company names, emails and phones case-insensitively', async () => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    const ruth = await newPerson(ctx, t, 'Ruth', 'Kamau', { person: { firstName: 'Ruth', lastName: 'Kamau', middleName: 'Wanjiru' }, emails: [{ value: 'RK@Example.org' }] });
    const firm = await newCompany(ctx, t, 'Grace Bakery', { phones: [{ value: '+256 (700) 123-456' }] });
    const ids = async (q: string) => (await a.get(`/api/crm/contacts?q=${encodeURIComponent(q)}`)).json().data.map((c: { id: number }) => c.id);
    expect(await ids('kAmA')).toEqual([ruth.id]);
    expect(await ids('wanji')).toEqual([ruth.id]);
    expect(await ids('rk@exa')).toEqual([ruth.id]);
    expect(await ids('bakery')).toEqual([firm.id]);
    expect(await ids('(700) 123')).toEqual([firm.id]);
    expect(await ids('700123456')).toEqual([firm.id]);
    expect(await ids('700-123')).toEqual([firm.id]);
    expect(await ids('  kamau  ')).toEqual([ruth.id]);
    expect(await ids("' OR 1=1 --")).toEqual([]);
    expect(await ids('%')).toEqual([]);
    expect(await ids('_')).toEqual([]);
    expect((await a.get(`/api/crm/contacts?q=kamau&category=Company`)).json()).toMatchObject({ total: 0 });
  });

  it('finds contacts created by tenant seeding by email (search columns kept by the one create path)', async () => {
    const t = await newTenant(ctx);
    const res = await api(ctx.app, t.admin.token).get(`/api/crm/contacts?q=${encodeURIComponent(`admin@${t.slug}`)}`);
    expect(res.json()).toMatchObject({ total: 1, data: [{ id: t.admin.contactId }] });
    const [row] = await ctx.db.select().from(contacts).where(and(eq(contacts.tenantId, t.id), eq(contacts.id, t.admin.contactId)));
    expect(row).toMatchObject({ sortLast: 'administrator', sortFirst: 'church', phoneDigits: '' });
    expect(row.searchText).toContain(`admin@${t.slug}`);
  });
});

describe('PUT /api/crm/contacts/:id', () => {
  it('merges scalars and person, replaces sent arrays and keeps the others', async () => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    const body = fullPersonBody();
    const c = await newContact(ctx, t, body);
    const res = await a.put(`/api/crm/contacts/${c.id}`, {
      status: 'Deceased', person: { lastName: 'Byron', middleName: null, civilStatus: 'Widowed' },
      phones: [{ value: '0800 555 1212' }], occasions: [],
    });
    expect(res.statusCode).toBe(200);
    const updated = res.json();
    expect(updated).toMatchObject({
      status: 'Deceased',
      person: { ...body.person, lastName: 'Byron', middleName: null, civilStatus: 'Widowed' },
      emails: body.emails, addresses: body.addresses, phones: [{ value: '0800 555 1212', isPrimary: true }], occasions: [],
    });
    expect(updated.identifications).toHaveLength(1);
    expect((await a.get(`/api/crm/contacts/${c.id}`)).json()).toEqual(updated);
    // Search columns follow the update.
    expect((await a.get('/api/crm/contacts?q=byron')).json().total).toBe(1);
    expect((await a.get(`/api/crm/contacts?q=${encodeURIComponent(body.person.lastName)}`)).json().total).toBe(0);
    expect((await a.get('/api/crm/contacts?q=5551212')).json().total).toBe(1);
    expect((await a.get('/api/crm/contacts?q=7946')).json().total).toBe(0);
  });

  it('can set every status; accepts the contact it read back; updates a company', async () => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    const c = await newPerson(ctx, t, 'Round', 'Trip');
    for (const status of STATUSES) expect((await a.put(`/api/crm/contacts/${c.id}`, { status })).json().status).toBe(status);
    const read = (await a.get(`/api/crm/contacts/${c.id}`)).json();
    const back = await a.put(`/api/crm/contacts/${c.id}`, read);
    expect(back.statusCode).toBe(200);
    expect({ ...back.json(), updatedAt: read.updatedAt }).toEqual(read);
    const firm = await newCompany(ctx, t, 'Old Name');
    expect((await a.put(`/api/crm/contacts/${firm.id}`, { company: { name: 'New Name' } })).json().company).toEqual({ name: 'New Name', industry: null, website: null });
    expect((await a.get('/api/crm/companies?q=new%20name')).json().total).toBe(1);
  });
});

describe('DELETE /api/crm/contacts/:id', () => {
  it('deletes the contact and everything that belongs to it', async () => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    const c = await newContact(ctx, t, fullPersonBody());
    const other = await newPerson(ctx, t, 'Other', 'Side');
    expect((await a.post('/api/crm/relationships', { contactId: c.id, relatedContactId: other.id, type: 'Spouse' })).statusCode).toBe(201);
    expect((await a.post('/api/crm/requests', { contactId: c.id, type: 'Prayer', description: 'x' })).statusCode).toBe(201);
    const group = await newGroup(ctx, t, { name: 'G' });
    await addMembership(ctx, t, group, c.id);
    await addMembership(ctx, t, group, other.id);
    await withTenant(ctx.db, t.id, async (tx) => {
      await tx.insert(groupMembershipRequests).values({ tenantId: t.id, groupId: group.id, contactId: c.id });
      const [event] = await tx.insert(events).values({ tenantId: t.id, name: 'Service', startDate: '2026-01-04', endDate: '2026-01-04' }).returning();
      await tx.insert(eventRegistrations).values([{ tenantId: t.id, eventId: event.id, contactId: c.id }, { tenantId: t.id, eventId: event.id, contactId: other.id }]);
      await tx.insert(attendanceRecords).values({ tenantId: t.id, eventId: event.id, contactId: c.id });
      const [activity] = await tx.insert(eventActivities).values({ tenantId: t.id, eventId: event.id, activityType: 'Salvation' }).returning();
      await tx.insert(eventActivityContacts).values([{ tenantId: t.id, activityId: activity.id, contactId: c.id }, { tenantId: t.id, activityId: activity.id, contactId: other.id }]);
    });
    const res = await a.delete(`/api/crm/contacts/${c.id}`);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    const tables = [
      'persons', 'contact_emails', 'contact_phones', 'contact_addresses', 'contact_occasions', 'contact_identifications', 'contact_requests',
      'group_memberships', 'group_membership_requests', 'event_registrations', 'attendance_records', 'event_activity_contacts',
    ];
    const countOf = async (table: string, contactId: number) => {
      const r = (await ctx.db.execute(sql.raw(`SELECT count(*)::int AS n FROM ${table} WHERE tenant_id = ${t.id} AND contact_id = ${contactId}`))) as unknown as { rows: { n: number }[] };
      return Number(r.rows[0].n);
    };
    for (const table of tables) expect(await countOf(table, c.id), table).toBe(0);
    // The other contact's rows in the same group and event stay.
    for (const table of ['group_memberships', 'event_registrations', 'event_activity_contacts', 'persons']) expect(await countOf(table, other.id), table).toBe(1);
    const rel = (await ctx.db.execute(sql`SELECT count(*)::int AS n FROM contact_relationships WHERE tenant_id = ${t.id} AND (contact_id = ${c.id} OR related_contact_id = ${c.id})`)) as unknown as { rows: { n: number }[] };
    expect(Number(rel.rows[0].n)).toBe(0);
    expect((await a.get(`/api/crm/contacts/${c.id}`)).statusCode).toBe(404);
    expect((await a.get(`/api/crm/contacts/${other.id}`)).json().relationships).toEqual([]);
  });

  it('leaves a user-linked contact of another user alone when deleting a plain one', async () => {
    const t = await newTenant(ctx);
    const u = await newUser(ctx, t, ['contacts:read']);
    const c = await newPerson(ctx, t, 'Plain', 'Contact');
    expect((await api(ctx.app, t.admin.token).delete(`/api/crm/contacts/${c.id}`)).statusCode).toBe(204);
    expect((await api(ctx.app, t.admin.token).get(`/api/crm/contacts/${u.contactId}`)).statusCode).toBe(200);
  });
});
