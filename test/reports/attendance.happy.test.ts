import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../src/lib/periods.js';
import { api, setupTestApp } from '../helpers/app.js';
import { newTenant, type TestTenant } from '../helpers/factories.js';
import { addMembership, newActors, newContact, newGroup, newTree } from '../helpers/groups.factories.js';
import { newEvent } from '../helpers/events.factories.js';
import { tenantSql, thisWeek, today, weeksAgo } from './helpers.js';

const ctx = setupTestApp();

async function session(t: TestTenant, groupId: number, date: string, contacts: [number, string][], headcount = 0): Promise<number> {
  const res = await tenantSql(ctx, t, sql`insert into attendance_sessions (tenant_id, date, source, group_id) values (${t.id}, ${date}::date, 'Group', ${groupId}) returning id`);
  const id = Number((res as unknown as { rows: { id: unknown }[] }).rows[0].id);
  for (const [contactId, kind] of contacts) {
    await tenantSql(ctx, t, sql`insert into attendance_records (tenant_id, session_id, contact_id, kind) values (${t.id}, ${id}, ${contactId}, ${kind})`);
  }
  if (headcount) await tenantSql(ctx, t, sql`insert into attendance_headcounts (tenant_id, session_id, type, count) values (${t.id}, ${id}, 'Adults', ${headcount})`);
  return id;
}

