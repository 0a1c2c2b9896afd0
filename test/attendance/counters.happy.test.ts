import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { withTenant } from '../../src/db/client.js';
import { api, setupTestApp } from '../helpers/app.js';
import { newService, newSession, record } from '../helpers/attendance.factories.js';
import { newContacts, newEvent } from '../helpers/events.factories.js';
import { newTenant, newUser, type TestTenant } from '../helpers/factories.js';
import { newGroup } from '../helpers/groups.factories.js';
import type { TestContext } from '../helpers/app.js';

const ctx = setupTestApp();

type Rows = Record<string, unknown>[];
async function query(ctx: TestContext, t: TestTenant, text: string): Promise<Rows> {
  const res = await withTenant(ctx.db, t.id, (tx) => tx.execute(sql.raw(text.replaceAll('$t', String(t.id)))));
  return (res as unknown as { rows: Rows }).rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v === null || typeof v === 'boolean' || typeof v === 'string' && !/^-?\d+$/.test(v) ? v : Number(v)])));
}

/**
 * The counters migration 0015's triggers keep, against a recount from the rows themselves: every
 * session's counters, the daily rollup, and each first visit's derived columns. Empty arrays when
 * they agree.
 */
async function counterDrift(t: TestTenant) {
  const sessions = await query(ctx, t, `
    select s.id, s.present_count, s.guest_count, s.volunteer_count, s.first_time_count, s.headcount_total, x.* from attendance_sessions s
    cross join lateral (select count(r.id) as n, count(r.id) filter (where r.kind = 'Guest') as g, count(r.id) filter (where r.kind = 'Volunteer') as v,
      count(r.id) filter (where r.is_first_time) as f, (select coalesce(sum(h.count), 0) from attendance_headcounts h where h.tenant_id = s.tenant_id and h.session_id = s.id) as h
      from attendance_records r where r.tenant_id = s.tenant_id and r.session_id = s.id) x
    where s.tenant_id = $t and (s.present_count, s.guest_count, s.volunteer_count, s.first_time_count, s.headcount_total) <> (x.n, x.g, x.v, x.f, x.h)`);
  const daily = await query(ctx, t, `
    select coalesce(d.date, x.date) as date, coalesce(d.did_not_meet, x.did_not_meet) as dnm, d.sessions, x.sessions as want_sessions, d.present, x.present as want_present
    from (select * from attendance_daily_counts where tenant_id = $t) d
    full join (select date, did_not_meet, count(*) as sessions, sum(present_count) as present, sum(guest_count) as guests, sum(volunteer_count) as volunteers,
        sum(first_time_count) as first_time, sum(headcount_total) as headcount
      from attendance_sessions where tenant_id = $t group by 1, 2) x on x.date = d.date and x.did_not_meet = d.did_not_meet
    where (d.sessions, d.present, d.guests, d.volunteers, d.first_time, d.headcount) is distinct from (x.sessions, x.present, x.guests, x.volunteers, x.first_time, x.headcount)
      and not (x.date is null and d.sessions = 0 and d.present = 0 and d.guests = 0 and d.volunteers = 0 and d.first_time = 0 and d.headcount = 0)`);
  const firstVisits = await query(ctx, t, `
    select f.contact_id, f.visits, f.returned_on, f.group_id, f.first_kept, x.* from contact_first_visits f
    cross join lateral (select
      (select count(*) from attendance_records r where r.tenant_id = f.tenant_id and r.contact_id = f.contact_id) as want_visits,
      (select min(r.date) from attendance_records r where r.tenant_id = f.tenant_id and r.contact_id = f.contact_id and not r.is_first_time and r.date >= f.date) as want_returned,
      (select r.group_id from attendance_records r where r.tenant_id = f.tenant_id and r.id = f.record_id) as want_group,
      exists (select 1 from attendance_records r where r.tenant_id = f.tenant_id and r.id = f.record_id) as want_kept) x
    where f.tenant_id = $t and (f.visits, f.returned_on, f.group_id, f.first_kept) is distinct from (x.want_visits, x.want_returned, x.want_group, x.want_kept)`);
  return { sessions, daily, firstVisits };
}

const none = { sessions: [], daily: [], firstVisits: [] };

