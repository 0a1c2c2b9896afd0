import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { withTenant } from '../../src/db/client.js';
import { api, setupTestApp } from '../helpers/app.js';
import { newTenant, type TestTenant } from '../helpers/factories.js';
import { addMembership, newTree } from '../helpers/groups.factories.js';
import { attended, company, daysFromToday, event, gave, ids, person } from './fixtures.js';

const ctx = setupTestApp();

type Key = 'A' | 'B' | 'C' | 'D' | 'X';
type Cond = { field: string; operator: string; value?: unknown };

/** `date` moved back by whole years. */
const yearsBefore = (date: string, years: number) => `${String(Number(date.slice(0, 4)) - years).padStart(4, '0')}${date.slice(4)}`;

/*
 * The tenant's contacts:
 * A  Person Ána Smith, Female, Married, Teacher, Active, 29 (birthday in 3 days), Kampala/Uganda,
 *    member of Fellowship A1, attended 5 and 100 days ago (first visit 100 days ago), gave 10 days ago
 * B  Person Bob Jones, Male, Single, Inactive, 40 today, Leader of Zone B (private),
 *    attended 5 days ago (first visit), a refunded gift yesterday
 * C  Company Acme Ltd, Active, Entebbe/Uganda
 * D  Person Dan Smithers, Male, Widowed, Farmer, MovedAway, 70 (birthday 10 days ago), inactive
 *    member of Cluster A, attended 100 days ago, gave 200 days ago, created 400 days ago
 * X  Person Church Administrator (the tenant's admin), Active, nothing else
 */
const dobA = yearsBefore(daysFromToday(3), 30);
const dobB = yearsBefore(daysFromToday(0), 40);
const dobD = yearsBefore(daysFromToday(-10), 70);

const c = (field: string, operator: string, value?: unknown): Cond => (value === undefined ? { field, operator } : { field, operator, value });

const CASES: [string, Cond[], Key[]][] = [
  ['firstName eq (accent/case-insensitive)', [c('firstName', 'eq', 'ana')], ['A']],
  ['firstName neq (a company has no first name)', [c('firstName', 'neq', 'Bob')], ['A', 'C', 'D', 'X']],
  ['firstName in', [c('firstName', 'in', ['bob', 'DAN'])], ['B', 'D']],
  ['firstName contains', [c('firstName', 'contains', 'O')], ['B']],
  ['firstName startsWith', [c('firstName', 'startsWith', 'da')], ['D']],
  ['firstName isEmpty', [c('firstName', 'isEmpty')], ['C']],
  ['firstName isEmpty false', [c('firstName', 'isEmpty', false)], ['A', 'B', 'D', 'X']],
  ['lastName eq', [c('lastName', 'eq', 'SMITH')], ['A']],
  ['lastName contains', [c('lastName', 'contains', 'smith')], ['A', 'D']],
  ['lastName startsWith', [c('lastName', 'startsWith', 'jo')], ['B']],
  ['gender eq', [c('gender', 'eq', 'Female')], ['A']],
  ['gender neq', [c('gender', 'neq', 'Female')], ['B', 'C', 'D', 'X']],
  ['gender in', [c('gender', 'in', ['Male'])], ['B', 'D']],
  ['gender isEmpty', [c('gender', 'isEmpty', true)], ['C', 'X']],
  ['gender contains', [c('gender', 'contains', 'fem')], ['A']],
  ['civilStatus eq', [c('civilStatus', 'eq', 'Married')], ['A']],
  ['civilStatus in', [c('civilStatus', 'in', ['Single', 'Widowed'])], ['B', 'D']],
  ['civilStatus startsWith', [c('civilStatus', 'startsWith', 'wid')], ['D']],
  ['occupation contains', [c('occupation', 'contains', 'each')], ['A']],
  ['occupation eq', [c('occupation', 'eq', 'farmer')], ['D']],
  ['occupation isEmpty', [c('occupation', 'isEmpty')], ['B', 'C', 'X']],
  ['status eq', [c('status', 'eq', 'Inactive')], ['B']],
  ['status neq', [c('status', 'neq', 'Active')], ['B', 'D']],
  ['status in', [c('status', 'in', ['MovedAway', 'Inactive'])], ['B', 'D']],
  ['status isEmpty (never)', [c('status', 'isEmpty')], []],
  ['category eq', [c('category', 'eq', 'Company')], ['C']],
  ['category neq', [c('category', 'neq', 'Company')], ['A', 'B', 'D', 'X']],
  ['city eq (any address)', [c('city', 'eq', 'kampala')], ['A']],
  ['city neq', [c('city', 'neq', 'Kampala')], ['B', 'C', 'D', 'X']],
  ['city contains', [c('city', 'contains', 'EBBE')], ['C']],
  ['city startsWith', [c('city', 'startsWith', 'kam')], ['A']],
  ['city isEmpty', [c('city', 'isEmpty')], ['B', 'D', 'X']],
  ['city in', [c('city', 'in', ['Entebbe', 'Gulu'])], ['C']],
  ['country eq', [c('country', 'eq', 'uganda')], ['A', 'C']],
  ['country in', [c('country', 'in', ['Kenya', 'Uganda'])], ['A', 'C']],
  ['country isEmpty false', [c('country', 'isEmpty', false)], ['A', 'C']],
  ['age eq', [c('age', 'eq', 29)], ['A']],
  ['age eq (birthday today)', [c('age', 'eq', 40)], ['B']],
  ['age gt', [c('age', 'gt', 39)], ['B', 'D']],
  ['age lt', [c('age', 'lt', 40)], ['A']],
  ['age between (inclusive)', [c('age', 'between', [40, 70])], ['B', 'D']],
  ['age between (nobody)', [c('age', 'between', [41, 69])], []],
  ['dateOfBirth eq', [c('dateOfBirth', 'eq', dobB)], ['B']],
  ['dateOfBirth lt', [c('dateOfBirth', 'lt', dobB)], ['D']],
  ['dateOfBirth gt', [c('dateOfBirth', 'gt', dobB)], ['A']],
  ['dateOfBirth between', [c('dateOfBirth', 'between', [dobD, dobB])], ['B', 'D']],
  ['birthdayInDays lt 4', [c('birthdayInDays', 'lt', 4)], ['A', 'B']],
  ['birthdayInDays lt 1 (today)', [c('birthdayInDays', 'lt', 1)], ['B']],
  ['role eq Leader', [c('role', 'eq', 'Leader')], ['B']],
  ['role eq Member (active memberships only)', [c('role', 'eq', 'Member')], ['A']],
  ['attendedWithinDays', [c('attendedWithinDays', 'lt', 30)], ['A', 'B']],
  ['attendedWithinDays (longer)', [c('attendedWithinDays', 'lt', 200)], ['A', 'B', 'D']],
  ['notAttendedWithinDays', [c('notAttendedWithinDays', 'lt', 30)], ['C', 'D', 'X']],
  ['firstVisitWithinDays', [c('firstVisitWithinDays', 'lt', 30)], ['B']],
  ['gaveWithinDays (refunds do not count)', [c('gaveWithinDays', 'lt', 30)], ['A']],
  ['gaveWithinDays (longer)', [c('gaveWithinDays', 'lt', 365)], ['A', 'D']],
  ['notGaveWithinDays', [c('notGaveWithinDays', 'lt', 30)], ['B', 'C', 'D', 'X']],
  ['createdWithinDays', [c('createdWithinDays', 'lt', 30)], ['A', 'B', 'C', 'X']],
  ['createdWithinDays (longer)', [c('createdWithinDays', 'lt', 500)], ['A', 'B', 'C', 'D', 'X']],
];

