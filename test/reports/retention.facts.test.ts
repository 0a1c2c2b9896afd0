import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { withTenant } from '../../src/db/client.js';
import { addDays } from '../../src/lib/periods.js';
import { newSession, record } from '../helpers/attendance.factories.js';
import { api, setupTestApp } from '../helpers/app.js';
import { newTenant, type TestTenant } from '../helpers/factories.js';
import { addMembership, newContact, newTree } from '../helpers/groups.factories.js';
import { tenantSql, today } from './helpers.js';

const ctx = setupTestApp();
const rowsOf = <T>(res: unknown) => (res as { rows: T[] }).rows;

type Fact = { contact_id: number; first_visit_on: string; group_id: number | null; returned_30: boolean; three_plus: boolean; joined: boolean; serving: boolean; baptised: boolean };
const norm = (rows: Fact[]) =>
  rows.map((r) => ({ ...r, contact_id: Number(r.contact_id), group_id: r.group_id === null ? null : Number(r.group_id), first_visit_on: String(r.first_visit_on).slice(0, 10) }))
    .sort((a, b) => a.contact_id - b.contact_id);

/** The facts the database keeps for the funnel (migration 0027), one row per first visitor. */
async function kept(t: TestTenant) {
  return norm(rowsOf<Fact>(await tenantSql(ctx, t, sql`
    select contact_id, to_char(first_visit_on, 'YYYY-MM-DD') as first_visit_on, group_id, returned_30, three_plus, joined, serving, baptised
    from retention_visitors where tenant_id = ${t.id}`)));
}

/** The same facts counted from the source tables, by the rules of the report's description. */
async function counted(t: TestTenant) {
  return norm(rowsOf<Fact>(await tenantSql(ctx, t, sql`
    select f.contact_id, to_char(f.date, 'YYYY-MM-DD') as first_visit_on, f.group_id, coalesce(f.returned_on <= f.date + 30, false) as returned_30, f.visits >= 3 as three_plus,
      exists (select 1 from group_memberships m where m.tenant_id = f.tenant_id and m.contact_id = f.contact_id and m.is_active) as joined,
      exists (select 1 from group_memberships m join groups g on g.tenant_id = m.tenant_id and g.id = m.group_id
        join group_categories gc on gc.tenant_id = g.tenant_id and gc.id = g.category_id
        where m.tenant_id = f.tenant_id and m.contact_id = f.contact_id and m.is_active and gc.purpose = 'Serving') as serving,
      exists (select 1 from contact_occasions o where o.tenant_id = f.tenant_id and o.contact_id = f.contact_id and o.type = 'Baptism')
        or exists (select 1 from event_activity_contacts ac join event_activities a on a.tenant_id = ac.tenant_id and a.id = ac.activity_id
          where ac.tenant_id = f.tenant_id and ac.contact_id = f.contact_id and a.activity_type = 'Baptism') as baptised
    from contact_first_visits f where f.tenant_id = ${t.id} and f.first_kept`)));
}

async function pendingLeft(t: TestTenant) {
  return Number(rowsOf<{ n: unknown }>(await ctx.db.execute(sql`select count(*) as n from retention_pending where tenant_id = ${t.id}`))[0].n);
}

/**
 * The retention funnel reads per-visitor facts that the database keeps at commit (migration 0027:
 * writes queue the contacts they touch, one apply per transaction resyncs them). Every write below
 * happens after the migration's backfill: if a trigger stopped queueing, the report (and the kept
 * rows, compared with the source tables) would miss it.
 */
