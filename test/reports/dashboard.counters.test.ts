import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { withTenant } from '../../src/db/client.js';
import { addDays } from '../../src/lib/periods.js';
import { api, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser, type TestTenant } from '../helpers/factories.js';
import { addMembership, newActors, newContact, newGroup, newTree } from '../helpers/groups.factories.js';
import { tenantSql, thisWeek, weeksAgo } from './helpers.js';

const ctx = setupTestApp();
const rowsOf = <T>(res: unknown) => (res as { rows: T[] }).rows;

/**
 * The dashboard's groups and attendance sections as migration 0027 and the complement read them:
 * active members summed from group_member_counts (kept at commit), and a caller without
 * hierarchy:all seeing the whole church's days less the sessions of the groups they may not see.
 */
describe('dashboard counters', () => {
  let t: TestTenant;
  let tree: Awaited<ReturnType<typeof newTree>>;
  let actors: Awaited<ReturnType<typeof newActors>>;
  const people: number[] = [];

  beforeAll(async () => {
    t = await newTenant(ctx);
    tree = await newTree(ctx, t);
    actors = await newActors(ctx, t, tree);
    for (let i = 0; i < 8; i++) people.push(await newContact(ctx, t, `P${i}`, 'Counted'));
  });

  /** group_member_counts against count(*) of the memberships, per group with any. */
  async function expectCountsExact() {
    const kept = rowsOf<{ group_id: unknown; n: unknown }>(await tenantSql(ctx, t, sql`select group_id, n from group_member_counts where tenant_id = ${t.id} and n <> 0 order by 1`));
    const counted = rowsOf<{ group_id: unknown; n: unknown }>(await tenantSql(ctx, t, sql`
      select group_id, count(*) as n from group_memberships where tenant_id = ${t.id} and is_active group by 1 order by 1`));
    expect(kept.map((r) => [Number(r.group_id), Number(r.n)])).toEqual(counted.map((r) => [Number(r.group_id), Number(r.n)]));
    const left = rowsOf<{ n: unknown }>(await ctx.db.execute(sql`select count(*) as n from group_member_pending where tenant_id = ${t.id}`));
    expect(Number(left[0].n)).toBe(0);
  }
  const groupsOf = async (token: string, query = '') => {
    const res = await api(ctx.app, token).get(`/api/dashboard${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json().groups as { count: number; members: number; pendingRequests: number };
  };

  it('members: adds, deactivation, reactivation, removal, a rolled-back add and a deleted group follow, for the admin and a leader', async () => {
    // newActors: the zone leader leads Zone A, the A2 leader leads Fellowship A2, a member of B1, a loner.
    const base = await groupsOf(t.admin.token);
    expect(base).toEqual({ count: 10, members: 3, pendingRequests: 0 });
    await expectCountsExact();
    const admin = api(ctx.app, t.admin.token);
    const ids: number[] = [];
    for (const [group, contact] of [[tree.fellowshipA1, people[0]], [tree.fellowshipA1, people[1]], [tree.fellowshipA2, people[2]], [tree.fellowshipB1, people[3]], [tree.fellowshipB1, people[4]]] as const) {
      const res = await admin.post('/api/groups/membership', { groupId: group.id, contactId: contact });
      expect(res.statusCode, res.body).toBe(201);
      ids.push(res.json().id);
    }
    await expectCountsExact();
    expect(await groupsOf(t.admin.token)).toEqual({ count: 10, members: 8, pendingRequests: 0 });
    // The zone leader sees Zone A's subtree and the public groups: A1 (2), A2 (1 + its leader), Zone A (its leader).
    expect(await groupsOf(actors.zoneLeader.token)).toEqual({ count: 7, members: 5, pendingRequests: 0 });
    expect((await admin.put(`/api/groups/membership/${ids[0]}`, { isActive: false })).statusCode).toBe(200);
    expect((await admin.put(`/api/groups/membership/${ids[3]}`, { isActive: false })).statusCode).toBe(200);
    expect((await admin.put(`/api/groups/membership/${ids[3]}`, { isActive: true })).statusCode).toBe(200);
    expect((await admin.delete(`/api/groups/membership/${ids[4]}`)).statusCode).toBe(204);
    await expectCountsExact();
    expect(await groupsOf(t.admin.token)).toEqual({ count: 10, members: 6, pendingRequests: 0 });
    expect(await groupsOf(actors.zoneLeader.token)).toEqual({ count: 7, members: 4, pendingRequests: 0 });
    expect(await groupsOf(t.admin.token, `?groupId=${tree.zoneB.id}`)).toEqual({ count: 3, members: 2, pendingRequests: 0 });
    await expect(withTenant(ctx.db, t.id, async (tx) => {
      await tx.execute(sql`insert into group_memberships (tenant_id, group_id, contact_id) values (${t.id}, ${tree.fellowshipA1.id}, ${people[5]})`);
      throw new Error('roll back');
    })).rejects.toThrow('roll back');
    await expectCountsExact();
    // A new group with members, then deleted with them (the API refuses while they are active: a
    // cascade, as a tenant's or a merged group's deletion makes).
    const extra = await newGroup(ctx, t, { name: 'Extra', parent: tree.clusterA });
    await tenantSql(ctx, t, sql`insert into group_memberships (tenant_id, group_id, contact_id)
      select ${t.id}, ${extra.id}, c from unnest(${`{${people.slice(5).join(',')}}`}::bigint[]) c`);
    await expectCountsExact();
    expect(await groupsOf(t.admin.token)).toEqual({ count: 11, members: 9, pendingRequests: 0 });
    await tenantSql(ctx, t, sql`delete from groups where tenant_id = ${t.id} and id = ${extra.id}`);
    await expectCountsExact();
    expect(await groupsOf(t.admin.token)).toEqual({ count: 10, members: 6, pendingRequests: 0 });
  });

  it('attendance: a leader sees sessions without a group and the groups they may see, not the private ones of another zone', async () => {
    const cur = weeksAgo(1);
    const prev = weeksAgo(5);
    const session = async (groupId: number | null, date: string, present: number[], didNotMeet = false) => {
      const res = await tenantSql(ctx, t, sql`insert into attendance_sessions (tenant_id, date, source, group_id, did_not_meet)
        values (${t.id}, ${date}::date, 'Group', ${groupId}, ${didNotMeet}) returning id`);
      const id = Number(rowsOf<{ id: unknown }>(res)[0].id);
      if (present.length) {
        await tenantSql(ctx, t, sql`insert into attendance_records (tenant_id, session_id, contact_id)
          select ${t.id}, ${id}, c from unnest(${`{${present.join(',')}}`}::bigint[]) c`);
      }
    };
    // This window: A1 (2 present), A2 (private, the zone leader's: 3), B1 (private, another zone: 4),
    // a session without a group (1), B1 again that did not meet (0). The window before: A1 (1), B1 (2).
    await session(tree.fellowshipA1.id, addDays(cur, 1), people.slice(0, 2));
    await session(tree.fellowshipA2.id, addDays(cur, 2), people.slice(2, 5));
    await session(tree.fellowshipB1.id, addDays(cur, 3), people.slice(4, 8));
    await session(null, addDays(cur, 4), people.slice(7, 8));
    await session(tree.fellowshipB1.id, addDays(cur, 5), [], true);
    await session(tree.fellowshipA1.id, addDays(prev, 1), people.slice(0, 1));
    await session(tree.fellowshipB1.id, addDays(prev, 2), people.slice(1, 3));
    const window = `?from=${weeksAgo(3)}&to=${addDays(thisWeek(), 6)}`;
    const read = async (token: string, query = '') => {
      const res = await api(ctx.app, token).get(`/api/dashboard${window}${query}`);
      expect(res.statusCode, res.body).toBe(200);
      const a = res.json().attendance as { averagePresent: number; changePct: number | null; series: { period: string; present: number }[] };
      return { averagePresent: a.averagePresent, changePct: a.changePct, present: a.series.reduce((s, p) => s + p.present, 0) };
    };
    // Admin: 4 sessions met, 10 present (2.5), before 2 sessions, 3 present (1.5).
    expect(await read(t.admin.token)).toEqual({ averagePresent: 2.5, changePct: 66.67, present: 10 });
    // Zone leader: A1, A2 and the session without a group (6 in 3: 2), before A1 (1 in 1).
    expect(await read(actors.zoneLeader.token)).toEqual({ averagePresent: 2, changePct: 100, present: 6 });
    // A leader who is only a member of B1 sees B1, A1 (public) and the session without a group: 7 in 3; before 3 in 2.
    const b1 = await newUser(ctx, t, 'Leader');
    await addMembership(ctx, t, tree.fellowshipB1, b1.contactId);
    expect(await read(b1.token)).toEqual({ averagePresent: 2.33, changePct: 55.33, present: 7 });
    // With a group: only its subtree's sessions (none without a group).
    expect(await read(actors.zoneLeader.token, `&groupId=${tree.zoneA.id}`)).toEqual({ averagePresent: 2.5, changePct: 150, present: 5 });
    expect(await read(t.admin.token, `&groupId=${tree.zoneB.id}`)).toEqual({ averagePresent: 4, changePct: 100, present: 4 });
  });
});
