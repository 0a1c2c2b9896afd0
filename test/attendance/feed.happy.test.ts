import { afterEach, describe, expect, it, vi } from 'vitest';
import { api, setupTestApp } from '../helpers/app.js';
import { changesOf, newService, newSession, record } from '../helpers/attendance.factories.js';
import { newContacts, newEvent } from '../helpers/events.factories.js';
import { newTenant } from '../helpers/factories.js';
import { addMembership, newGroup } from '../helpers/groups.factories.js';

const ctx = setupTestApp();
const ids = (res: { json(): { data: { id: number }[] } }) => res.json().data.map((r) => r.id);

describe('the records feed', () => {
  it('filters by contact, group (with or without descendants), service, event, kind and dates; newest first', async () => {
    const t = await newTenant(ctx);
    const church = await newGroup(ctx, t, { name: 'Church', category: 'Church' });
    const fellowship = await newGroup(ctx, t, { name: 'Fellowship', parent: church });
    const service = await newService(ctx, t, church.id);
    const event = await newEvent(ctx, t, { groupId: fellowship.id, startDate: '2026-02-10' });
    const [a, b] = await newContacts(ctx, t, 2);
    const sSvc = await newSession(ctx, t, { serviceId: service.id }, '2026-02-01');
    const sGrp = await newSession(ctx, t, { groupId: fellowship.id }, '2026-02-05');
    const r1 = (await record(ctx, t, sSvc.id, [a, b])).created;
    const r2 = (await record(ctx, t, sGrp.id, [a], 'Guest')).created;
    const r3 = (await api(ctx.app, t.admin.token).post(`/api/events/${event.id}/attendance`, { contactIds: [b] })).json().created;
    const admin = api(ctx.app, t.admin.token);

    const all = await admin.get('/api/attendance/records');
    expect(all.json().total).toBe(4);
    expect(ids(all)).toEqual([r3[0].id, r2[0].id, r1[1].id, r1[0].id]);
    expect(all.json().data[0]).toMatchObject({ date: '2026-02-10', source: 'Event', event: { id: event.id }, group: { id: fellowship.id }, service: null });
    expect(ids(await admin.get(`/api/attendance/records?contactId=${a}`))).toEqual([r2[0].id, r1[0].id]);
    expect(ids(await admin.get(`/api/attendance/records?groupId=${church.id}`))).toHaveLength(4);
    expect(ids(await admin.get(`/api/attendance/records?groupId=${church.id}&includeDescendants=false`))).toEqual([r1[1].id, r1[0].id]);
    expect(ids(await admin.get(`/api/attendance/records?groupId=${fellowship.id}`))).toEqual([r3[0].id, r2[0].id]);
    expect(ids(await admin.get(`/api/attendance/records?serviceId=${service.id}`))).toEqual([r1[1].id, r1[0].id]);
    expect(ids(await admin.get(`/api/attendance/records?eventId=${event.id}`))).toEqual([r3[0].id]);
    expect(ids(await admin.get('/api/attendance/records?kind=Guest'))).toEqual([r2[0].id]);
    expect(ids(await admin.get('/api/attendance/records?from=2026-02-02&to=2026-02-09'))).toEqual([r2[0].id]);
    expect((await admin.get('/api/attendance/records?limit=2&page=2')).json()).toMatchObject({ total: 4, page: 2, limit: 2 });
    // Filters naming nothing give an empty page.
    expect((await admin.get('/api/attendance/records?groupId=999999')).json()).toMatchObject({ data: [], total: 0 });
    expect((await admin.get('/api/attendance/records?contactId=999999')).json()).toMatchObject({ data: [], total: 0 });
  });
});

