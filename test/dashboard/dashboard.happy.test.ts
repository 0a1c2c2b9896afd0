import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { addDays, dayOfWeek } from '../../src/lib/periods.js';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newPerson } from '../helpers/contacts.factories.js';
import { newEvent } from '../helpers/events.factories.js';
import { newTenant, newUser, type TestTenant, type TestUser } from '../helpers/factories.js';
import { addMembership, newActors, newContact, newTree } from '../helpers/groups.factories.js';
import { changesOf, pastChange, tenantSql, thisWeek, today, weeksAgo } from '../reports/helpers.js';

const ctx = setupTestApp();
const idOf = (res: unknown) => Number((res as { rows: { id: unknown }[] }).rows[0].id);

describe('dashboard', () => {
  let t: TestTenant;
  let tree: Awaited<ReturnType<typeof newTree>>;
  let actors: Awaited<ReturnType<typeof newActors>>;
  let treasurer: TestUser;
  const c: Record<string, number> = {};
  const e: Record<string, number> = {};
  let fund: number;

  async function session(groupId: number, date: string, contactIds: number[]) {
    const id = idOf(await tenantSql(ctx, t, sql`insert into attendance_sessions (tenant_id, date, source, group_id) values (${t.id}, ${date}::date, 'Group', ${groupId}) returning id`));
    for (const contactId of contactIds) await tenantSql(ctx, t, sql`insert into attendance_records (tenant_id, session_id, contact_id) values (${t.id}, ${id}, ${contactId})`);
  }

  beforeAll(async () => {
    t = await newTenant(ctx);
    tree = await newTree(ctx, t);
    actors = await newActors(ctx, t, tree);
    treasurer = await newUser(ctx, t, 'Treasurer');
    for (const k of ['m1', 'm2', 'm3']) c[k] = await newContact(ctx, t, k, 'Member');
    await addMembership(ctx, t, tree.fellowshipA1, c.m1);
    await addMembership(ctx, t, tree.fellowshipA1, c.m2);
    const md = today().slice(5);
    const bday = await newPerson(ctx, t, 'Bea', 'Birthday', { person: { firstName: 'Bea', lastName: 'Birthday', dateOfBirth: md === '02-29' ? '1992-02-29' : `1990-${md}` } });
    c.bday = bday.id;
    await newPerson(ctx, t, 'New', 'Comer');
    await pastChange(ctx, t, { type: 'contact.created', entityId: c.m3, at: `${addDays(weeksAgo(5), 2)}T12:00:00Z`, data: { contactId: c.m3 } });
    await session(tree.fellowshipA1.id, addDays(weeksAgo(5), 1), [c.m1]);
    await session(tree.fellowshipB1.id, addDays(weeksAgo(2), 1), [c.m3]);
    await session(tree.fellowshipA1.id, addDays(weeksAgo(1), 1), [c.m1, c.m2]);
    fund = idOf(await tenantSql(ctx, t, sql`insert into funds (tenant_id, name) values (${t.id}, 'General') returning id`));
    for (const [date, amount] of [[addDays(today(), -1), 5000], [addDays(weeksAgo(5), 1), 2500]] as const) {
      const id = idOf(await tenantSql(ctx, t, sql`insert into contributions (tenant_id, contact_id, date, amount, method) values (${t.id}, ${c.m1}, ${date}::date, ${amount}, 'Cash') returning id`));
      await tenantSql(ctx, t, sql`insert into contribution_lines (tenant_id, contribution_id, fund_id, amount) values (${t.id}, ${id}, ${fund}, ${amount})`);
    }
    e.a1 = (await newEvent(ctx, t, { name: 'A1 picnic', startDate: addDays(today(), 1), groupId: tree.fellowshipA1.id })).id;
    e.b1 = (await newEvent(ctx, t, { name: 'B1 retreat', startDate: addDays(today(), 2), groupId: tree.fellowshipB1.id })).id;
    e.open = (await newEvent(ctx, t, { name: 'Crusade', startDate: addDays(today(), 3) })).id;
    await newEvent(ctx, t, { name: 'Past', startDate: addDays(today(), -3) });
    await tenantSql(ctx, t, sql`insert into event_registrations (tenant_id, event_id, contact_id) values (${t.id}, ${e.a1}, ${c.m1}), (${t.id}, ${e.a1}, ${c.m2})`);
    await tenantSql(ctx, t, sql`insert into tasks (tenant_id, title, assignee_user_id, due_date) values (${t.id}, 'Mine', ${t.admin.id}, ${addDays(today(), -1)}::date)`);
    await tenantSql(ctx, t, sql`insert into tasks (tenant_id, title, assignee_user_id, status) values (${t.id}, 'Done', ${t.admin.id}, 'Done')`);
    await tenantSql(ctx, t, sql`insert into tasks (tenant_id, title, group_id) values (${t.id}, 'Anyone', ${tree.fellowshipA1.id})`);
    await tenantSql(ctx, t, sql`insert into contact_requests (tenant_id, contact_id, type) values (${t.id}, ${c.m1}, 'Counseling'), (${t.id}, ${c.m2}, 'Prayer')`);
  });

  it('admin: every section, the window and the previous one', async () => {
    const res = await api(ctx.app, t.admin.token).get('/api/dashboard');
    expect(res.statusCode, res.body).toBe(200);
    const d = res.json();
    expect(Object.keys(d).sort()).toEqual(['attendance', 'care', 'currency', 'events', 'giving', 'groups', 'occasions', 'people', 'period', 'previousPeriod', 'tasks']);
    const len = 21 + dayOfWeek(today()) + 1;
    expect(d.period).toEqual({ from: weeksAgo(3), to: today() });
    expect(d.previousPeriod).toEqual({ from: addDays(weeksAgo(3), -len), to: addDays(weeksAgo(3), -1) });
    const created = (await changesOf(ctx, t, 'contact.created')).length - 1;
    const [{ n }] = (await tenantSql(ctx, t, sql`select count(*) as n from contacts where tenant_id = ${t.id}`) as unknown as { rows: { n: unknown }[] }).rows;
    expect(d.people).toEqual({ total: Number(n), byStatus: { Active: Number(n), Inactive: 0, MovedAway: 0, TransferredToAnotherChurch: 0, Deceased: 0 }, newInPeriod: created, changePct: (created - 1) * 100 });
    expect(d.attendance).toEqual({
      averagePresent: 1.5, changePct: 50, firstTimeGuests: 2,
      series: [{ period: weeksAgo(3), present: 0 }, { period: weeksAgo(2), present: 1 }, { period: weeksAgo(1), present: 2 }, { period: thisWeek(), present: 0 }],
    });
    expect(d.giving).toEqual({ total: 5000, donors: 1, averageGift: 5000, changePct: 100, byFund: [{ fund: { id: fund, name: 'General' }, amount: 5000 }] });
    expect(d.groups.count).toBe(10);
    expect(d.events.upcoming).toEqual([
      { id: e.a1, name: 'A1 picnic', startDate: addDays(today(), 1), registrations: 2 },
      { id: e.b1, name: 'B1 retreat', startDate: addDays(today(), 2), registrations: 0 },
      { id: e.open, name: 'Crusade', startDate: addDays(today(), 3), registrations: 0 },
    ]);
    expect(d.tasks).toEqual({ myOpen: 1, myOverdue: 1, unassigned: 1 });
    expect(d.care).toEqual({ openRequests: 1 });
    expect(d.occasions.birthdays.map((o: { contact: { id: number } }) => o.contact.id)).toEqual([c.bday]);
    expect(d.occasions.anniversaries).toEqual([]);
    expect(d.currency).toBe('USD');
  });

  it('zone leader: their part of the tree; no giving, care', async () => {
    const d = (await api(ctx.app, actors.zoneLeader.token).get('/api/dashboard')).json();
    expect(Object.keys(d).sort()).toEqual(['attendance', 'currency', 'events', 'groups', 'occasions', 'people', 'period', 'previousPeriod', 'tasks']);
    expect(d.attendance).toMatchObject({ averagePresent: 2, changePct: 100, firstTimeGuests: 1 });
    expect(d.attendance.series.map((p: { present: number }) => p.present)).toEqual([0, 0, 2, 0]);
    expect(d.groups).toEqual({ count: 7, members: 2 + 2, pendingRequests: 0 }); // zone leader, A2 leader, m1, m2
    expect(d.events.upcoming.map((x: { id: number }) => x.id)).toEqual([e.a1, e.open]);
    expect(d.tasks).toEqual({ myOpen: 0, myOverdue: 0, unassigned: 1 });
    const a2 = (await api(ctx.app, actors.zoneLeader.token).get(`/api/dashboard?groupId=${tree.fellowshipA2.id}`)).json();
    expect(a2.attendance).toMatchObject({ averagePresent: 0, changePct: null, firstTimeGuests: 0 });
    expect(a2.events.upcoming).toEqual([]);
    expect(a2.tasks.unassigned).toBe(0);
  });

  it('member: groups, events and own tasks only', async () => {
    const d = (await api(ctx.app, actors.member.token).get('/api/dashboard')).json();
    expect(Object.keys(d).sort()).toEqual(['currency', 'events', 'groups', 'period', 'previousPeriod', 'tasks']);
    expect(d.tasks).toEqual({ myOpen: 0, myOverdue: 0, unassigned: 0 });
    // A member of B1 sees it (and the public groups) and its events.
    expect(d.events.upcoming.map((x: { id: number }) => x.id)).toEqual([e.a1, e.b1, e.open]);
  });

  it('treasurer: people, giving, occasions and tasks', async () => {
    const d = (await api(ctx.app, treasurer.token).get('/api/dashboard')).json();
    expect(Object.keys(d).sort()).toEqual(['currency', 'giving', 'occasions', 'people', 'period', 'previousPeriod', 'tasks']);
    expect(d.giving.total).toBe(5000);
  });

  it('a chosen window is compared with the same length before it', async () => {
    const d = (await api(ctx.app, t.admin.token).get(`/api/dashboard?from=${addDays(today(), -6)}&to=${today()}`)).json();
    expect(d.previousPeriod).toEqual({ from: addDays(today(), -13), to: addDays(today(), -7) });
    expect(d.giving).toMatchObject({ total: 5000, changePct: null });
  });

  it('unassigned: the count kept at commit follows inserts, assignment, completion, confidentiality, group moves and deletes', async () => {
    const unassigned = async (token: string) => (await api(ctx.app, token).get('/api/dashboard')).json().tasks.unassigned as number;
    const all = async () => {
      const [{ n }] = (await tenantSql(ctx, t, sql`select count(*) as n from tasks where tenant_id = ${t.id} and assignee_user_id is null and status in ('Open', 'InProgress')`) as unknown as { rows: { n: unknown }[] }).rows;
      return Number(n);
    };
    const task = async (title: string, values: { groupId?: number | null; confidential?: boolean; createdBy?: number | null; status?: string }) =>
      idOf(await tenantSql(ctx, t, sql`insert into tasks (tenant_id, title, group_id, confidential, created_by_user_id, status)
        values (${t.id}, ${title}, ${values.groupId ?? null}, ${values.confidential ?? false}, ${values.createdBy ?? null}, ${values.status ?? 'Open'}) returning id`));
    const admin = t.admin.token, leader = actors.zoneLeader.token;
    expect([await unassigned(admin), await unassigned(leader)]).toEqual([1, 1]);
    // B1 is outside the zone leader's part of the tree; a confidential task needs care:read or to be one's own.
    const b1 = await task('B1 follow-up', { groupId: tree.fellowshipB1.id });
    const secret = await task('A1 confidential', { groupId: tree.fellowshipA1.id, confidential: true, createdBy: t.admin.id });
    const mineSecret = await task('Own confidential, no group', { confidential: true, createdBy: actors.zoneLeader.id });
    const a2 = await task('A2 in progress', { groupId: tree.fellowshipA2.id, status: 'InProgress' });
    await task('Done already', { groupId: tree.fellowshipA1.id, status: 'Done' });
    expect(await all()).toBe(5);
    expect([await unassigned(admin), await unassigned(leader)]).toEqual([5, 3]); // leader: Anyone, own confidential, A2
    // Several rows in one statement: assigned, then completed, then back to open and unassigned.
    await tenantSql(ctx, t, sql`update tasks set assignee_user_id = ${t.admin.id} where tenant_id = ${t.id} and id in (${a2}, ${b1})`);
    expect([await unassigned(admin), await unassigned(leader)]).toEqual([3, 2]);
    await tenantSql(ctx, t, sql`update tasks set status = 'Done', assignee_user_id = null where tenant_id = ${t.id} and id in (${a2}, ${b1})`);
    expect([await unassigned(admin), await unassigned(leader)]).toEqual([3, 2]);
    await tenantSql(ctx, t, sql`update tasks set status = 'Open' where tenant_id = ${t.id} and id = ${a2}`);
    expect([await unassigned(admin), await unassigned(leader)]).toEqual([4, 3]);
    // Moved out of the leader's tree, made public, deleted.
    await tenantSql(ctx, t, sql`update tasks set group_id = ${tree.fellowshipB1.id} where tenant_id = ${t.id} and id = ${a2}`);
    await tenantSql(ctx, t, sql`update tasks set confidential = false where tenant_id = ${t.id} and id = ${secret}`);
    expect([await unassigned(admin), await unassigned(leader)]).toEqual([4, 3]); // leader: Anyone, A1 (no longer confidential), own
    await tenantSql(ctx, t, sql`delete from tasks where tenant_id = ${t.id} and id in (${mineSecret}, ${secret})`);
    expect([await unassigned(admin), await unassigned(leader)]).toEqual([2, 1]);
    // A rolled-back write leaves the count as it was.
    await expect(
      tenantSql(ctx, t, sql`with x as (insert into tasks (tenant_id, title) values (${t.id}, 'Rolled back') returning id) select 1 / 0 from x`),
    ).rejects.toThrow();
    expect(await all()).toBe(2);
    expect(await unassigned(admin)).toBe(2);
  });
});

