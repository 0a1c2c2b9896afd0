import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { withTenant } from '../../src/db/client.js';
import { addDays } from '../../src/lib/periods.js';
import { api, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser, type TestTenant } from '../helpers/factories.js';
import { addMembership, newActors, newContact, newGroup, newTree } from '../helpers/groups.factories.js';
import { tenantSql, thisWeek, weeksAgo } from '../reports/helpers.js';

const ctx = setupTestApp();
const rowsOf = <T>(res: unknown) => (res as { rows: T[] }).rows;

/**
 * The dashboard of a caller without hierarchy:all (migration 0031): the church's days less those of
 * the non-public groups (attendance_private_daily_counts, kept at commit) plus the non-public groups
 * the caller sees; and the groups, events and tasks sections over the one set of hidden groups the
 * batch reads. Every figure is checked against the sessions and groups themselves.
 */
describe('dashboard: non-public groups', () => {
  let t: TestTenant;
  let tree: Awaited<ReturnType<typeof newTree>>;
  let actors: Awaited<ReturnType<typeof newActors>>;
  const people: number[] = [];
  const window = () => ({ from: weeksAgo(3), to: addDays(thisWeek(), 6) });

  beforeAll(async () => {
    t = await newTenant(ctx);
    tree = await newTree(ctx, t);
    actors = await newActors(ctx, t, tree);
    for (let i = 0; i < 8; i++) people.push(await newContact(ctx, t, `P${i}`, 'Private'));
  });

  /** The kept counters equal the sessions of the non-public groups, summed per day; nothing left queued. */
  async function expectCountersExact() {
    const kept = rowsOf<Record<string, unknown>>(await tenantSql(ctx, t, sql`
      select date::text, did_not_meet, sessions, present, guests, volunteers, first_time, headcount from attendance_private_daily_counts
      where tenant_id = ${t.id} and (sessions, present, guests, volunteers, first_time, headcount) <> (0, 0, 0, 0, 0, 0) order by 1, 2`));
    const counted = rowsOf<Record<string, unknown>>(await tenantSql(ctx, t, sql`
      select s.date::text, s.did_not_meet, count(*) as sessions, sum(s.present_count) as present, sum(s.guest_count) as guests,
        sum(s.volunteer_count) as volunteers, sum(s.first_time_count) as first_time, sum(s.headcount_total) as headcount
      from attendance_sessions s join groups g on g.tenant_id = s.tenant_id and g.id = s.group_id and g.privacy <> 'Public'
      where s.tenant_id = ${t.id} group by 1, 2 order by 1, 2`));
    const norm = (rows: Record<string, unknown>[]) => rows.map((r) => Object.values(r).map((v) => (typeof v === 'boolean' || typeof v === 'string' && !/^\d+$/.test(v) ? v : Number(v))));
    expect(norm(kept)).toEqual(norm(counted));
    // The session counters themselves are the records' (0015), so the oracle above is the records'.
    const [{ n }] = rowsOf<{ n: unknown }>(await ctx.db.execute(sql`select count(*) as n from attendance_private_pending where tenant_id = ${t.id}`));
    expect(Number(n)).toBe(0);
  }

  /** What a caller should see, straight from the sessions and the visibility rule (Public, led subtrees, own groups). */
  async function expected(ledPaths: string[], memberIds: number[]) {
    const w = window();
    const led = ledPaths.length ? sql.join(ledPaths.map((p) => sql`g.path like ${`${p}%`}`), sql` or `) : sql`false`;
    const own = memberIds.length ? sql`g.id in (${sql.join(memberIds.map((id) => sql`${id}`), sql`, `)})` : sql`false`;
    const [r] = rowsOf<{ sessions: unknown; present: unknown }>(await tenantSql(ctx, t, sql`
      select count(*) as sessions, coalesce(sum(s.present_count), 0) as present
      from attendance_sessions s left join groups g on g.tenant_id = s.tenant_id and g.id = s.group_id
      where s.tenant_id = ${t.id} and not s.did_not_meet and s.date between ${w.from}::date and ${w.to}::date
        and (s.group_id is null or g.privacy = 'Public' or ${led} or ${own})`));
    const sessions = Number(r.sessions), present = Number(r.present);
    return { present, averagePresent: sessions ? Math.round((present / sessions) * 100) / 100 : 0 };
  }

  async function seen(token: string) {
    const w = window();
    const res = await api(ctx.app, token).get(`/api/dashboard?from=${w.from}&to=${w.to}`);
    expect(res.statusCode, res.body).toBe(200);
    const a = res.json().attendance as { averagePresent: number; series: { present: number }[] };
    return { present: a.series.reduce((s, p) => s + p.present, 0), averagePresent: a.averagePresent };
  }

  async function session(groupId: number | null, date: string, present: number[], didNotMeet = false) {
    const res = await tenantSql(ctx, t, sql`insert into attendance_sessions (tenant_id, date, source, group_id, did_not_meet)
      values (${t.id}, ${date}::date, 'Group', ${groupId}, ${didNotMeet}) returning id`);
    const id = Number(rowsOf<{ id: unknown }>(res)[0].id);
    if (present.length) await record(id, present);
    return id;
  }
  async function record(sessionId: number, contacts: number[]) {
    await tenantSql(ctx, t, sql`insert into attendance_records (tenant_id, session_id, contact_id)
      select ${t.id}, ${sessionId}, c from unnest(${`{${contacts.join(',')}}`}::bigint[]) c`);
  }

  it('attendance follows sessions, records, moves, privacy changes and deletes, for the admin, a zone leader and a member', async () => {
    const cur = weeksAgo(1);
    const zone = [tree.zoneA.path];
    const check = async () => {
      await expectCountersExact();
      expect(await seen(actors.zoneLeader.token)).toEqual(await expected(zone, []));
      expect(await seen(b1Leader.token)).toEqual(await expected([], [tree.fellowshipB1.id]));
      expect(await seen(t.admin.token)).toEqual(await expected(['/'], []));
    };
    // A Leader-role user who is a member of B1 (private, in the other zone) sees B1 too.
    const b1Leader = await newUser(ctx, t, 'Leader');
    await addMembership(ctx, t, tree.fellowshipB1, b1Leader.contactId);

    const a1 = await session(tree.fellowshipA1.id, addDays(cur, 1), people.slice(0, 2));
    const a2 = await session(tree.fellowshipA2.id, addDays(cur, 2), people.slice(2, 5));
    const b1 = await session(tree.fellowshipB1.id, addDays(cur, 3), people.slice(4, 8));
    await session(null, addDays(cur, 4), people.slice(7, 8));
    const zb = await session(tree.zoneB.id, addDays(cur, 3), people.slice(0, 3));
    await session(tree.fellowshipB1.id, addDays(cur, 5), [], true);
    await check();
    // Not a vacuous check: the three views differ (B1 and Zone B are the zone leader's hidden groups).
    const views = [await seen(actors.zoneLeader.token), await seen(b1Leader.token), await seen(t.admin.token)];
    expect(views.map((v) => v.present)).toEqual([2 + 3 + 1, 2 + 4 + 1, 2 + 3 + 4 + 1 + 3]);
    // Records added to and taken from existing private sessions (counted at commit into the session).
    await record(b1, people.slice(0, 2));
    await tenantSql(ctx, t, sql`delete from attendance_records where tenant_id = ${t.id} and session_id = ${a2} and contact_id = ${people[2]}`);
    await check();
    // A session that did not meet after all, one moved to another day, one moved to a public group and back.
    await tenantSql(ctx, t, sql`update attendance_sessions set did_not_meet = true where tenant_id = ${t.id} and id = ${zb}`);
    await tenantSql(ctx, t, sql`update attendance_sessions set date = ${addDays(cur, 6)}::date where tenant_id = ${t.id} and id = ${b1}`);
    await check();
    await tenantSql(ctx, t, sql`update attendance_sessions set group_id = ${tree.fellowshipA1.id}, date = ${addDays(cur, -1)}::date where tenant_id = ${t.id} and id = ${b1}`);
    await check();
    await tenantSql(ctx, t, sql`update attendance_sessions set group_id = ${tree.clusterB.id} where tenant_id = ${t.id} and id = ${b1}`);
    await check();
    // A public group turned private: A1 is in Zone A, so the zone leader still sees it; B1's member no longer does.
    await tenantSql(ctx, t, sql`update groups set privacy = 'Private' where tenant_id = ${t.id} and id = ${tree.fellowshipA1.id}`);
    await check();
    // A private group made public: the zone leader now sees B1's sessions.
    await tenantSql(ctx, t, sql`update groups set privacy = 'Public' where tenant_id = ${t.id} and id = ${tree.fellowshipB1.id}`);
    await check();
    await tenantSql(ctx, t, sql`update groups set privacy = 'Private' where tenant_id = ${t.id} and id in (${tree.fellowshipB1.id}, ${tree.fellowshipA1.id})`);
    await tenantSql(ctx, t, sql`update groups set privacy = 'Public', name = 'A1 again' where tenant_id = ${t.id} and id = ${tree.fellowshipA1.id}`);
    await check();
    // Several sessions and their records in one transaction, with a privacy change in between.
    await withTenant(ctx.db, t.id, async (tx) => {
      const [{ id }] = rowsOf<{ id: unknown }>(await tx.execute(sql`insert into attendance_sessions (tenant_id, date, source, group_id)
        values (${t.id}, ${addDays(cur, 2)}::date, 'Group', ${tree.clusterB.id}) returning id`));
      await tx.execute(sql`insert into attendance_records (tenant_id, session_id, contact_id) values (${t.id}, ${Number(id)}, ${people[6]}), (${t.id}, ${Number(id)}, ${people[7]})`);
      await tx.execute(sql`update groups set privacy = 'Public' where tenant_id = ${t.id} and id = ${tree.clusterB.id}`);
      await tx.execute(sql`insert into attendance_records (tenant_id, session_id, contact_id) values (${t.id}, ${a1}, ${people[5]})`);
    });
    await check();
    // A rolled-back write changes nothing.
    await expect(withTenant(ctx.db, t.id, async (tx) => {
      await tx.execute(sql`insert into attendance_sessions (tenant_id, date, source, group_id) values (${t.id}, ${addDays(cur, 3)}::date, 'Group', ${tree.fellowshipA2.id})`);
      await tx.execute(sql`update groups set privacy = 'Public' where tenant_id = ${t.id} and id = ${tree.zoneB.id}`);
      throw new Error('roll back');
    })).rejects.toThrow('roll back');
    await check();
    // A deleted session; a deleted private group with sessions (the cascade takes them).
    await tenantSql(ctx, t, sql`delete from attendance_sessions where tenant_id = ${t.id} and id = ${a2}`);
    await check();
    const extra = await newGroup(ctx, t, { name: 'Extra', parent: tree.clusterB, privacy: 'Private' });
    await session(extra.id, addDays(cur, 1), people.slice(0, 4));
    await session(extra.id, addDays(cur, 2), people.slice(4, 6));
    await check();
    await tenantSql(ctx, t, sql`delete from groups where tenant_id = ${t.id} and id = ${extra.id}`);
    await check();
  });

  it('groups, events and unassigned tasks of a caller who sees part of the non-public groups', async () => {
    const u = await newTenant(ctx);
    const tr = await newTree(ctx, u);
    const ac = await newActors(ctx, u, tr);
    const on = (q: ReturnType<typeof sql>) => withTenant(ctx.db, u.id, (tx) => tx.execute(q));
    const today = addDays(thisWeek(), 7);
    // An event in each group, in date order, and one without a group; an unassigned task in each group.
    const all = Object.values(tr);
    for (const [i, g] of all.entries()) {
      await on(sql`insert into events (tenant_id, name, start_date, end_date, group_id) values (${u.id}, ${g.name}, ${addDays(today, i)}::date, ${addDays(today, i)}::date, ${g.id})`);
      await on(sql`insert into tasks (tenant_id, title, group_id) values (${u.id}, ${g.name}, ${g.id})`);
    }
    await on(sql`insert into events (tenant_id, name, start_date, end_date) values (${u.id}, 'Open day', ${addDays(today, 3)}::date, ${addDays(today, 3)}::date)`);
    const dash = async (token: string, query = '') => {
      const res = await api(ctx.app, token).get(`/api/dashboard${query}`);
      expect(res.statusCode, res.body).toBe(200);
      return res.json();
    };
    // The zone leader: 7 groups (6 public + A2); the member of B1: 6 public + B1 = 7; events and tasks alike.
    const visible = (ids: number[]) => all.filter((g) => g.privacy === 'Public' || ids.includes(g.id));
    const zl = await dash(ac.zoneLeader.token);
    const zoneVisible = visible([tr.fellowshipA2.id]);
    expect(zl.groups).toEqual({ count: zoneVisible.length, members: 2, pendingRequests: 0 });
    expect(zl.events.upcoming.map((e: { name: string }) => e.name)).toEqual(
      [...zoneVisible.map((g) => ({ name: g.name, at: all.indexOf(g) })), { name: 'Open day', at: 3.5 }].sort((a, b) => a.at - b.at).slice(0, 5).map((x) => x.name));
    expect(zl.tasks.unassigned).toBe(zoneVisible.length);
    const mb = await dash(ac.member.token);
    expect(mb.groups.count).toBe(visible([tr.fellowshipB1.id]).length);
    expect(mb.tasks.unassigned).toBe(0); // a Member holds no tasks:read
    // A pending request to a hidden group is not counted; to a visible one it is.
    for (const g of [tr.fellowshipB1, tr.fellowshipA2]) {
      await on(sql`insert into group_membership_requests (tenant_id, group_id, contact_id) values (${u.id}, ${g.id}, ${ac.loner.contactId})`);
    }
    expect((await dash(ac.zoneLeader.token)).groups.pendingRequests).toBe(1);
    expect((await dash(u.admin.token)).groups.pendingRequests).toBe(2);
    // With a groupId the same sections cover that subtree only.
    const sub = await dash(ac.zoneLeader.token, `?groupId=${tr.clusterA.id}`);
    expect(sub.groups).toEqual({ count: 3, members: 1, pendingRequests: 1 }); // the A2 leader; the zone leader's membership is Zone A's
    expect(sub.events.upcoming.map((e: { name: string }) => e.name)).toEqual(['Cluster A', 'Fellowship A1', 'Fellowship A2']);
    expect(sub.tasks.unassigned).toBe(3);
  });
});