describe('summary', () => {
  afterEach(() => vi.useRealTimers());

  it('every period of the window, zeros included, with sessions, present, guests, first-timers and headcounts', async () => {
    const t = await newTenant(ctx);
    const g = await newGroup(ctx, t, { name: 'Fellowship' });
    const other = await newGroup(ctx, t, { name: 'Other' });
    const [a, b, c] = await newContacts(ctx, t, 3);
    const s1 = await newSession(ctx, t, { groupId: g.id }, '2026-03-01'); // Sunday: week 2026-03-01
    const s2 = await newSession(ctx, t, { groupId: g.id }, '2026-03-07'); // Saturday: same week
    const s3 = await newSession(ctx, t, { groupId: g.id }, '2026-03-22'); // week 2026-03-22
    const s4 = await newSession(ctx, t, { groupId: other.id }, '2026-03-22');
    await record(ctx, t, s1.id, [a, b]);
    await record(ctx, t, s2.id, [a]);
    await record(ctx, t, s2.id, [c], 'Guest');
    await record(ctx, t, s3.id, [a, b, c]);
    await record(ctx, t, s4.id, [a]);
    const admin = api(ctx.app, t.admin.token);
    await admin.put(`/api/attendance/sessions/${s1.id}/headcounts`, { counts: [{ type: 'Adults', count: 30 }, { type: 'Children', count: 5 }] });
    const dnm = await newSession(ctx, t, { groupId: g.id }, '2026-03-15');
    await admin.put(`/api/attendance/sessions/${dnm.id}`, { didNotMeet: true });

    const res = await admin.get(`/api/attendance/summary?groupId=${g.id}&from=2026-03-01&to=2026-03-28`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      from: '2026-03-01', to: '2026-03-28', interval: 'week',
      data: [
        { period: '2026-03-01', sessions: 2, present: 4, guests: 1, firstTime: 3, headcount: 35, averagePresent: 2 },
        { period: '2026-03-08', sessions: 0, present: 0, guests: 0, firstTime: 0, headcount: 0, averagePresent: 0 },
        { period: '2026-03-15', sessions: 0, present: 0, guests: 0, firstTime: 0, headcount: 0, averagePresent: 0 },
        { period: '2026-03-22', sessions: 1, present: 3, guests: 0, firstTime: 0, headcount: 0, averagePresent: 3 },
      ],
      totals: { sessions: 3, present: 7, guests: 1, firstTime: 3, headcount: 35 },
    });
    const monthly = (await admin.get('/api/attendance/summary?from=2026-02-10&to=2026-04-02&interval=month')).json();
    expect(monthly.data.map((p: { period: string; present: number }) => [p.period, p.present])).toEqual([['2026-02-01', 0], ['2026-03-01', 8], ['2026-04-01', 0]]);
    expect(monthly.totals.sessions).toBe(4);
    // A window from a Wednesday starts at that week's Sunday.
    expect((await admin.get('/api/attendance/summary?from=2026-03-04&to=2026-03-05')).json().data.map((p: { period: string }) => p.period)).toEqual(['2026-03-01']);
    // An invisible or unknown group sums nothing.
    expect((await admin.get('/api/attendance/summary?groupId=999999&from=2026-03-01&to=2026-03-07')).json().totals.present).toBe(0);
  });

  it.each([
    // Saturday 20:00 UTC is already Sunday morning in Auckland (a new week) and still Saturday in Los Angeles.
    { zone: 'Pacific/Auckland', to: '2026-11-29', from: '2026-09-13', last: '2026-11-29', lastSessions: 1 },
    { zone: 'America/Los_Angeles', to: '2026-11-28', from: '2026-09-06', last: '2026-11-22', lastSessions: 1 },
  ])('the default window is the 12 weeks ending today in the tenant zone ($zone)', async ({ zone, to, from, last, lastSessions }) => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-28T20:00:00Z'));
    const t = await newTenant(ctx);
    const admin = api(ctx.app, t.admin.token);
    expect((await admin.put('/api/tenants/current', { timeZone: zone })).statusCode).toBe(200);
    const g = await newGroup(ctx, t, { name: 'Fellowship' });
    const [a] = await newContacts(ctx, t, 1);
    await record(ctx, t, (await newSession(ctx, t, { groupId: g.id }, '2026-11-22')).id, [a]);
    await record(ctx, t, (await newSession(ctx, t, { groupId: g.id }, '2026-11-29')).id, [a]);
    const body = (await admin.get('/api/attendance/summary')).json();
    expect(body).toMatchObject({ from, to, interval: 'week' });
    expect(body.data).toHaveLength(12);
    expect(body.data.at(-1)).toMatchObject({ period: last, sessions: lastSessions });
    expect(body.totals.sessions).toBe(zone === 'Pacific/Auckland' ? 2 : 1);
  });
});

