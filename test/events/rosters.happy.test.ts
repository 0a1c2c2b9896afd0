import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { withTenant } from '../../src/db/client.js';
import { companies, contacts } from '../../src/db/schema/index.js';
import { api, setupTestApp } from '../helpers/app.js';
import { newTenant } from '../helpers/factories.js';
import { countRows, newContacts, newEvent } from '../helpers/events.factories.js';

/** Registration and attendance: the same rules on two record kinds. */
const ctx = setupTestApp();

const kinds = [
  { path: 'registration', table: 'registrations', reason: 'already registered', time: 'createdAt' },
  { path: 'attendance', table: 'attendance', reason: 'already present', time: 'attendedAt' },
] as const;

describe.each(kinds)('$path', ({ path, table, reason, time }) => {
  it('adds contacts in bulk and returns the created items', async () => {
    const t = await newTenant(ctx);
    const e = await newEvent(ctx, t);
    const ids = await newContacts(ctx, t, 3, 'Doe');
    const res = await api(ctx.app, t.admin.token).post(`/api/events/${e.id}/${path}`, { contactIds: ids });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(body.skipped).toEqual([]);
    expect(body.created).toHaveLength(3);
    expect(body.created[0]).toMatchObject({ eventId: e.id, contactId: ids[0], contact: { id: ids[0], firstName: 'First0', lastName: 'Doe0' } });
    expect(body.created[0][time]).toMatch(/^\d{4}-\d\d-\d\dT.*Z$/);
    expect(Object.keys(body.created[0]).sort()).toEqual(['contact', 'contactId', 'eventId', 'id', time].sort());
    expect(await countRows(ctx, t, table, e.id)).toBe(3);
  });

  it('is idempotent: contacts already there are skipped with a reason', async () => {
    const t = await newTenant(ctx);
    const e = await newEvent(ctx, t);
    const ids = await newContacts(ctx, t, 4);
    const admin = api(ctx.app, t.admin.token);
    await admin.post(`/api/events/${e.id}/${path}`, { contactIds: ids.slice(0, 2) });
    const res = await admin.post(`/api/events/${e.id}/${path}`, { contactIds: [ids[3], ids[1], ids[0], ids[2]] });
    expect(res.statusCode).toBe(201);
    expect(res.json().created.map((r: { contactId: number }) => r.contactId).sort()).toEqual([ids[2], ids[3]].sort());
    expect(res.json().skipped).toEqual([{ contactId: ids[1], reason }, { contactId: ids[0], reason }]);
    const again = await admin.post(`/api/events/${e.id}/${path}`, { contactIds: ids });
    expect(again.json()).toEqual({ created: [], skipped: ids.map((contactId) => ({ contactId, reason })) });
    expect(await countRows(ctx, t, table, e.id)).toBe(4);
  });

  it('lists with the envelope, paginated, in insertion order', async () => {
    const t = await newTenant(ctx);
    const e = await newEvent(ctx, t);
    const other = await newEvent(ctx, t, { name: 'Other' });
    const ids = await newContacts(ctx, t, 5);
    const admin = api(ctx.app, t.admin.token);
    await admin.post(`/api/events/${e.id}/${path}`, { contactIds: ids });
    await admin.post(`/api/events/${other.id}/${path}`, { contactIds: ids.slice(0, 1) });
    const all = await admin.get(`/api/events/${e.id}/${path}`);
    expect(all.json()).toMatchObject({ total: 5, page: 1, limit: 20 });
    expect(all.json().data.map((r: { contactId: number }) => r.contactId)).toEqual(ids);
    const p2 = await admin.get(`/api/events/${e.id}/${path}?page=2&limit=2`);
    expect(p2.json()).toMatchObject({ total: 5, page: 2, limit: 2 });
    expect(p2.json().data.map((r: { contactId: number }) => r.contactId)).toEqual(ids.slice(2, 4));
    expect((await admin.get(`/api/events/${other.id}/${path}`)).json().total).toBe(1);
  });

  it('DELETE removes one record of that event; a second delete or another event is 404', async () => {
    const t = await newTenant(ctx);
    const e = await newEvent(ctx, t);
    const other = await newEvent(ctx, t, { name: 'Other' });
    const ids = await newContacts(ctx, t, 2);
    const admin = api(ctx.app, t.admin.token);
    const [first, second] = (await admin.post(`/api/events/${e.id}/${path}`, { contactIds: ids })).json().created;
    expect((await admin.delete(`/api/events/${other.id}/${path}/${first.id}`)).statusCode).toBe(404);
    const res = await admin.delete(`/api/events/${e.id}/${path}/${first.id}`);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect((await admin.delete(`/api/events/${e.id}/${path}/${first.id}`)).statusCode).toBe(404);
    expect((await admin.get(`/api/events/${e.id}/${path}`)).json().data.map((r: { id: number }) => r.id)).toEqual([second.id]);
    // Deleted, the contact can be added again.
    expect((await admin.post(`/api/events/${e.id}/${path}`, { contactIds: ids })).json().created.map((r: { contactId: number }) => r.contactId)).toEqual([ids[0]]);
  });

  it('accepts 1,000 contacts in one request', async () => {
    const t = await newTenant(ctx);
    const e = await newEvent(ctx, t);
    const ids = await withTenant(ctx.db, t.id, async (tx) => {
      const rows = await tx.insert(contacts).values(Array.from({ length: 1000 }, () => ({ tenantId: t.id, category: 'Person' as const }))).returning({ id: contacts.id });
      return rows.map((r) => r.id);
    });
    const res = await api(ctx.app, t.admin.token).post(`/api/events/${e.id}/${path}`, { contactIds: ids });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().created).toHaveLength(1000);
    expect(await countRows(ctx, t, table, e.id)).toBe(1000);
  });

  it('a company contact is named by its company name', async () => {
    const t = await newTenant(ctx);
    const e = await newEvent(ctx, t);
    const companyId = await withTenant(ctx.db, t.id, async (tx) => {
      const [row] = await tx.insert(contacts).values({ tenantId: t.id, category: 'Company' }).returning({ id: contacts.id });
      await tx.insert(companies).values({ tenantId: t.id, contactId: row.id, name: 'Acme Catering' });
      return row.id;
    });
    const admin = api(ctx.app, t.admin.token);
    const posted = await admin.post(`/api/events/${e.id}/${path}`, { contactIds: [companyId] });
    const expected = { id: companyId, firstName: 'Acme Catering', lastName: '' };
    expect(posted.json().created[0].contact).toEqual(expected);
    expect((await admin.get(`/api/events/${e.id}/${path}`)).json().data[0].contact).toEqual(expected);
    const detail = (await admin.get(`/api/events/${e.id}`)).json();
    expect((path === 'registration' ? detail.registrations : detail.attendance)[0].contact).toEqual(expected);
  });

  it('deleting a contact removes its records (cascade)', async () => {
    const t = await newTenant(ctx);
    const e = await newEvent(ctx, t);
    const ids = await newContacts(ctx, t, 2);
    await api(ctx.app, t.admin.token).post(`/api/events/${e.id}/${path}`, { contactIds: ids });
    await withTenant(ctx.db, t.id, (tx) => tx.delete(contacts).where(and(eq(contacts.tenantId, t.id), eq(contacts.id, ids[0]))));
    expect(await countRows(ctx, t, table, e.id)).toBe(1);
  });
});

