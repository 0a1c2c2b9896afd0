import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { groups } from '../../src/db/schema/index.js';
import { api, setupTestApp } from '../helpers/app.js';
import { newTenant } from '../helpers/factories.js';
import { newGroup } from '../helpers/groups.factories.js';

const ctx = setupTestApp();

async function tenantGroups(tenantId: number) {
  const rows = await ctx.db.select().from(groups).where(eq(groups.tenantId, tenantId));
  const byId = new Map(rows.map((r) => [r.id, r]));
  return rows.map((r) => ({ ...r, parentName: r.parentId ? byId.get(r.parentId)!.name : null }));
}

/** Every stored path is its parent's path plus its own id. */
async function expectConsistentPaths(tenantId: number) {
  const rows = await tenantGroups(tenantId);
  const byId = new Map(rows.map((r) => [r.id, r]));
  for (const r of rows) expect(r.path).toBe(`${r.parentId ? byId.get(r.parentId)!.path : '/'}${r.id}/`);
}

describe('groups import: happy paths', () => {
  it('imports JSON, resolving parents listed after their children and existing parents', async () => {
    const t = await newTenant(ctx);
    const church = await newGroup(ctx, t, { name: 'Grace Church', category: 'Church' });
    const res = await api(ctx.app, t.admin.token).post('/api/groups/import', {
      groups: [
        { name: 'Fellowship One', category: 'fellowship', parentName: 'Cluster North' },
        { name: 'Cluster North', category: 'Cluster', parentName: 'Zone North' },
        { name: 'Zone North', category: 'Zone', parentName: 'grace church' },
        { name: 'Second Church', category: 'Church' },
      ],
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ total: 4, created: 4, skipped: 0, failed: 0, errors: [] });
    const rows = await tenantGroups(t.id);
    const pairs = rows.map((r) => [r.name, r.parentName]).sort();
    expect(pairs).toEqual([
      ['Cluster North', 'Zone North'], ['Fellowship One', 'Cluster North'], ['Grace Church', null], ['Second Church', null], ['Zone North', 'Grace Church'],
    ]);
    expect(rows.find((r) => r.name === 'Zone North')!.parentId).toBe(church.id);
    await expectConsistentPaths(t.id);
  });

  it('imports CSV; existing (name, parent) rows are skipped, duplicates in the file too', async () => {
    const t = await newTenant(ctx);
    const church = await newGroup(ctx, t, { name: 'Grace', category: 'Church' });
    await newGroup(ctx, t, { name: 'Zone A', category: 'Zone', parent: church });
    const csv = 'name,category,parentName\r\nZone A,Zone,Grace\r\nCluster 1,Cluster,Zone A\r\n"Cluster, 2",Cluster,Zone A\r\nCluster 1,Cluster,Zone A\r\nGrace,Church,\r\n';
    const res = await api(ctx.app, t.admin.token).post('/api/groups/import', csv, { 'content-type': 'text/csv' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ total: 5, created: 2, skipped: 3, failed: 0, errors: [] });
    const names = (await tenantGroups(t.id)).map((r) => r.name).sort();
    expect(names).toEqual(['Cluster 1', 'Cluster, 2', 'Grace', 'Zone A']);
    await expectConsistentPaths(t.id);
    // Importing the same file again creates nothing.
    const again = (await api(ctx.app, t.admin.token).post('/api/groups/import', csv, { 'content-type': 'text/csv' })).json();
    expect(again).toMatchObject({ created: 0, skipped: 5, failed: 0 });
  });

  it('reports row errors: unknown and ambiguous parents, unknown categories, cycles, missing fields', async () => {
    const t = await newTenant(ctx);
    const church = await newGroup(ctx, t, { name: 'Church', category: 'Church' });
    await newGroup(ctx, t, { name: 'Twin', category: 'Zone', parent: church });
    await newGroup(ctx, t, { name: 'Twin', category: 'Zone' });
    const res = await api(ctx.app, t.admin.token).post('/api/groups/import', {
      groups: [
        { name: 'Good', category: 'Zone', parentName: 'Church' },
        { name: 'Orphan', category: 'Zone', parentName: 'Nowhere' },
        { name: 'Under Twin', category: 'Cluster', parentName: 'Twin' },
        { name: 'Odd', category: 'NoSuchCategory' },
        { name: 'A', category: 'Zone', parentName: 'B' },
        { name: 'B', category: 'Zone', parentName: 'A' },
        { name: 'Self', category: 'Zone', parentName: 'Self' },
        { name: '', category: 'Zone' },
        { name: 'NoCat' },
        { name: 'Child of Odd', category: 'Zone', parentName: 'Odd' },
      ],
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ total: 10, created: 1, skipped: 0, failed: 9 });
    expect(body.errors.map((e: { row: number }) => e.row)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const msg = (row: number) => body.errors.find((e: { row: number }) => e.row === row).message;
    expect(msg(2)).toBe("Unknown parent group 'Nowhere'");
    expect(msg(3)).toMatch(/ambiguous/);
    expect(msg(4)).toBe("Unknown group category 'NoSuchCategory'");
    expect(msg(5)).toMatch(/cycle/);
    expect(msg(6)).toMatch(/cycle/);
    expect(msg(7)).toBe('A group cannot be its own parent');
    expect(msg(8)).toBe('name is required');
    expect(msg(9)).toBe('category is required');
    expect(msg(10)).toBe("Parent group 'Odd' could not be imported");
    const rows = await tenantGroups(t.id);
    expect(rows.map((r) => r.name).sort()).toEqual(['Church', 'Good', 'Twin', 'Twin']);
  });

  it('imports 5,000 rows (a deep chain in reverse order plus a wide fan) in seconds', async () => {
    const t = await newTenant(ctx);
    const rows: { name: string; category: string; parentName?: string }[] = [];
    for (let i = 199; i >= 1; i--) rows.push({ name: `Chain ${i}`, category: 'Cluster', parentName: `Chain ${i - 1}` });
    rows.push({ name: 'Chain 0', category: 'Church' });
    for (let i = 0; i < 4800; i++) rows.push({ name: `Leaf ${i}`, category: 'Fellowship', parentName: `Chain ${i % 200}` });
    const started = Date.now();
    const res = await api(ctx.app, t.admin.token).post('/api/groups/import', { groups: rows });
    const elapsed = Date.now() - started;
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ total: 5000, created: 5000, skipped: 0, failed: 0, errors: [] });
    expect(elapsed).toBeLessThan(20_000);
    await expectConsistentPaths(t.id);
    const [deep] = await ctx.db.select().from(groups).where(and(eq(groups.tenantId, t.id), eq(groups.name, 'Chain 199')));
    expect(deep.path.split('/').filter(Boolean)).toHaveLength(200);
  }, 60_000);
});
