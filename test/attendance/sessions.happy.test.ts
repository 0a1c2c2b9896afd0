import { describe, expect, it } from 'vitest';
import { addDays, dayOfWeek, todayIn } from '../../src/lib/periods.js';
import { api, setupTestApp } from '../helpers/app.js';
import { changesOf, countOf, newService, newSession, record } from '../helpers/attendance.factories.js';
import { newContacts, newEvent } from '../helpers/events.factories.js';
import { newTenant } from '../helpers/factories.js';
import { newGroup } from '../helpers/groups.factories.js';

const ctx = setupTestApp();

describe('sessions, records, guests, headcounts', () => {
  it('creates sessions of a service, a group and an event, and reads them newest first with counts', async () => {
    const t = await newTenant(ctx);
    const church = await newGroup(ctx, t, { name: 'Church', category: 'Church' });
    const service = await newService(ctx, t, church.id);
    const admin = api(ctx.app, t.admin.token);
    const event = await newEvent(ctx, t, { groupId: church.id, startDate: '2026-03-06', endDate: '2026-03-08' });

    const bySvc = await newSession(ctx, t, { serviceId: service.id }, '2026-03-01');
    expect(bySvc).toMatchObject({ date: '2026-03-01', source: 'Service', service: { id: service.id, name: 'Sunday Service' }, group: { id: church.id, name: 'Church' }, event: null, didNotMeet: false, notes: null, presentCount: 0, guestCount: 0, firstTimeCount: 0, headcountTotal: 0 });
    const byGroup = await newSession(ctx, t, { groupId: church.id }, '2026-03-04');
    expect(byGroup).toMatchObject({ source: 'Group', service: null, group: { id: church.id } });
    const byEvent = await newSession(ctx, t, { eventId: event.id }, '2026-03-07');
    expect(byEvent).toMatchObject({ source: 'Event', event: { id: event.id, name: event.name }, group: { id: church.id } });

    const list = (await admin.get('/api/attendance/sessions')).json();
    expect(list.total).toBe(3);
    expect(list.data.map((s: { id: number }) => s.id)).toEqual([byEvent.id, byGroup.id, bySvc.id]);
    expect((await admin.get(`/api/attendance/sessions?serviceId=${service.id}`)).json().data.map((s: { id: number }) => s.id)).toEqual([bySvc.id]);
    expect((await admin.get(`/api/attendance/sessions?eventId=${event.id}`)).json().data.map((s: { id: number }) => s.id)).toEqual([byEvent.id]);
    expect((await admin.get('/api/attendance/sessions?from=2026-03-02&to=2026-03-05')).json().data.map((s: { id: number }) => s.id)).toEqual([byGroup.id]);
    expect((await admin.get('/api/attendance/sessions?limit=1&page=9')).json()).toMatchObject({ data: [], total: 3, page: 9, limit: 1 });

    const put = await admin.put(`/api/attendance/sessions/${bySvc.id}`, { notes: 'Rain', didNotMeet: true });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toMatchObject({ notes: 'Rain', didNotMeet: true });
  });

  it('a new session says what looks like a slip, and is created all the same: another weekday than the service, a date after today', async () => {
    const t = await newTenant(ctx);
    const church = await newGroup(ctx, t, { name: 'Church', category: 'Church' });
    const service = await newService(ctx, t, church.id); // Sundays
    const today = todayIn('UTC');
    const sunday = addDays(today, -dayOfWeek(today));
    expect((await newSession(ctx, t, { serviceId: service.id }, sunday) as { warnings?: string[] }).warnings).toEqual([]);
    const saturday = addDays(sunday, -1);
    expect((await newSession(ctx, t, { serviceId: service.id }, saturday) as { warnings?: string[] }).warnings).toEqual([`Sunday Service meets on Sundays; ${saturday} is a Saturday`]);
    const ahead = addDays(sunday, 14);
    expect((await newSession(ctx, t, { serviceId: service.id }, ahead) as { warnings?: string[] }).warnings).toEqual([`${ahead} is in the future (today is ${today} in UTC)`]);
    // A group's own meeting has no weekday to keep.
    expect((await newSession(ctx, t, { groupId: church.id }, saturday) as { warnings?: string[] }).warnings).toEqual([]);
  });

  it('records contacts: created with isFirstTime, idempotent per contact, changes recorded, session read lists them', async () => {
    const t = await newTenant(ctx);
    const g = await newGroup(ctx, t, { name: 'Fellowship' });
    const s1 = await newSession(ctx, t, { groupId: g.id }, '2026-04-02');
    const s2 = await newSession(ctx, t, { groupId: g.id }, '2026-04-09');
    const ids = await newContacts(ctx, t, 3);
    const admin = api(ctx.app, t.admin.token);

    const first = await record(ctx, t, s1.id, [ids[0], ids[1]]);
    expect(first.skipped).toEqual([]);
    expect(first.created).toHaveLength(2);
    expect(first.created[0]).toMatchObject({ sessionId: s1.id, date: '2026-04-02', source: 'Group', group: { id: g.id, name: 'Fellowship' }, service: null, event: null, contact: { id: ids[0], firstName: 'First0', lastName: 'Guest0' }, kind: 'Regular', isFirstTime: true, checkedInAt: null });

    const again = await record(ctx, t, s1.id, [ids[1], ids[2]], 'Volunteer');
    expect(again.skipped).toEqual([{ contactId: ids[1], reason: 'already present' }]);
    expect(again.created.map((r) => r.contact.id)).toEqual([ids[2]]);
    expect(again.created[0]).toMatchObject({ kind: 'Volunteer', isFirstTime: true });

    const later = await record(ctx, t, s2.id, [ids[0]]);
    expect(later.created[0].isFirstTime).toBe(false);

    const recorded = await changesOf(ctx, t, 'attendance.recorded');
    expect(recorded).toHaveLength(4);
    expect(recorded[0]).toMatchObject({ entity_id: first.created[0].id, actor_user_id: t.admin.id, data: { contactId: ids[0], sessionId: s1.id, groupId: g.id, serviceId: null, eventId: null, kind: 'Regular', date: '2026-04-02' } });
    const firsts = await changesOf(ctx, t, 'attendance.first_visit');
    expect(firsts.map((c) => c.data.contactId)).toEqual([ids[0], ids[1], ids[2]]);
    expect(firsts[0].data).toMatchObject({ isFirstTime: true, sessionId: s1.id });

    const detail = (await admin.get(`/api/attendance/sessions/${s1.id}`)).json();
    expect(detail).toMatchObject({ id: s1.id, presentCount: 3, guestCount: 0, firstTimeCount: 3, headcounts: [] });
    expect(detail.records.map((r: { contact: { id: number } }) => r.contact.id)).toEqual([ids[0], ids[1], ids[2]]);

    expect((await admin.delete(`/api/attendance/sessions/${s1.id}/records/${ids[2]}`)).statusCode).toBe(204);
    expect((await admin.get(`/api/attendance/sessions/${s1.id}`)).json().presentCount).toBe(2);
  });

  it('quick guests: a new Person, then the same guest matched by email or by phone digits', async () => {
    const t = await newTenant(ctx);
    const g = await newGroup(ctx, t, { name: 'Fellowship' });
    const s1 = await newSession(ctx, t, { groupId: g.id }, '2026-04-02');
    const s2 = await newSession(ctx, t, { groupId: g.id }, '2026-04-09');
    const s3 = await newSession(ctx, t, { groupId: g.id }, '2026-04-16');
    const admin = api(ctx.app, t.admin.token);

    const res = await admin.post(`/api/attendance/sessions/${s1.id}/guests`, { firstName: 'Grace', lastName: 'Hopper', email: 'Grace@Example.org', phone: '+256 (700) 111-222', gender: 'Female' });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(body.contact).toMatchObject({ firstName: 'Grace', lastName: 'Hopper', isNew: true, matchedBy: null });
    expect(body.record).toMatchObject({ kind: 'Guest', isFirstTime: true, contact: { id: body.contact.id } });
    const contact = (await admin.get(`/api/crm/contacts/${body.contact.id}`)).json();
    expect(contact.emails[0].value).toBe('Grace@Example.org');
    expect(contact.person.gender).toBe('Female');

    const byEmail = (await admin.post(`/api/attendance/sessions/${s2.id}/guests`, { firstName: 'G', lastName: 'H', email: 'grace@example.ORG' })).json();
    expect(byEmail.contact).toMatchObject({ id: body.contact.id, isNew: false, matchedBy: 'email' });
    expect(byEmail.record).toMatchObject({ isFirstTime: false, sessionId: s2.id });
    const byPhone = (await admin.post(`/api/attendance/sessions/${s3.id}/guests`, { firstName: 'G', lastName: 'H', phone: '256700111222' })).json();
    expect(byPhone.contact).toMatchObject({ id: body.contact.id, isNew: false, matchedBy: 'phone' });
    // A repeat at the same session keeps the one record.
    const repeat = await admin.post(`/api/attendance/sessions/${s3.id}/guests`, { firstName: 'G', lastName: 'H', phone: '256-700-111-222' });
    expect(repeat.statusCode).toBe(201);
    expect(repeat.json().record.id).toBe(byPhone.record.id);
    expect(await countOf(ctx, t, 'contacts', `id = ${body.contact.id}`)).toBe(1);
    expect((await admin.get(`/api/attendance/sessions/${s3.id}`)).json()).toMatchObject({ presentCount: 1, guestCount: 1, firstTimeCount: 0 });
  });

  it('headcounts replace the previous ones and add up in the session', async () => {
    const t = await newTenant(ctx);
    const g = await newGroup(ctx, t, { name: 'Fellowship' });
    const s = await newSession(ctx, t, { groupId: g.id }, '2026-04-02');
    const admin = api(ctx.app, t.admin.token);
    const put = await admin.put(`/api/attendance/sessions/${s.id}/headcounts`, { counts: [{ type: 'Children', count: 12 }, { type: 'Adults', count: 40 }] });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json()).toEqual({ data: [{ type: 'Adults', count: 40 }, { type: 'Children', count: 12 }] });
    expect((await admin.get(`/api/attendance/sessions/${s.id}`)).json()).toMatchObject({ headcountTotal: 52, headcounts: [{ type: 'Adults', count: 40 }, { type: 'Children', count: 12 }] });
    expect((await admin.put(`/api/attendance/sessions/${s.id}/headcounts`, { counts: [{ type: 'Adults', count: 0 }] })).json()).toEqual({ data: [{ type: 'Adults', count: 0 }] });
    expect((await admin.put(`/api/attendance/sessions/${s.id}/headcounts`, { counts: [] })).json()).toEqual({ data: [] });
  });

  it('one store: event attendance records into the event session (created on first use), seen by the feed and first visits', async () => {
    const t = await newTenant(ctx);
    const g = await newGroup(ctx, t, { name: 'Church', category: 'Church' });
    const event = await newEvent(ctx, t, { groupId: g.id, startDate: '2026-05-03', endDate: '2026-05-04' });
    const ids = await newContacts(ctx, t, 2);
    const admin = api(ctx.app, t.admin.token);
    const posted = await admin.post(`/api/events/${event.id}/attendance`, { contactIds: ids });
    expect(posted.statusCode).toBe(201);
    expect(posted.json().created[0]).toMatchObject({ eventId: event.id, contactId: ids[0] });
    expect(Object.keys(posted.json().created[0]).sort()).toEqual(['attendedAt', 'contact', 'contactId', 'eventId', 'id']);

    const sessions = (await admin.get(`/api/attendance/sessions?eventId=${event.id}`)).json();
    expect(sessions.data).toHaveLength(1);
    expect(sessions.data[0]).toMatchObject({ date: '2026-05-03', source: 'Event', presentCount: 2, firstTimeCount: 2 });
    // The same session through /api/attendance: the record posted there shows in the event's attendance.
    const more = await newContacts(ctx, t, 1, 'Late');
    await record(ctx, t, sessions.data[0].id, more);
    const eventAttendance = (await admin.get(`/api/events/${event.id}/attendance`)).json();
    expect(eventAttendance.total).toBe(3);
    expect((await admin.get(`/api/events/${event.id}`)).json().attendance).toHaveLength(3);
    // The event session of POST /sessions on the start date is that very session: 409 naming it.
    const dup = await admin.post('/api/attendance/sessions', { eventId: event.id, date: '2026-05-03' });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().message).toContain(`Session ${sessions.data[0].id}`);

    const feed = (await admin.get(`/api/attendance/records?eventId=${event.id}`)).json();
    expect(feed.total).toBe(3);
    expect(feed.data.every((r: { source: string; event: { id: number } }) => r.source === 'Event' && r.event.id === event.id)).toBe(true);
    const firsts = await changesOf(ctx, t, 'attendance.first_visit');
    expect(firsts.map((c) => c.data.contactId)).toEqual([...ids, ...more]);
    expect(firsts[0].data).toMatchObject({ eventId: event.id, groupId: g.id });

    // A second post is skipped as before; deleting by record id still works.
    const again = (await admin.post(`/api/events/${event.id}/attendance`, { contactIds: ids })).json();
    expect(again.skipped).toEqual(ids.map((contactId) => ({ contactId, reason: 'already present' })));
    expect((await admin.delete(`/api/events/${event.id}/attendance/${posted.json().created[0].id}`)).statusCode).toBe(204);
    expect((await admin.get(`/api/attendance/records?eventId=${event.id}`)).json().total).toBe(2);
  });

  it('registrations record registration.created and registration.deleted', async () => {
    const t = await newTenant(ctx);
    const g = await newGroup(ctx, t, { name: 'Church', category: 'Church' });
    const event = await newEvent(ctx, t, { groupId: g.id });
    const ids = await newContacts(ctx, t, 2);
    const admin = api(ctx.app, t.admin.token);
    const created = (await admin.post(`/api/events/${event.id}/registration`, { contactIds: ids })).json().created;
    await admin.delete(`/api/events/${event.id}/registration/${created[0].id}`);
    const changes = await changesOf(ctx, t, 'registration.created', 'registration.deleted');
    expect(changes.map((c) => [c.type, c.entity_id, c.data.contactId])).toEqual([
      ['registration.created', created[0].id, ids[0]], ['registration.created', created[1].id, ids[1]], ['registration.deleted', created[0].id, ids[0]],
    ]);
    expect(changes[0].data).toMatchObject({ eventId: event.id, groupId: g.id });
  });

  it('deleting a session takes its records and headcounts', async () => {
    const t = await newTenant(ctx);
    const g = await newGroup(ctx, t, { name: 'Fellowship' });
    const s = await newSession(ctx, t, { groupId: g.id }, '2026-04-02');
    await record(ctx, t, s.id, await newContacts(ctx, t, 2));
    const admin = api(ctx.app, t.admin.token);
    await admin.put(`/api/attendance/sessions/${s.id}/headcounts`, { counts: [{ type: 'Adults', count: 3 }] });
    expect((await admin.delete(`/api/attendance/sessions/${s.id}`)).statusCode).toBe(204);
    expect(await countOf(ctx, t, 'attendance_records')).toBe(0);
    expect(await countOf(ctx, t, 'attendance_headcounts')).toBe(0);
    expect((await admin.get(`/api/attendance/sessions/${s.id}`)).statusCode).toBe(404);
  });
});