describe('absentees and the absence schedule', () => {
  it('lists active members who missed all of their group last N sessions, once per new miss in the schedule', async () => {
    const t = await newTenant(ctx);
    const g = await newGroup(ctx, t, { name: 'Fellowship' });
    const young = await newGroup(ctx, t, { name: 'New group' });
    const [a, b, c, d, e] = await newContacts(ctx, t, 5, 'Member');
    for (const id of [a, b, c]) await addMembership(ctx, t, g, id);
    await addMembership(ctx, t, g, d, 'Member', false); // inactive: never listed
    await addMembership(ctx, t, young, e);
    const dates = ['2026-01-04', '2026-01-11', '2026-01-18', '2026-01-25'];
    const sessions = [];
    for (const date of dates) sessions.push(await newSession(ctx, t, { groupId: g.id }, date));
    await record(ctx, t, sessions[0].id, [a]); // a: only before the last three
    await record(ctx, t, sessions[3].id, [c]); // c: attended the latest
    await newSession(ctx, t, { groupId: young.id }, '2026-01-25'); // one session only: lists nobody
    const admin = api(ctx.app, t.admin.token);

    const res = await admin.get('/api/attendance/absentees');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ total: 2, page: 1, limit: 20 });
    expect(res.json().data).toEqual([
      { contact: { id: a, firstName: 'First0', lastName: 'Member0' }, group: { id: g.id, name: 'Fellowship' }, missedSessions: 3, lastAttendedOn: '2026-01-04' },
      { contact: { id: b, firstName: 'First1', lastName: 'Member1' }, group: { id: g.id, name: 'Fellowship' }, missedSessions: 3, lastAttendedOn: null },
    ]);
    expect((await admin.get('/api/attendance/absentees?missed=4')).json().data.map((x: { contact: { id: number } }) => x.contact.id)).toEqual([b]);
    expect((await admin.get('/api/attendance/absentees?missed=1')).json().total).toBe(3);
    expect((await admin.get('/api/attendance/absentees?missed=5')).json().total).toBe(0);
    expect((await admin.get('/api/attendance/absentees?limit=1&page=3')).json()).toMatchObject({ data: [], total: 2 });

    await ctx.app.worker.runSchedule('attendance.absentees');
    const first = await changesOf(ctx, t, 'attendance.absent');
    expect(first.map((x) => x.data)).toEqual([
      { contactId: a, groupId: g.id, missedSessions: 3, lastSessionId: sessions[3].id },
      { contactId: b, groupId: g.id, missedSessions: 3, lastSessionId: sessions[3].id },
    ]);
    expect(first[0].actor_user_id).toBeNull();
    await ctx.app.worker.runSchedule('attendance.absentees');
    expect(await changesOf(ctx, t, 'attendance.absent')).toHaveLength(2);
    // Another missed session: each is reported again, once.
    await newSession(ctx, t, { groupId: g.id }, '2026-02-01');
    await ctx.app.worker.runSchedule('attendance.absentees');
    await ctx.app.worker.runSchedule('attendance.absentees');
    const after = await changesOf(ctx, t, 'attendance.absent');
    expect(after.slice(2).map((x) => x.data)).toEqual([a, b].map((contactId) => ({ contactId, groupId: g.id, missedSessions: 3, lastSessionId: after[2].data.lastSessionId })));
    expect(after[2].data.lastSessionId).not.toBe(sessions[3].id);
  });

  it('judges each group by its own last sessions: a record at another group of the member does not count', async () => {
    const t = await newTenant(ctx);
    const alpha = await newGroup(ctx, t, { name: 'Alpha' });
    const beta = await newGroup(ctx, t, { name: 'Beta' });
    const [a, b, c] = await newContacts(ctx, t, 3, 'Member');
    for (const id of [a, b, c]) for (const g of [alpha, beta]) await addMembership(ctx, t, g, id);
    const inAlpha = [], inBeta = [];
    for (const date of ['2026-01-04', '2026-01-11', '2026-01-18']) {
      inAlpha.push(await newSession(ctx, t, { groupId: alpha.id }, date));
      inBeta.push(await newSession(ctx, t, { groupId: beta.id }, date));
    }
    await record(ctx, t, inBeta[1].id, [a]); // a came to Beta only
    await record(ctx, t, inAlpha[2].id, [b]); // b came to Alpha only
    await record(ctx, t, inAlpha[0].id, [c]); // c came to both
    await record(ctx, t, inBeta[2].id, [c]);
    const res = await api(ctx.app, t.admin.token).get('/api/attendance/absentees');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.map((x: { group: { name: string }; contact: { id: number } }) => [x.group.name, x.contact.id])).toEqual([['Alpha', a], ['Beta', b]]);
  });
});