describe('retention funnel facts kept at commit', () => {
  let t: TestTenant;
  let tree: Awaited<ReturnType<typeof newTree>>;
  const window = () => ({ from: addDays(today(), -120), to: today() });
  const funnel = async (token = t.admin.token) => {
    const res = await api(ctx.app, token).get(`/api/reports/retention-funnel?from=${window().from}&to=${window().to}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json().totals as Record<string, number>;
  };
  const expectFunnel = async (expected: Record<string, number>) => {
    expect(await funnel()).toEqual(expected);
    expect(await kept(t)).toEqual(await counted(t));
    expect(await pendingLeft(t)).toBe(0);
  };

  beforeAll(async () => {
    t = await newTenant(ctx);
    tree = await newTree(ctx, t);
  });

  it('a roster of 30 first visitors in one request, their returns, memberships, a removed first record, a merge', async () => {
    const people: number[] = [];
    for (let i = 0; i < 30; i++) people.push(await newContact(ctx, t, `Visitor${i}`, 'Roster'));
    const d0 = addDays(today(), -90);
    const s0 = await newSession(ctx, t, { groupId: tree.fellowshipA1.id }, d0);
    const s1 = await newSession(ctx, t, { groupId: tree.fellowshipA1.id }, addDays(d0, 7));
    const s2 = await newSession(ctx, t, { groupId: tree.fellowshipA2.id }, addDays(d0, 45));
    // One POST, one statement: 30 first visits.
    const first = await record(ctx, t, s0.id, people);
    expect(first.created.filter((r) => r.isFirstTime)).toHaveLength(30);
    await expectFunnel({ firstVisit: 30, secondVisit: 0, threePlusVisits: 0, joinedGroup: 0, serving: 0, baptised: 0 });
    // Ten come back a week later (within 30 days), five of them and five others after 45 days.
    await record(ctx, t, s1.id, people.slice(0, 10));
    await expectFunnel({ firstVisit: 30, secondVisit: 10, threePlusVisits: 0, joinedGroup: 0, serving: 0, baptised: 0 });
    await record(ctx, t, s2.id, [...people.slice(0, 5), ...people.slice(10, 15)]);
    await expectFunnel({ firstVisit: 30, secondVisit: 10, threePlusVisits: 5, joinedGroup: 0, serving: 0, baptised: 0 });
    // Three join a group; one of them is baptised (an occasion through the contacts API).
    for (const c of people.slice(20, 23)) await addMembership(ctx, t, tree.fellowshipB1, c);
    const occ = await api(ctx.app, t.admin.token).put(`/api/crm/contacts/${people[20]}`, { occasions: [{ type: 'Baptism', date: '2024-04-07' }] });
    expect(occ.statusCode, occ.body).toBe(200);
    await expectFunnel({ firstVisit: 30, secondVisit: 10, threePlusVisits: 5, joinedGroup: 3, serving: 0, baptised: 1 });
    // A visitor's first record removed: no longer a first visitor of the funnel.
    expect((await api(ctx.app, t.admin.token).delete(`/api/attendance/sessions/${s0.id}/records/${people[29]}`)).statusCode).toBe(204);
    await expectFunnel({ firstVisit: 29, secondVisit: 10, threePlusVisits: 5, joinedGroup: 3, serving: 0, baptised: 1 });
    // A three-time visitor's week-later record removed: two visits left, the next return 45 days on.
    expect((await api(ctx.app, t.admin.token).delete(`/api/attendance/sessions/${s1.id}/records/${people[0]}`)).statusCode).toBe(204);
    await expectFunnel({ firstVisit: 29, secondVisit: 9, threePlusVisits: 4, joinedGroup: 3, serving: 0, baptised: 1 });
    // A merge: the member (20) absorbs a three-time visitor (1); the survivor keeps its own first visit,
    // takes the other's records (visits), and the source's row goes with the source.
    const merged = await api(ctx.app, t.admin.token).post(`/api/crm/contacts/${people[20]}/merge`, { sourceIds: [people[1]] });
    expect(merged.statusCode, merged.body).toBe(200);
    const after = await funnel();
    expect(after.firstVisit).toBe(28);
    expect(await kept(t)).toEqual(await counted(t));
    expect(await pendingLeft(t)).toBe(0);
    // A deleted contact leaves the funnel.
    expect((await api(ctx.app, t.admin.token).delete(`/api/crm/contacts/${people[2]}`)).statusCode).toBe(204);
    expect((await funnel()).firstVisit).toBe(27);
    expect(await kept(t)).toEqual(await counted(t));
  });

  it('a rolled-back transaction leaves no fact; a rolled-back savepoint does not stop the apply of later first visits', async () => {
    const a = await newContact(ctx, t, 'Rolled', 'Back');
    const b = await newContact(ctx, t, 'Kept', 'Visitor');
    const s = await newSession(ctx, t, { groupId: tree.fellowshipA2.id }, addDays(today(), -3));
    const before = await funnel();
    await expect(withTenant(ctx.db, t.id, async (tx) => {
      await tx.execute(sql`insert into attendance_records (tenant_id, session_id, contact_id) values (${t.id}, ${s.id}, ${a})`);
      throw new Error('roll back');
    })).rejects.toThrow('roll back');
    expect(await funnel()).toEqual(before);
    await withTenant(ctx.db, t.id, async (tx) => {
      // The first queued row (and its apply mark) inside a savepoint that rolls back.
      await tx.execute(sql`savepoint s`);
      await tx.execute(sql`insert into attendance_records (tenant_id, session_id, contact_id) values (${t.id}, ${s.id}, ${a})`);
      await tx.execute(sql`rollback to savepoint s`);
      await tx.execute(sql`insert into attendance_records (tenant_id, session_id, contact_id) values (${t.id}, ${s.id}, ${b})`);
    });
    expect(await funnel()).toEqual({ ...before, firstVisit: before.firstVisit + 1 });
    expect((await kept(t)).map((r) => r.contact_id)).toContain(b);
    expect((await kept(t)).map((r) => r.contact_id)).not.toContain(a);
    expect(await kept(t)).toEqual(await counted(t));
    expect(await pendingLeft(t)).toBe(0);
  });

  it('a tenant\'s facts are its own: another tenant\'s first visitors are not counted', async () => {
    const other = await newTenant(ctx);
    const otherTree = await newTree(ctx, other);
    const c = await newContact(ctx, other, 'Else', 'Where');
    const s = await newSession(ctx, other, { groupId: otherTree.fellowshipA1.id }, addDays(today(), -2));
    const before = await funnel();
    await record(ctx, other, s.id, [c]);
    expect(await funnel()).toEqual(before);
    expect((await funnel(other.admin.token)).firstVisit).toBe(1);
  });

  it.runIf(process.env.DATABASE_URL)('two transactions on one contact (a membership, a first visit) both committing at once: the fact follows both', async () => {
    const c = await newContact(ctx, t, 'Race', 'Visitor');
    const s = await newSession(ctx, t, { groupId: tree.fellowshipA1.id }, addDays(today(), -1));
    let releaseB!: () => void;
    const bMayCommit = new Promise<void>((r) => (releaseB = r));
    let bApplied!: () => void;
    const bHasApplied = new Promise<void>((r) => (bApplied = r));
    // B records the first visit and runs its commit-time apply early (SET CONSTRAINTS … IMMEDIATE),
    // holding the contact's lock until it commits.
    const b = withTenant(ctx.db, t.id, async (tx) => {
      await tx.execute(sql`insert into attendance_records (tenant_id, session_id, contact_id) values (${t.id}, ${s.id}, ${c})`);
      await tx.execute(sql`set constraints retention_pending_apply immediate`);
      bApplied();
      await bMayCommit;
    });
    await bHasApplied;
    // A adds a membership; its commit-time apply waits for B's lock, then sees B's first visit.
    const a = withTenant(ctx.db, t.id, (tx) => tx.execute(sql`insert into group_memberships (tenant_id, group_id, contact_id) values (${t.id}, ${tree.fellowshipB1.id}, ${c})`));
    await new Promise((r) => setTimeout(r, 200));
    releaseB();
    await Promise.all([a, b]);
    const row = (await kept(t)).find((r) => r.contact_id === c);
    expect(row?.joined).toBe(true);
    expect(await kept(t)).toEqual(await counted(t));
  });
});
