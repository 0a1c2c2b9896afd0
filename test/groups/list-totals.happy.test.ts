import { asc, count, eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { groupCountPending, groupCounts, groups } from '../../src/db/schema/index.js';
import { api, setupTestApp } from '../helpers/app.js';
import { newTenant, type TestTenant } from '../helpers/factories.js';
import { addMembership, categoryId, newGroup, newLeaderOf, newTree } from '../helpers/groups.factories.js';

// The list total without filters comes from group_counts (migration 0006: statement triggers on
// groups append deltas to group_count_pending, applied at commit): for hierarchy:all the tenant's
// counters, otherwise the Public counter plus a count of the visible non-public groups. Every list
// asks for limit=1, so a non-empty page is full and its total cannot be read off the page.

const ctx = setupTestApp();

/** The list's total; the group picker (/combo, same visibility, same counters) must agree. */
async function listTotal(token: string, page = 1): Promise<number> {
  const res = await api(ctx.app, token).get(`/api/groups?limit=1&page=${page}`);
  expect(res.statusCode, res.body).toBe(200);
  const combo = await api(ctx.app, token).get(`/api/groups/combo?limit=1&page=${page}`);
  expect(combo.statusCode, combo.body).toBe(200);
  expect(combo.json().total).toBe(res.json().total);
  return res.json().total;
}

/** The truth from the groups themselves (superuser, no RLS): all of them, or those `who` sees. */
async function visibleCount(tenantId: number, who?: { ledPaths: string[]; memberIds: number[] }) {
  const rows = await ctx.db.select({ id: groups.id, path: groups.path, privacy: groups.privacy }).from(groups).where(eq(groups.tenantId, tenantId));
  return rows.filter((g) => !who || g.privacy === 'Public' || who.ledPaths.some((p) => g.path.startsWith(p)) || who.memberIds.includes(g.id)).length;
}

/** A tree where the zone leader sees: the public groups, private ones in zone A, a private member group outside. */
async function setup() {
  const t = await newTenant(ctx);
  const tree = await newTree(ctx, t);
  const leader = await newLeaderOf(ctx, t, tree.zoneA);
  await addMembership(ctx, t, tree.fellowshipB1, leader.contactId);
  const who = { ledPaths: [tree.zoneA.path], memberIds: [tree.zoneA.id, tree.fellowshipB1.id] };
  /** Totals of the admin and the leader equal the truth (first page and past the end). */
  const expectExact = async () => {
    const all = await visibleCount(t.id);
    const seen = await visibleCount(t.id, who);
    expect({ admin: await listTotal(t.admin.token), leader: await listTotal(leader.token) }).toEqual({ admin: all, leader: seen });
    expect({ admin: await listTotal(t.admin.token, 999), leader: await listTotal(leader.token, 999) }).toEqual({ admin: all, leader: seen });
    return { all, seen };
  };
  return { t, tree, leader, who, expectExact };
}

/** Every non-zero counter equals count(*) group by tenant, privacy; none negative, none pending. */
async function expectCountersMatchGroups() {
  const counters = await ctx.db
    .select({ tenantId: groupCounts.tenantId, privacy: groupCounts.privacy, n: groupCounts.n })
    .from(groupCounts)
    .where(sql`${groupCounts.n} <> 0`)
    .orderBy(asc(groupCounts.tenantId), asc(groupCounts.privacy));
  const counted = await ctx.db
    .select({ tenantId: groups.tenantId, privacy: groups.privacy, n: count() })
    .from(groups)
    .groupBy(groups.tenantId, groups.privacy)
    .orderBy(asc(groups.tenantId), asc(groups.privacy));
  expect(counters).toEqual(counted);
  const [negative] = await ctx.db.select({ n: count() }).from(groupCounts).where(sql`${groupCounts.n} < 0`);
  expect(negative.n).toBe(0);
  const [pending] = await ctx.db.select({ n: count() }).from(groupCountPending);
  expect(pending.n).toBe(0);
}

describe('groups list totals from group_counts', () => {
  it('are exact for an admin and a zone leader (public + private in the subtree + private member groups)', async () => {
    const { expectExact } = await setup();
    // 10 groups, 4 private: the leader sees 6 public + fellowshipA2 (subtree) + fellowshipB1 (member).
    expect(await expectExact()).toEqual({ all: 10, seen: 8 });
  });

  it('stay exact after creating groups, public and private, inside and outside the led subtree', async () => {
    const { t, tree, leader, expectExact } = await setup();
    const cat = await categoryId(ctx, t, 'Fellowship');
    const a = api(ctx.app, t.admin.token);
    for (const [parent, privacy] of [[tree.clusterA, 'Private'], [tree.clusterB, 'Private'], [tree.clusterB, 'Public']] as const) {
      expect((await a.post('/api/groups', { name: `New ${privacy}`, categoryId: cat, parentId: parent.id, privacy })).statusCode).toBe(201);
    }
    const l = await api(ctx.app, leader.token).post('/api/groups', { name: 'Led private', categoryId: cat, parentId: tree.clusterA.id, privacy: 'Private' });
    expect(l.statusCode, l.body).toBe(201);
    expect(await expectExact()).toEqual({ all: 14, seen: 11 });
  });

  it('stay exact after privacy changes (PUT) and a private branch moved into the led subtree', async () => {
    const { t, tree, expectExact } = await setup();
    const a = api(ctx.app, t.admin.token);
    expect((await a.put(`/api/groups/${tree.network.id}`, { privacy: 'Private' })).statusCode).toBe(200);
    expect((await a.put(`/api/groups/${tree.zoneB.id}`, { privacy: 'Public' })).statusCode).toBe(200);
    expect((await a.put(`/api/groups/${tree.fellowshipA1.id}`, { privacy: 'Private' })).statusCode).toBe(200);
    // 5 public + fellowshipA1, fellowshipA2 (subtree) + fellowshipB1 (member); stale counters say 9.
    expect(await expectExact()).toEqual({ all: 10, seen: 8 });
    expect((await a.put(`/api/groups/${tree.clusterB.id}`, { parentId: tree.zoneA.id })).statusCode).toBe(200);
    expect(await expectExact()).toEqual({ all: 10, seen: 9 });
    await expectCountersMatchGroups();
  });

  it('stay exact after deleting groups', async () => {
    const { t, tree, expectExact } = await setup();
    const a = api(ctx.app, t.admin.token);
    for (const g of [tree.fellowshipA2, tree.fellowshipA1]) expect((await a.delete(`/api/groups/${g.id}`)).statusCode).toBe(204);
    expect(await expectExact()).toEqual({ all: 8, seen: 6 });
  });

  it('stay exact after an import', async () => {
    const { t, expectExact } = await setup();
    const res = await api(ctx.app, t.admin.token).post('/api/groups/import', {
      groups: [
        { name: 'Imported Zone', category: 'Zone', parentName: 'Location' },
        { name: 'Imported Cluster', category: 'Cluster', parentName: 'Imported Zone' },
        { name: 'Under B', category: 'Cluster', parentName: 'Zone B' },
      ],
    });
    expect(res.json()).toMatchObject({ created: 3, failed: 0 });
    expect(await expectExact()).toEqual({ all: 13, seen: 11 });
  });

  it("another tenant's writes leave a tenant's totals alone", async () => {
    const a = await setup();
    const b = await setup();
    const before = await a.expectExact();
    await newGroup(ctx, b.t, { name: 'B private', parent: b.tree.zoneA, privacy: 'Private' });
    await newGroup(ctx, b.t, { name: 'B public', parent: b.tree.zoneB });
    expect((await api(ctx.app, b.t.admin.token).put(`/api/groups/${b.tree.zoneB.id}`, { privacy: 'Public' })).statusCode).toBe(200);
    expect((await api(ctx.app, b.t.admin.token).delete(`/api/groups/${b.tree.fellowshipA1.id}`)).statusCode).toBe(204);
    expect(await a.expectExact()).toEqual(before);
    expect(await b.expectExact()).toEqual({ all: 11, seen: 10 });
  });

  it('group_counts equals count(*) group by tenant_id, privacy', async () => {
    const { t, tree } = await setup();
    await api(ctx.app, t.admin.token).put(`/api/groups/${tree.church.id}`, { privacy: 'Private' });
    await newGroup(ctx, t, { name: 'Extra', parent: tree.zoneB, privacy: 'Private' });
    await expectCountersMatchGroups();
  });
});