describe('single event read', () => {
  it('carries registrations, attendance and activities in the contract shapes', async () => {
    const t = await newTenant(ctx);
    const e = await newEvent(ctx, t);
    const ids = await newContacts(ctx, t, 3, 'Roe');
    const admin = api(ctx.app, t.admin.token);
    await admin.post(`/api/events/${e.id}/registration`, { contactIds: ids });
    await admin.post(`/api/events/${e.id}/attendance`, { contactIds: ids.slice(0, 2) });
    await admin.post(`/api/events/${e.id}/activities`, { activityType: 'Baptism', contactIds: [ids[2], ids[0]], notes: 'River' });
    await admin.post(`/api/events/${e.id}/activities`, { activityType: 'Salvation', contactIds: [ids[1]] });
    const body = (await admin.get(`/api/events/${e.id}`)).json();
    expect(body.registrations.map((r: { contactId: number }) => r.contactId)).toEqual(ids);
    expect(body.registrations[1]).toMatchObject({ eventId: e.id, contact: { id: ids[1], firstName: 'First1', lastName: 'Roe1' } });
    expect(body.attendance.map((r: { contactId: number }) => r.contactId)).toEqual(ids.slice(0, 2));
    expect(body.attendance[0].attendedAt).toMatch(/Z$/);
    expect(body.activities).toHaveLength(2);
    expect(body.activities[0]).toMatchObject({
      eventId: e.id, activityType: 'Baptism', notes: 'River', contactIds: [ids[0], ids[2]].sort((x, y) => x - y),
    });
    expect(body.activities[0].contacts.map((c: { lastName: string }) => c.lastName).sort()).toEqual(['Roe0', 'Roe2']);
    expect(body.activities[1]).toMatchObject({ activityType: 'Salvation', notes: null, contactIds: [ids[1]] });
    expect(body).toMatchObject({ registrationCount: 3, attendanceCount: 2, activityCount: 2 });
  });

  it('carries the first 100 of each list and the count of all; the list routes page through the rest', async () => {
    const t = await newTenant(ctx);
    const e = await newEvent(ctx, t);
    const ids = await newContacts(ctx, t, 105);
    const admin = api(ctx.app, t.admin.token);
    await admin.post(`/api/events/${e.id}/registration`, { contactIds: ids });
    await admin.post(`/api/events/${e.id}/attendance`, { contactIds: ids.slice(0, 101) });
    const body = (await admin.get(`/api/events/${e.id}`)).json();
    expect(body.registrations).toHaveLength(100);
    expect(body.registrations.map((r: { contactId: number }) => r.contactId)).toEqual(ids.slice(0, 100));
    expect(body.attendance).toHaveLength(100);
    expect(body).toMatchObject({ registrationCount: 105, attendanceCount: 101, activityCount: 0 });
    const rest = (await admin.get(`/api/events/${e.id}/registration?page=2&limit=100`)).json();
    expect(rest.total).toBe(105);
    expect(rest.data.map((r: { contactId: number }) => r.contactId)).toEqual(ids.slice(100));
  });
});