describe('attendance reports', () => {
  let t: TestTenant;
  let tree: Awaited<ReturnType<typeof newTree>>;
  let actors: Awaited<ReturnType<typeof newActors>>;
  const s: Record<string, number> = {};
  const c: Record<string, number> = {};
  const d = { s1: addDays(weeksAgo(3), 1), s2: addDays(weeksAgo(2), 1), s3: addDays(weeksAgo(1), 1) };

  beforeAll(async () => {
    t = await newTenant(ctx);
    tree = await newTree(ctx, t);
    actors = await newActors(ctx, t, tree);
    for (const [k, last] of [['m1', 'Aa'], ['m2', 'Bb'], ['g1', 'Cc'], ['m3', 'Dd'], ['g2', 'Ee']]) c[k] = await newContact(ctx, t, k.toUpperCase(), last);
    for (const k of ['m1', 'm2', 'm3']) await addMembership(ctx, t, tree.fellowshipA1, c[k]);
    s.s1 = await session(t, tree.fellowshipA1.id, d.s1, [[c.m1, 'Regular'], [c.m2, 'Regular']], 10);
    s.s2 = await session(t, tree.fellowshipA1.id, d.s2, [[c.m1, 'Regular'], [c.g1, 'Guest']]);
    s.sb = await session(t, tree.fellowshipB1.id, d.s2, [[c.m3, 'Regular'], [c.g2, 'Guest']], 4);
    s.s3 = await session(t, tree.fellowshipA1.id, d.s3, [[c.m1, 'Regular']]);
    // Follow-up, serving and baptism facts.
    await tenantSql(ctx, t, sql`insert into tasks (tenant_id, title, contact_id) values (${t.id}, 'Call', ${c.g1})`);
    const cat = await tenantSql(ctx, t, sql`insert into group_categories (tenant_id, name, purpose) values (${t.id}, 'Serving teams', 'Serving') returning id`);
    void cat;
    const ushers = await newGroup(ctx, t, { name: 'Ushers', category: 'Serving teams', parent: tree.church });
    await addMembership(ctx, t, ushers, c.m2);
    await tenantSql(ctx, t, sql`insert into contact_occasions (tenant_id, contact_id, type, date) values (${t.id}, ${c.g1}, 'Baptism', '2020-01-01')`);
    const e = await newEvent(ctx, t, { name: 'Baptisms', startDate: d.s3 });
    expect((await api(ctx.app, t.admin.token).post(`/api/events/${e.id}/activities`, { activityType: 'Baptism', contactIds: [c.m3] })).statusCode).toBe(201);
  });

  const from = () => weeksAgo(3);

  it('attendance-trend per week, whole church and a zone leader\'s part', async () => {
    const admin = (await api(ctx.app, t.admin.token).get(`/api/reports/attendance-trend?from=${from()}`)).json();
    expect(admin.parameters).toEqual({ from: from(), to: today(), groupId: null, includeDescendants: true, interval: 'week' });
    expect(admin.rows).toEqual([
      { period: weeksAgo(3), sessions: 1, present: 2, guests: 0, firstTime: 2, headcount: 10 },
      { period: weeksAgo(2), sessions: 2, present: 4, guests: 2, firstTime: 3, headcount: 4 },
      { period: weeksAgo(1), sessions: 1, present: 1, guests: 0, firstTime: 0, headcount: 0 },
      { period: thisWeek(), sessions: 0, present: 0, guests: 0, firstTime: 0, headcount: 0 },
    ]);
    expect(admin.totals).toEqual({ sessions: 4, present: 7, guests: 2, firstTime: 5, headcount: 14 });
    const zr = await api(ctx.app, actors.zoneLeader.token).get(`/api/reports/attendance-trend?from=${from()}`);
    expect(zr.statusCode, zr.body).toBe(200);
    const zone = zr.json();
    expect(zone.totals).toEqual({ sessions: 3, present: 5, guests: 1, firstTime: 3, headcount: 10 });
    const b = (await api(ctx.app, t.admin.token).get(`/api/reports/attendance-trend?from=${from()}&groupId=${tree.zoneB.id}&interval=month`)).json();
    expect(b.totals).toEqual({ sessions: 1, present: 2, guests: 1, firstTime: 2, headcount: 4 });
  });

  it('attendance-by-group: sessions, average present, members, percent of members', async () => {
    const body = (await api(ctx.app, t.admin.token).get(`/api/reports/attendance-by-group?from=${from()}`)).json();
    expect(body.rows).toEqual([
      { group: { id: tree.fellowshipA1.id, name: 'Fellowship A1' }, sessions: 3, averagePresent: 1.67, members: 3, percentOfMembers: 55.67 },
      { group: { id: tree.fellowshipB1.id, name: 'Fellowship B1' }, sessions: 1, averagePresent: 2, members: 1, percentOfMembers: 200 },
    ]);
    expect(body.totals).toEqual({ groups: 2, sessions: 4, present: 7, averagePresent: 1.75, members: 4 });
    const zone = (await api(ctx.app, actors.zoneLeader.token).get(`/api/reports/attendance-by-group?from=${from()}`)).json();
    expect(zone.rows.map((r: { group: { id: number } }) => r.group.id)).toEqual([tree.fellowshipA1.id]);
  });

  it('first-time-guests with follow-up', async () => {
    const body = (await api(ctx.app, t.admin.token).get(`/api/reports/first-time-guests?from=${from()}`)).json();
    const A1 = { id: tree.fellowshipA1.id, name: 'Fellowship A1' };
    const B1 = { id: tree.fellowshipB1.id, name: 'Fellowship B1' };
    expect(body.rows).toEqual([
      { contact: { id: c.m1, firstName: 'M1', lastName: 'Aa' }, date: d.s1, session: { id: s.s1, name: 'Fellowship A1' }, group: A1, followedUp: false },
      { contact: { id: c.m2, firstName: 'M2', lastName: 'Bb' }, date: d.s1, session: { id: s.s1, name: 'Fellowship A1' }, group: A1, followedUp: false },
      { contact: { id: c.g1, firstName: 'G1', lastName: 'Cc' }, date: d.s2, session: { id: s.s2, name: 'Fellowship A1' }, group: A1, followedUp: true },
      { contact: { id: c.m3, firstName: 'M3', lastName: 'Dd' }, date: d.s2, session: { id: s.sb, name: 'Fellowship B1' }, group: B1, followedUp: false },
      { contact: { id: c.g2, firstName: 'G2', lastName: 'Ee' }, date: d.s2, session: { id: s.sb, name: 'Fellowship B1' }, group: B1, followedUp: false },
    ]);
    expect(body.totals).toEqual({ guests: 5, followedUp: 1, percentFollowedUp: 20 });
    const zone = (await api(ctx.app, actors.zoneLeader.token).get(`/api/reports/first-time-guests?from=${from()}&format=csv`)).body;
    expect(zone.split('\r\n')).toEqual([
      'Contact id,Contact,Date,Session id,Session,Group id,Group,Followed up',
      `${c.m1},M1 Aa,${d.s1},${s.s1},Fellowship A1,${A1.id},Fellowship A1,false`,
      `${c.m2},M2 Bb,${d.s1},${s.s1},Fellowship A1,${A1.id},Fellowship A1,false`,
      `${c.g1},G1 Cc,${d.s2},${s.s2},Fellowship A1,${A1.id},Fellowship A1,true`,
      '',
    ]);
  });

  it('absentees: members who missed their group\'s last sessions', async () => {
    const body = (await api(ctx.app, t.admin.token).get('/api/reports/absentees?missed=2')).json();
    const A1 = { id: tree.fellowshipA1.id, name: 'Fellowship A1' };
    expect(body.parameters).toMatchObject({ missed: 2 });
    expect(body.rows).toEqual([
      { contact: { id: c.m2, firstName: 'M2', lastName: 'Bb' }, group: A1, missedSessions: 2, lastAttendedOn: d.s1 },
      { contact: { id: c.m3, firstName: 'M3', lastName: 'Dd' }, group: A1, missedSessions: 2, lastAttendedOn: null },
    ]);
    expect(body.totals).toEqual({ absentees: 2, contacts: 2 });
    // Three sessions missed: only m3 (m2 came to the first).
    expect((await api(ctx.app, t.admin.token).get('/api/reports/absentees')).json().rows.map((r: { contact: { id: number } }) => r.contact.id)).toEqual([c.m3]);
  });

  it('retention-funnel: counts and percentages of the first visitors', async () => {
    const body = (await api(ctx.app, t.admin.token).get(`/api/reports/retention-funnel?from=${from()}`)).json();
    expect(body.rows.map((r: { stage: string; contacts: number; percent: number }) => [r.stage, r.contacts, r.percent])).toEqual([
      ['firstVisit', 5, 100], ['secondVisit', 1, 20], ['threePlusVisits', 1, 20], ['joinedGroup', 3, 60], ['serving', 1, 20], ['baptised', 2, 40],
    ]);
    const zone = (await api(ctx.app, actors.zoneLeader.token).get(`/api/reports/retention-funnel?from=${from()}`)).json();
    expect(zone.totals).toEqual({ firstVisit: 3, secondVisit: 1, threePlusVisits: 1, joinedGroup: 2, serving: 1, baptised: 1 });
  });

  it('retention-funnel: follows every write to the tables its facts come from, as counted from them', async () => {
    const window = { from: addDays(today(), -400), to: today() };
    const report = async () => (await api(ctx.app, t.admin.token).get(`/api/reports/retention-funnel?from=${window.from}&to=${window.to}`)).json().totals;
    // The funnel's rules counted from the source tables (the report's SQL before the facts were kept).
    const counted = async () => {
      const res = await tenantSql(ctx, t, sql`
        with fv as (select f.contact_id, f.date, f.visits, f.returned_on from contact_first_visits f
          where f.tenant_id = ${t.id} and f.first_kept and f.date between ${window.from}::date and ${window.to}::date)
        select count(*)::int as "firstVisit", (count(*) filter (where fv.returned_on <= fv.date + 30))::int as "secondVisit",
          (count(*) filter (where fv.visits >= 3))::int as "threePlusVisits",
          (count(*) filter (where exists (select 1 from group_memberships m where m.tenant_id = ${t.id} and m.contact_id = fv.contact_id and m.is_active)))::int as "joinedGroup",
          (count(*) filter (where exists (select 1 from group_memberships m join groups g on g.tenant_id = m.tenant_id and g.id = m.group_id
            join group_categories gc on gc.tenant_id = g.tenant_id and gc.id = g.category_id
            where m.tenant_id = ${t.id} and m.contact_id = fv.contact_id and m.is_active and gc.purpose = 'Serving')))::int as serving,
          (count(*) filter (where exists (select 1 from contact_occasions o where o.tenant_id = ${t.id} and o.contact_id = fv.contact_id and o.type = 'Baptism')
            or exists (select 1 from event_activity_contacts ac join event_activities a on a.tenant_id = ac.tenant_id and a.id = ac.activity_id
              where ac.tenant_id = ${t.id} and ac.contact_id = fv.contact_id and a.activity_type = 'Baptism')))::int as baptised
        from fv`);
      return (res as unknown as { rows: Record<string, number>[] }).rows[0];
    };
    const check = async (expected: Record<string, number>) => {
      expect(await counted()).toEqual(expected);
      expect(await report()).toEqual(expected);
    };
    const exec = (q: ReturnType<typeof sql>) => tenantSql(ctx, t, q);
    await check({ firstVisit: 5, secondVisit: 1, threePlusVisits: 1, joinedGroup: 3, serving: 1, baptised: 2 });
    // Memberships: a guest joins the serving team (joined, serving); m2 leaves it (still joined through A1).
    const ushers = Number(((await exec(sql`select id from groups where tenant_id = ${t.id} and name = 'Ushers'`)) as unknown as { rows: { id: unknown }[] }).rows[0].id);
    await exec(sql`insert into group_memberships (tenant_id, group_id, contact_id) values (${t.id}, ${ushers}, ${c.g2})`);
    await exec(sql`update group_memberships set is_active = false where tenant_id = ${t.id} and group_id = ${ushers} and contact_id = ${c.m2}`);
    await check({ firstVisit: 5, secondVisit: 1, threePlusVisits: 1, joinedGroup: 4, serving: 1, baptised: 2 });
    // A group moved to the serving category, then the category's purpose cleared.
    await exec(sql`update groups set category_id = (select id from group_categories where tenant_id = ${t.id} and name = 'Serving teams') where tenant_id = ${t.id} and id = ${tree.fellowshipA1.id}`);
    await check({ firstVisit: 5, secondVisit: 1, threePlusVisits: 1, joinedGroup: 4, serving: 4, baptised: 2 });
    await exec(sql`update group_categories set purpose = null where tenant_id = ${t.id} and name = 'Serving teams'`);
    await check({ firstVisit: 5, secondVisit: 1, threePlusVisits: 1, joinedGroup: 4, serving: 0, baptised: 2 });
    await exec(sql`update group_categories set purpose = 'Serving' where tenant_id = ${t.id} and name = 'Serving teams'`);
    // Baptisms: an occasion added then retyped; an activity retyped; the guest's membership deleted.
    await exec(sql`insert into contact_occasions (tenant_id, contact_id, type, date) values (${t.id}, ${c.m1}, 'Baptism', '2021-05-01')`);
    await check({ firstVisit: 5, secondVisit: 1, threePlusVisits: 1, joinedGroup: 4, serving: 4, baptised: 3 });
    await exec(sql`update contact_occasions set type = 'Anniversary' where tenant_id = ${t.id} and contact_id = ${c.m1} and type = 'Baptism'`);
    await exec(sql`update event_activities set activity_type = 'Dedication' where tenant_id = ${t.id} and activity_type = 'Baptism'`);
    await exec(sql`delete from group_memberships where tenant_id = ${t.id} and group_id = ${ushers} and contact_id = ${c.g2}`);
    await check({ firstVisit: 5, secondVisit: 1, threePlusVisits: 1, joinedGroup: 3, serving: 3, baptised: 1 });
    // Attendance: the guest g1 comes back twice (three visits, back within 30 days); g2's first record goes.
    await session(t, tree.fellowshipB1.id, addDays(d.s2, 3), [[c.g1, 'Guest']]);
    await session(t, tree.fellowshipB1.id, addDays(d.s2, 4), [[c.g1, 'Guest']]);
    await exec(sql`delete from attendance_records where tenant_id = ${t.id} and session_id = ${s.sb} and contact_id = ${c.g2}`);
    await check({ firstVisit: 4, secondVisit: 2, threePlusVisits: 2, joinedGroup: 3, serving: 3, baptised: 1 });
    // A new visitor, a deleted contact, a deleted session.
    const newcomer = await newContact(ctx, t, 'New', 'Visitor');
    await session(t, tree.fellowshipA2.id, today(), [[newcomer, 'Guest']]);
    await check({ firstVisit: 5, secondVisit: 2, threePlusVisits: 2, joinedGroup: 3, serving: 3, baptised: 1 });
    expect((await api(ctx.app, t.admin.token).delete(`/api/crm/contacts/${c.m3}`)).statusCode).toBe(204);
    await exec(sql`delete from attendance_sessions where tenant_id = ${t.id} and id = ${s.s3}`);
    await check(await counted());
    expect((await report()).firstVisit).toBe(4);
  });
});