describe('attendance counters (migration 0015) stay exact under every write path', () => {
  it('records, guests, event attendance, check-ins, headcounts, deletes, didNotMeet, moves, merges, erasure, session and event deletes', async () => {
    const t = await newTenant(ctx);
    const admin = api(ctx.app, t.admin.token);
    const church = await newGroup(ctx, t, { name: 'Church', category: 'Church' });
    const fellowship = await newGroup(ctx, t, { name: 'Fellowship', parent: church });
    const other = await newGroup(ctx, t, { name: 'Other', parent: church });
    const service = await newService(ctx, t, church.id);
    const event = await newEvent(ctx, t, { groupId: fellowship.id, startDate: '2026-02-10' });
    const people = await newContacts(ctx, t, 8);
    const [a, b, c, d, e, f, g, h] = people;

    const s1 = await newSession(ctx, t, { serviceId: service.id }, '2026-02-01');
    const s2 = await newSession(ctx, t, { groupId: fellowship.id }, '2026-02-05');
    const s3 = await newSession(ctx, t, { groupId: fellowship.id }, '2026-02-12');
    await record(ctx, t, s1.id, [a, b, c]);
    await record(ctx, t, s1.id, [d], 'Volunteer');
    await record(ctx, t, s2.id, [a, e], 'Guest');
    await record(ctx, t, s3.id, [b, f]);
    expect((await admin.post(`/api/events/${event.id}/attendance`, { contactIds: [a, g] })).statusCode).toBe(201);
    const guest = await admin.post(`/api/attendance/sessions/${s2.id}/guests`, { firstName: 'Quick', lastName: 'Guest', email: 'quick@example.org' });
    expect(guest.statusCode, guest.body).toBe(201);
    const checkin = await admin.post('/api/attendance/checkins', { sessionId: s3.id, contactIds: [c, h] });
    expect(checkin.statusCode, checkin.body).toBe(201);
    await admin.put(`/api/attendance/sessions/${s1.id}/headcounts`, { counts: [{ type: 'Adults', count: 40 }, { type: 'Children', count: 7 }] });
    await admin.put(`/api/attendance/sessions/${s1.id}/headcounts`, { counts: [{ type: 'Adults', count: 42 }] });
    expect(await counterDrift(t)).toEqual(none);

    // What the feed and the summary answer from the counters is what counting the rows gives.
    const all = Number((await query(ctx, t, 'select count(*) as n from attendance_records where tenant_id = $t'))[0].n);
    expect((await admin.get('/api/attendance/records')).json().total).toBe(all);
    expect((await admin.get('/api/attendance/records?kind=Regular')).json().total).toBe(all - 4);
    expect((await admin.get(`/api/attendance/records?groupId=${fellowship.id}&kind=Guest`)).json().total).toBe(3);
    expect((await admin.get(`/api/attendance/records?groupId=${church.id}&from=2026-02-02`)).json().total).toBe(all - 4);
    const whole = (await admin.get('/api/attendance/summary?from=2026-02-01&to=2026-02-28')).json();
    expect(whole.totals).toEqual({ sessions: 4, present: all, guests: 3, firstTime: 8 + 1, headcount: 42 });

    // Deletes, didNotMeet both ways, a session and an event deleted, an event moved to another group.
    expect((await admin.delete(`/api/attendance/sessions/${s1.id}/records/${a}`)).statusCode).toBe(204);
    expect((await admin.put(`/api/attendance/sessions/${s2.id}`, { didNotMeet: true })).statusCode).toBe(200);
    await record(ctx, t, s2.id, [b]);
    expect((await admin.put(`/api/attendance/sessions/${s3.id}`, { didNotMeet: true })).statusCode).toBe(200);
    expect((await admin.put(`/api/attendance/sessions/${s3.id}`, { didNotMeet: false })).statusCode).toBe(200);
    expect((await admin.put(`/api/events/${event.id}`, { groupId: other.id })).statusCode).toBe(200);
    expect(await counterDrift(t)).toEqual(none);
    const summary = (await admin.get('/api/attendance/summary?from=2026-02-01&to=2026-02-28')).json();
    expect(summary.totals.sessions).toBe(3);

    // A merge moves records onto the survivor (the duplicate session record stays and goes), erasure
    // and contact deletion remove records, and whole sessions and events go with theirs.
    const merged = await admin.post(`/api/crm/contacts/${b}/merge`, { sourceIds: [a, c] });
    expect(merged.statusCode, merged.body).toBe(200);
    expect(await counterDrift(t)).toEqual(none);
    expect((await admin.post(`/api/crm/contacts/${e}/erase`, { confirm: true })).statusCode).toBe(200);
    expect((await admin.delete(`/api/crm/contacts/${f}`)).statusCode).toBe(204);
    expect((await admin.delete(`/api/attendance/sessions/${s2.id}`)).statusCode).toBe(204);
    expect(await counterDrift(t)).toEqual(none);
    expect((await admin.delete(`/api/events/${event.id}`)).statusCode).toBe(204);
    expect(await counterDrift(t)).toEqual(none);
    const left = Number((await query(ctx, t, 'select count(*) as n from attendance_records where tenant_id = $t'))[0].n);
    expect((await admin.get('/api/attendance/records')).json().total).toBe(left);
    expect((await admin.get('/api/attendance/summary?from=2026-02-01&to=2026-02-28')).json().totals.present).toBe(left);
  });

  it('concurrent check-ins into one session all count', async () => {
    const t = await newTenant(ctx);
    const admin = api(ctx.app, t.admin.token);
    const g = await newGroup(ctx, t, { name: 'Kids' });
    const session = await newSession(ctx, t, { groupId: g.id }, '2026-03-01');
    const people = await newContacts(ctx, t, 12);
    const results = await Promise.all([0, 1, 2, 3, 4, 5].map((i) => admin.post('/api/attendance/checkins', { sessionId: session.id, contactIds: people.slice(i * 2, i * 2 + 2) })));
    expect(results.map((r) => r.statusCode)).toEqual([201, 201, 201, 201, 201, 201]);
    expect(await counterDrift(t)).toEqual(none);
    expect((await admin.get(`/api/attendance/sessions/${session.id}`)).json().presentCount).toBe(12);
  });

  it('a caller who cannot see every group gets the tenant total less the hidden groups', async () => {
    const t = await newTenant(ctx);
    const open = await newGroup(ctx, t, { name: 'Open' });
    const closed = await newGroup(ctx, t, { name: 'Closed', privacy: 'Private' });
    const people = await newContacts(ctx, t, 5);
    const s1 = await newSession(ctx, t, { groupId: open.id }, '2026-03-01');
    const s2 = await newSession(ctx, t, { groupId: closed.id }, '2026-03-01');
    await record(ctx, t, s1.id, people.slice(0, 3));
    await record(ctx, t, s2.id, people, 'Guest');
    const reader = api(ctx.app, (await newUser(ctx, t, ['attendance:read'])).token);
    expect((await reader.get('/api/attendance/records')).json().total).toBe(3);
    expect((await reader.get('/api/attendance/records?kind=Guest&from=2026-03-01')).json().total).toBe(0);
    expect((await api(ctx.app, t.admin.token).get('/api/attendance/records')).json().total).toBe(8);
  });
});