describe('POST /api/search/contacts', () => {
  let t: TestTenant;
  let tree: Awaited<ReturnType<typeof newTree>>;
  const id = {} as Record<Key, number>;
  const post = (body: unknown) => api(ctx.app, t.admin.token).post('/api/search/contacts', body as object);
  const keysOf = (found: number[]) => found.map((x) => (Object.keys(id) as Key[]).find((k) => id[k] === x) ?? String(x)).sort();

  beforeAll(async () => {
    t = await newTenant(ctx);
    tree = await newTree(ctx, t);
    id.X = t.admin.contactId;
    id.A = await person(ctx, t, 'Ána', 'Smith', {
      person: { gender: 'Female', civilStatus: 'Married', occupation: 'Teacher', dateOfBirth: dobA },
      addresses: [{ street: '1 Main St', city: 'Kampala', country: 'Uganda' }],
      emails: [{ value: 'ana@example.org' }],
    });
    id.B = await person(ctx, t, 'Bob', 'Jones', { status: 'Inactive', person: { gender: 'Male', civilStatus: 'Single', dateOfBirth: dobB } });
    id.C = await company(ctx, t, 'Acme Ltd', { addresses: [{ city: 'Entebbe', country: 'Uganda' }], phones: [{ value: '0700 000 001' }] });
    id.D = await person(ctx, t, 'Dan', 'Smithers', { status: 'MovedAway', person: { gender: 'Male', civilStatus: 'Widowed', occupation: 'Farmer', dateOfBirth: dobD } });
    await addMembership(ctx, t, tree.fellowshipA1, id.A, 'Member');
    await addMembership(ctx, t, tree.zoneB, id.B, 'Leader');
    await addMembership(ctx, t, tree.clusterA, id.D, 'Member', false);
    const recent = await event(ctx, t, 'Recent service', daysFromToday(-5));
    const older = await event(ctx, t, 'Older service', daysFromToday(-100));
    await attended(ctx, t, older, [id.A, id.D]);
    await attended(ctx, t, recent, [id.A, id.B]);
    await gave(ctx, t, id.A, daysFromToday(-10));
    await gave(ctx, t, id.D, daysFromToday(-200));
    await gave(ctx, t, id.B, daysFromToday(-1), 'Refunded');
    await withTenant(ctx.db, t.id, (tx) => tx.execute(sql`update contacts set created_at = now() - interval '400 days' where tenant_id = ${t.id} and id = ${id.D}`));
  });

  it.each(CASES)('%s', async (_name, conditions, expected) => {
    const res = await post({ conditions, limit: 100 });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(keysOf(ids(body))).toEqual([...expected].sort());
    expect(body.total).toBe(expected.length);
  });

  it('memberOf: active memberships in the group or its subtree', async () => {
    const member = async (field: string, groupId: number) => keysOf(ids((await post({ conditions: [c(field, 'eq', groupId)] })).json()));
    expect(await member('memberOf', tree.church.id)).toEqual(['A', 'B']);
    expect(await member('memberOf', tree.zoneA.id)).toEqual(['A']);
    expect(await member('memberOf', tree.zoneB.id)).toEqual(['B']);
    expect(await member('memberOf', tree.clusterA.id)).toEqual(['A']); // D's membership is inactive
    expect(await member('memberOf', tree.fellowshipA2.id)).toEqual([]);
    expect(await member('notMemberOf', tree.zoneA.id)).toEqual(['B', 'C', 'D', 'X']);
    expect(await member('notMemberOf', tree.church.id)).toEqual(['C', 'D', 'X']);
  });

  it('match all (default) and match any', async () => {
    const both = [c('gender', 'eq', 'Male'), c('status', 'eq', 'Inactive')];
    expect(keysOf(ids((await post({ conditions: both })).json()))).toEqual(['B']);
    expect(keysOf(ids((await post({ match: 'all', conditions: both })).json()))).toEqual(['B']);
    const either = [c('gender', 'eq', 'Female'), c('status', 'eq', 'MovedAway')];
    expect(keysOf(ids((await post({ match: 'any', conditions: either })).json()))).toEqual(['A', 'D']);
    const mixed = [c('memberOf', 'eq', tree.zoneB.id), c('attendedWithinDays', 'lt', 30), c('city', 'eq', 'Entebbe')];
    expect(keysOf(ids((await post({ match: 'any', conditions: mixed })).json()))).toEqual(['A', 'B', 'C']);
    expect(keysOf(ids((await post({ match: 'all', conditions: mixed })).json()))).toEqual([]);
  });

  it('answers the contacts list item shape', async () => {
    const body = (await post({ conditions: [c('firstName', 'eq', 'Ána')] })).json();
    expect(body).toEqual({
      data: [{ id: id.A, category: 'Person', status: 'Active', person: { firstName: 'Ána', lastName: 'Smith', gender: 'Female' }, emails: [{ value: 'ana@example.org', isPrimary: true }], phones: [] }],
      total: 1, page: 1, limit: 20,
    });
    const acme = (await post({ conditions: [c('category', 'eq', 'Company')] })).json().data[0];
    expect(acme).toEqual({ id: id.C, category: 'Company', status: 'Active', company: { name: 'Acme Ltd' }, emails: [], phones: [{ value: '0700 000 001', isPrimary: true }] });
  });

  it('sorts by last name by default, and by the allowed sorts', async () => {
    const everyone = [c('createdWithinDays', 'lt', 500)];
    const order = async (sort?: string) =>
      ((await post({ conditions: everyone, ...(sort ? { sort } : {}) })).json().data as { id: number }[]).map((x) => keysOf([x.id])[0]);
    // Last names: Acme Ltd (company), Administrator, Jones, Smith, Smithers.
    expect(await order()).toEqual(['C', 'X', 'B', 'A', 'D']);
    expect(await order('lastName')).toEqual(['C', 'X', 'B', 'A', 'D']);
    expect(await order('-lastName')).toEqual(['D', 'A', 'B', 'X', 'C']);
    expect((await order('firstName'))[0]).toBe('C'); // a company sorts with an empty first name
    expect(await order('createdAt')).toEqual(['D', 'X', 'A', 'B', 'C']);
    expect(await order('-createdAt')).toEqual(['C', 'B', 'A', 'X', 'D']);
  });

  it('pages with the true total; a page past the end is empty with the total', async () => {
    const everyone = [c('createdWithinDays', 'lt', 500)];
    const p2 = (await post({ conditions: everyone, page: 2, limit: 2 })).json();
    expect(p2).toMatchObject({ total: 5, page: 2, limit: 2 });
    expect(p2.data.map((x: { id: number }) => x.id)).toEqual([id.B, id.A]);
    const past = (await post({ conditions: everyone, page: 9, limit: 2 })).json();
    expect(past).toEqual({ data: [], total: 5, page: 9, limit: 2 });
    expect((await post({ conditions: everyone, limit: 500 })).json().limit).toBe(100);
  });

  it('reflects writes at once (no cache)', async () => {
    const before = (await post({ conditions: [c('city', 'eq', 'Gulu')] })).json();
    expect(before.total).toBe(0);
    const res = await api(ctx.app, t.admin.token).put(`/api/crm/contacts/${id.X}`, { addresses: [{ city: 'Gulu' }] });
    expect(res.statusCode, res.body).toBe(200);
    expect(keysOf(ids((await post({ conditions: [c('city', 'eq', 'Gulu')] })).json()))).toEqual(['X']);
    await api(ctx.app, t.admin.token).put(`/api/crm/contacts/${id.X}`, { addresses: [] });
  });
});