describe('dashboard: bad input and security', () => {
  it('401 without a token; window errors 400; unknown group 404', async () => {
    const t = await newTenant(ctx);
    expect((await api(ctx.app).get('/api/dashboard')).statusCode).toBe(401);
    const admin = api(ctx.app, t.admin.token);
    expect(expectError(await admin.get('/api/dashboard?from=2025-02-01&to=2025-01-01'), 400)).toMatch(/from/);
    expect(expectError(await admin.get('/api/dashboard?from=2019-01-01&to=2025-01-01'), 400)).toMatch(/5 years/);
    expect(expectError(await admin.get('/api/dashboard?from=2025-02-30'), 400)).toMatch(/from/);
    expect(expectError(await admin.get('/api/dashboard?groupId=999999'), 404)).toBe('Group with id 999999 not found');
  });

  it("another tenant's data is never counted", async () => {
    const t = await newTenant(ctx);
    const d = (await api(ctx.app, t.admin.token).get('/api/dashboard')).json();
    expect(d.giving).toEqual({ total: 0, donors: 0, averageGift: 0, changePct: null, byFund: [] });
    expect(d.attendance).toMatchObject({ averagePresent: 0, firstTimeGuests: 0 });
    expect(d.events.upcoming).toEqual([]);
    expect(d.tasks).toEqual({ myOpen: 0, myOverdue: 0, unassigned: 0 });
    expect(d.care).toEqual({ openRequests: 0 });
    expect(d.groups).toEqual({ count: 0, members: 0, pendingRequests: 0 });
  });
});
