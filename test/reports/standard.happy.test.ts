import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../src/lib/periods.js';
import { api, setupTestApp } from '../helpers/app.js';
import { newPerson } from '../helpers/contacts.factories.js';
import { newEvent } from '../helpers/events.factories.js';
import { newTenant, type TestTenant } from '../helpers/factories.js';
import { addMembership, newActors, newContact, newTree } from '../helpers/groups.factories.js';
import { pastChange, tenantSql, today, weeksAgo } from './helpers.js';

const ctx = setupTestApp();
const zeros = { toActive: 0, toInactive: 0, toMovedAway: 0, toTransferredToAnotherChurch: 0, toDeceased: 0 };

describe('growth', () => {
  let t: TestTenant;
  let other: TestTenant;
  let tree: Awaited<ReturnType<typeof newTree>>;
  const c: number[] = [];

  beforeAll(async () => {
    t = await newTenant(ctx);
    other = await newTenant(ctx);
    tree = await newTree(ctx, t);
    for (let i = 0; i < 3; i++) c.push(await newContact(ctx, t, `G${i}`, 'Growth'));
    await addMembership(ctx, t, tree.fellowshipA1, c[0]);
    const created = (id: number, at: string) => pastChange(ctx, t, { type: 'contact.created', entityId: id, at, data: { contactId: id, status: 'Active' } });
    const status = (id: number, at: string, from: string, to: string) => pastChange(ctx, t, { type: 'contact.status_changed', entityId: id, at, data: { contactId: id, from, to } });
    await created(c[0], '2024-01-05T10:00:00Z');
    await created(c[1], '2024-01-31T23:59:00Z');
    await created(c[2], '2024-02-10T10:00:00Z');
    await status(c[0], '2024-02-11T10:00:00Z', 'Active', 'Inactive');
    await status(c[1], '2024-03-01T00:00:00Z', 'Active', 'MovedAway');
    await status(c[2], '2024-03-31T12:00:00Z', 'Inactive', 'Active');
    await created(c[2], '2023-12-31T23:30:00Z'); // outside the window
    await created(c[2], '2024-04-01T00:30:00Z'); // outside the window
    await pastChange(ctx, other, { type: 'contact.created', entityId: 1, at: '2024-01-10T10:00:00Z', data: {} }); // another tenant
  });

  it('counts new contacts and status changes per month from the change feed', async () => {
    const res = await api(ctx.app, t.admin.token).get('/api/reports/growth?from=2024-01-01&to=2024-03-31');
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.key).toBe('growth');
    expect(body.parameters).toEqual({ from: '2024-01-01', to: '2024-03-31', groupId: null, includeDescendants: true });
    expect(body.columns.map((x: { key: string }) => x.key)).toEqual(['month', 'newContacts', 'toActive', 'toInactive', 'toMovedAway', 'toTransferredToAnotherChurch', 'toDeceased']);
    expect(body.rows).toEqual([
      { month: '2024-01-01', newContacts: 2, ...zeros },
      { month: '2024-02-01', newContacts: 1, ...zeros, toInactive: 1 },
      { month: '2024-03-01', newContacts: 0, ...zeros, toMovedAway: 1, toActive: 1 },
    ]);
    expect(body.totals).toEqual({ newContacts: 3, ...zeros, toInactive: 1, toMovedAway: 1, toActive: 1 });
  });

  it('with groupId counts the members of the subtree only', async () => {
    const body = (await api(ctx.app, t.admin.token).get(`/api/reports/growth?from=2024-01-01&to=2024-03-31&groupId=${tree.zoneA.id}`)).json();
    expect(body.rows.map((r: { newContacts: number; toInactive: number }) => [r.newContacts, r.toInactive])).toEqual([[1, 0], [0, 1], [0, 0]]);
    const none = (await api(ctx.app, t.admin.token).get(`/api/reports/growth?from=2024-01-01&to=2024-03-31&groupId=${tree.zoneB.id}`)).json();
    expect(none.totals.newContacts).toBe(0);
  });

  it('months are the tenant time zone\'s', async () => {
    expect((await api(ctx.app, t.admin.token).put('/api/tenants/current', { timeZone: 'America/New_York' })).statusCode).toBe(200);
    const body = (await api(ctx.app, t.admin.token).get('/api/reports/growth?from=2024-01-01&to=2024-03-31')).json();
    // 2024-03-01T00:00Z is still February in New York; 2024-04-01T00:30Z is March 31st there.
    expect(body.rows.map((r: { newContacts: number; toMovedAway: number }) => [r.newContacts, r.toMovedAway])).toEqual([[2, 0], [1, 1], [1, 0]]);
    await api(ctx.app, t.admin.token).put('/api/tenants/current', { timeZone: 'UTC' });
  });

  it('CSV has the same rows', async () => {
    const res = await api(ctx.app, t.admin.token).get('/api/reports/growth?from=2024-01-01&to=2024-03-31&format=csv');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    // The file name says the report, its scope and its window.
    expect(res.headers['content-disposition']).toBe('attachment; filename="growth_all-groups_2024-01-01_to_2024-03-31.csv"');
    expect(res.body).toBe([
      'Month,New contacts,To Active,To Inactive,To MovedAway,To TransferredToAnotherChurch,To Deceased',
      '2024-01-01,2,0,0,0,0,0',
      '2024-02-01,1,0,1,0,0,0',
      '2024-03-01,0,1,0,1,0,0',
      '',
    ].join('\r\n'));
  });

  it('the CSV file name names the group (-only without its subtree) and the tenant-wide scope; Accept: text/csv asks for the CSV', async () => {
    const admin = api(ctx.app, t.admin.token);
    const disposition = async (url: string, accept?: string) => {
      const res = await ctx.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${t.admin.token}`, ...(accept ? { accept } : {}) } });
      expect(res.statusCode, res.body).toBe(200);
      return [res.headers['content-type'], res.headers['content-disposition']];
    };
    expect((await disposition(`/api/reports/growth?from=2024-01-01&to=2024-03-31&groupId=${tree.zoneA.id}&format=csv`))[1])
      .toBe('attachment; filename="growth_zone-a_2024-01-01_to_2024-03-31.csv"');
    expect((await disposition(`/api/reports/growth?from=2024-01-01&to=2024-03-31&groupId=${tree.zoneA.id}&includeDescendants=false&format=csv`))[1])
      .toBe('attachment; filename="growth_zone-a-only_2024-01-01_to_2024-03-31.csv"');
    expect((await disposition('/api/reports/giving-summary?from=2024-01-01&to=2024-03-31&format=csv'))[1])
      .toBe('attachment; filename="giving-summary_whole-church_2024-01-01_to_2024-03-31.csv"');
    const [type, name] = await disposition('/api/reports/growth?from=2024-01-01&to=2024-03-31', 'text/csv');
    expect(type).toMatch(/^text\/csv/);
    expect(name).toBe('attachment; filename="growth_all-groups_2024-01-01_to_2024-03-31.csv"');
    // Without that Accept the answer stays JSON.
    expect((await admin.get('/api/reports/growth?from=2024-01-01&to=2024-03-31')).headers['content-type']).toMatch(/^application\/json/);
  });
});

describe('occasions', () => {
  it('lists birthdays and anniversaries in the window with the years they mark', async () => {
    const t = await newTenant(ctx);
    const p1 = await newPerson(ctx, t, 'Ann', 'Alpha', { person: { firstName: 'Ann', lastName: 'Alpha', dateOfBirth: '1990-03-10' } });
    const p2 = await newPerson(ctx, t, 'Bob', 'Bravo', { person: { firstName: 'Bob', lastName: 'Bravo', dateOfBirth: '2000-07-01' }, occasions: [{ type: 'Anniversary', date: '2010-03-20' }] });
    await newPerson(ctx, t, 'Dee', 'Delta', { status: 'Deceased', person: { firstName: 'Dee', lastName: 'Delta', dateOfBirth: '1950-03-05' } });
    const p5 = await newPerson(ctx, t, 'Eve', 'Echo', { person: { firstName: 'Eve', lastName: 'Echo', dateOfBirth: '1985-03-10' }, occasions: [{ type: 'Birthday', date: '1985-03-10' }, { type: 'Baptism', date: '2001-03-11' }] });
    const leap = await newPerson(ctx, t, 'Lea', 'Leap', { person: { firstName: 'Lea', lastName: 'Leap', dateOfBirth: '2000-02-29' } });
    const body = (await api(ctx.app, t.admin.token).get('/api/reports/occasions?from=2025-02-27&to=2025-03-31')).json();
    expect(body.rows).toEqual([
      { contact: { id: leap.id, firstName: 'Lea', lastName: 'Leap' }, type: 'Birthday', date: '2000-02-29', nextOn: '2025-02-28', years: 25 },
      { contact: { id: p1.id, firstName: 'Ann', lastName: 'Alpha' }, type: 'Birthday', date: '1990-03-10', nextOn: '2025-03-10', years: 35 },
      { contact: { id: p5.id, firstName: 'Eve', lastName: 'Echo' }, type: 'Birthday', date: '1985-03-10', nextOn: '2025-03-10', years: 40 },
      { contact: { id: p2.id, firstName: 'Bob', lastName: 'Bravo' }, type: 'Anniversary', date: '2010-03-20', nextOn: '2025-03-20', years: 15 },
    ]);
    expect(body.totals).toEqual({ birthdays: 3, anniversaries: 1 });
    const csv = (await api(ctx.app, t.admin.token).get('/api/reports/occasions?from=2025-03-15&to=2025-03-31&format=csv')).body;
    expect(csv).toBe(`Contact id,Contact,Type,Date,Next on,Years\r\n${p2.id},Bob Bravo,Anniversary,2010-03-20,2025-03-20,15\r\n`);
    // Default window: the next 30 days.
    expect((await api(ctx.app, t.admin.token).get('/api/reports/occasions')).json().parameters).toMatchObject({ from: today(), to: addDays(today(), 30) });
  });

  it('windows over New Year, over 28 February and longer than a year (month-day ranges of the dates, then the exact days)', async () => {
    const t = await newTenant(ctx);
    const dec = await newPerson(ctx, t, 'Dec', 'Late', { person: { firstName: 'Dec', lastName: 'Late', dateOfBirth: '1990-12-30' } });
    const jan = await newPerson(ctx, t, 'Jan', 'Early', { person: { firstName: 'Jan', lastName: 'Early', dateOfBirth: '1991-01-02' }, occasions: [{ type: 'Anniversary', date: '2015-12-31' }] });
    const leap = await newPerson(ctx, t, 'Lea', 'Leap', { person: { firstName: 'Lea', lastName: 'Leap', dateOfBirth: '2000-02-29' } });
    await newPerson(ctx, t, 'Mid', 'Year', { person: { firstName: 'Mid', lastName: 'Year', dateOfBirth: '1980-06-15' }, occasions: [{ type: 'Anniversary', date: '2005-01-10' }] });
    const rows = async (from: string, to: string) =>
      ((await api(ctx.app, t.admin.token).get(`/api/reports/occasions?from=${from}&to=${to}`)).json().rows as { contact: { id: number }; type: string; nextOn: string; years: number }[])
        .map((r) => [r.contact.id, r.type, r.nextOn, r.years]);
    expect(await rows('2025-12-28', '2026-01-05')).toEqual([
      [dec.id, 'Birthday', '2025-12-30', 35],
      [jan.id, 'Anniversary', '2025-12-31', 10],
      [jan.id, 'Birthday', '2026-01-02', 35],
    ]);
    expect(await rows('2025-12-31', '2026-01-01')).toEqual([[jan.id, 'Anniversary', '2025-12-31', 10]]);
    // 29 February: on the 28th in other years, on the 29th in a leap year, and a window ending on the 28th takes it.
    expect(await rows('2025-02-01', '2025-02-28')).toEqual([[leap.id, 'Birthday', '2025-02-28', 25]]);
    expect(await rows('2024-02-28', '2024-02-28')).toEqual([]);
    expect(await rows('2024-02-29', '2024-03-01')).toEqual([[leap.id, 'Birthday', '2024-02-29', 24]]);
    expect(await rows('2025-12-01', '2026-02-28')).toEqual([
      [dec.id, 'Birthday', '2025-12-30', 35],
      [jan.id, 'Anniversary', '2025-12-31', 10],
      [jan.id, 'Birthday', '2026-01-02', 35],
      [expect.any(Number), 'Anniversary', '2026-01-10', 21],
      [leap.id, 'Birthday', '2026-02-28', 26],
    ]);
    // Longer than a year: every date, once per year it falls in.
    const long = await rows('2025-06-15', '2026-06-15');
    expect(long.length).toBe(7); // Dec, Jan (2), Lea, Mid twice and its anniversary
    expect(long.filter((r) => r[2] === '2025-06-15' || r[2] === '2026-06-15').map((r) => r[3])).toEqual([45, 46]);
  });
});

describe('group health and event activities', () => {
  let t: TestTenant;
  let tree: Awaited<ReturnType<typeof newTree>>;
  let actors: Awaited<ReturnType<typeof newActors>>;
  const c: number[] = [];

  beforeAll(async () => {
    t = await newTenant(ctx);
    tree = await newTree(ctx, t);
    actors = await newActors(ctx, t, tree);
    for (let i = 0; i < 4; i++) c.push(await newContact(ctx, t, `H${i}`, 'Health'));
    await addMembership(ctx, t, tree.fellowshipA1, c[0], 'Leader');
    await addMembership(ctx, t, tree.fellowshipA1, c[1]);
    await addMembership(ctx, t, tree.fellowshipA1, c[2], 'Member', false);
    await addMembership(ctx, t, tree.fellowshipB1, c[3], 'Assistant');
    await tenantSql(ctx, t, sql`insert into group_membership_requests (tenant_id, group_id, contact_id) values (${t.id}, ${tree.fellowshipA1.id}, ${c[3]})`);
    await pastChange(ctx, t, { type: 'membership.deleted', entityId: 999, at: new Date().toISOString(), data: { groupId: tree.fellowshipA1.id, contactId: c[3] } });
    await pastChange(ctx, t, { type: 'membership.updated', entityId: 998, at: new Date().toISOString(), changes: { isActive: { from: true, to: false } }, data: { groupId: tree.fellowshipA1.id } });
    await pastChange(ctx, t, { type: 'membership.deleted', entityId: 997, at: '2020-01-01T00:00:00Z', data: { groupId: tree.fellowshipA1.id } }); // outside
    await tenantSql(ctx, t, sql`insert into attendance_sessions (tenant_id, date, source, group_id) values
      (${t.id}, ${weeksAgo(1)}::date, 'Group', ${tree.fellowshipA1.id}), (${t.id}, ${weeksAgo(3)}::date, 'Group', ${tree.fellowshipA1.id})`);
    await tenantSql(ctx, t, sql`insert into attendance_sessions (tenant_id, date, source, group_id, did_not_meet) values (${t.id}, ${today()}::date, 'Group', ${tree.fellowshipA1.id}, true)`);

    const d = weeksAgo(1);
    const e1 = await newEvent(ctx, t, { name: 'A1 night', startDate: d, groupId: tree.fellowshipA1.id });
    const e2 = await newEvent(ctx, t, { name: 'B1 night', startDate: d, groupId: tree.fellowshipB1.id });
    const e3 = await newEvent(ctx, t, { name: 'Crusade', startDate: d });
    const e4 = await newEvent(ctx, t, { name: 'Old', startDate: '2020-01-05', groupId: tree.fellowshipA1.id });
    const admin = api(ctx.app, t.admin.token);
    const act = async (e: { id: number }, activityType: string, contactIds: number[]) =>
      expect((await admin.post(`/api/events/${e.id}/activities`, { activityType, contactIds })).statusCode).toBe(201);
    await act(e1, 'Salvation', [c[0], c[1]]);
    await act(e1, 'Salvation', [c[1]]);
    await act(e1, 'Baptism', [c[0]]);
    await act(e2, 'Salvation', [c[2]]);
    await act(e3, 'Testimony', [c[0]]);
    await act(e4, 'Salvation', [c[0]]);
  });

  it('group-health: members, leaders, joined, left, pending requests, last session', async () => {
    const body = (await api(ctx.app, t.admin.token).get(`/api/reports/group-health?from=${weeksAgo(4)}&groupId=${tree.clusterA.id}`)).json();
    expect(body.rows).toEqual([
      { group: { id: tree.clusterA.id, name: 'Cluster A' }, members: 0, leaders: 0, joined: 0, left: 0, pendingRequests: 0, lastSessionOn: null },
      { group: { id: tree.fellowshipA1.id, name: 'Fellowship A1' }, members: 2, leaders: 1, joined: 3, left: 2, pendingRequests: 1, lastSessionOn: weeksAgo(1) },
      { group: { id: tree.fellowshipA2.id, name: 'Fellowship A2' }, members: 1, leaders: 1, joined: 1, left: 0, pendingRequests: 0, lastSessionOn: null },
    ]);
    expect(body.totals).toEqual({ groups: 3, members: 3, leaders: 2, joined: 4, left: 2, pendingRequests: 1 });
  });

  it('group-health: a zone leader sees only visible groups; B1 stays out', async () => {
    const body = (await api(ctx.app, actors.zoneLeader.token).get('/api/reports/group-health')).json();
    expect(body.rows.map((r: { group: { name: string } }) => r.group.name)).toEqual(['Church', 'Cluster A', 'Fellowship A1', 'Fellowship A2', 'Location', 'Network', 'Zone A']);
    const admin = (await api(ctx.app, t.admin.token).get('/api/reports/group-health')).json();
    expect(admin.rows).toHaveLength(10);
    expect(admin.totals.members).toBe(1 + 1 + 1 + 2 + 1); // zone leader, A2 leader, B1 member, A1 (2), B1 assistant
  });

  it('event-activities per group and type, with totals; scoped for a zone leader', async () => {
    const url = `/api/reports/event-activities?from=${weeksAgo(2)}`;
    const body = (await api(ctx.app, t.admin.token).get(url)).json();
    const A1 = { id: tree.fellowshipA1.id, name: 'Fellowship A1' };
    expect(body.rows).toEqual([
      { group: A1, activityType: 'Baptism', count: 1, contacts: 1 },
      { group: A1, activityType: 'Salvation', count: 2, contacts: 2 },
      { group: { id: tree.fellowshipB1.id, name: 'Fellowship B1' }, activityType: 'Salvation', count: 1, contacts: 1 },
      { group: null, activityType: 'Testimony', count: 1, contacts: 1 },
    ]);
    expect(body.totals).toMatchObject({ count: 5, contacts: 3, byType: { Salvation: 3, Baptism: 1, Testimony: 1, Healing: 0 } });
    const zone = (await api(ctx.app, actors.zoneLeader.token).get(url)).json();
    expect(zone.rows.map((r: { activityType: string }) => r.activityType)).toEqual(['Baptism', 'Salvation', 'Testimony']);
    expect(zone.totals).toMatchObject({ count: 4, contacts: 2 });
    const sub = (await api(ctx.app, actors.zoneLeader.token).get(`${url}&groupId=${tree.zoneA.id}`)).json();
    expect(sub.totals).toMatchObject({ count: 3, contacts: 2 });
    const csv = (await api(ctx.app, actors.zoneLeader.token).get(`${url}&groupId=${tree.zoneA.id}&format=csv`)).body;
    expect(csv).toBe(`Group id,Group,Activity,Activities,Contacts\r\n${A1.id},Fellowship A1,Baptism,1,1\r\n${A1.id},Fellowship A1,Salvation,2,2\r\n`);
  });
});
