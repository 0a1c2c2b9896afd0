import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { withTenant } from '../../src/db/client.js';
import { groupMemberships, groups } from '../../src/db/schema/index.js';
import { insertPersonContact } from '../../src/modules/contacts/contacts.repository.js';
import { api, setupTestApp } from '../helpers/app.js';
import { newTenant } from '../helpers/factories.js';
import { addMembership, categoryId, newContact, newGroup, newTree } from '../helpers/groups.factories.js';

const ctx = setupTestApp();

async function pathOf(tenantId: number, id: number) {
  const [row] = await ctx.db.select({ path: groups.path, parentId: groups.parentId }).from(groups).where(and(eq(groups.tenantId, tenantId), eq(groups.id, id)));
  return row;
}

describe('groups: happy paths', () => {
  it('creates a root group and a child with every field, and reads them back', async () => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    const church = await categoryId(ctx, t, 'Church');
    const zone = await categoryId(ctx, t, 'Zone');
    const root = await a.post('/api/groups', { name: 'Grace', categoryId: church });
    expect(root.statusCode).toBe(201);
    expect(root.json()).toEqual({
      id: expect.any(Number), name: 'Grace', category: { id: church, name: 'Church' }, parent: null, privacy: 'Public', details: null,
      address: { street: null, city: null, country: null }, metaData: {},
    });
    const rootId = root.json().id;
    const child = await a.post('/api/groups', {
      name: ' Zone North ', categoryId: zone, parentId: rootId, privacy: 'Private', details: 'North side',
      address: { street: '1 Main St', city: 'Kampala', country: 'Uganda' }, metaData: { venue: 'Hall', expected: 40, nested: { a: [1, 2] } }, id: 999, tenantId: 5,
    });
    expect(child.statusCode).toBe(201);
    const c = child.json();
    expect(c).toMatchObject({
      name: 'Zone North', parent: { id: rootId, name: 'Grace' }, privacy: 'Private', details: 'North side',
      address: { street: '1 Main St', city: 'Kampala', country: 'Uganda' }, metaData: { venue: 'Hall', expected: 40, nested: { a: [1, 2] } },
    });
    expect(c.id).not.toBe(999);
    expect(await pathOf(t.id, c.id)).toEqual({ path: `/${rootId}/${c.id}/`, parentId: rootId });

    const contactId = await newContact(ctx, t, 'Ann', 'Apple');
    const m = await a.post('/api/groups/membership', { groupId: c.id, contactId, role: 'Leader' });
    expect(m.statusCode, m.body).toBe(201);
    const read = await a.get(`/api/groups/${rootId}`);
    expect(read.statusCode).toBe(200);
    expect(read.json().children).toEqual([{ id: c.id, name: 'Zone North', category: { id: zone, name: 'Zone' }, privacy: 'Private' }]);
    expect(read.json().members).toEqual([]);
    expect(read.json().memberCount).toBe(0);
    const readChild = (await a.get(`/api/groups/${c.id}`)).json();
    expect(readChild.members).toEqual([{ id: expect.any(Number), contactId, role: 'Leader', isActive: true, contact: { id: contactId, firstName: 'Ann', lastName: 'Apple' } }]);
    expect(readChild.memberCount).toBe(1);
    expect(readChild.address.city).toBe('Kampala');
  });

  it('lists with filters categoryId, parentId, ancestorId, q, ordered by name, paginated', async () => {
    const t = await newTenant(ctx);
    const tree = await newTree(ctx, t);
    const a = api(ctx.app, t.admin.token);
    const all = (await a.get('/api/groups?limit=100')).json();
    expect(all.total).toBe(10);
    expect(all.data.map((g: { name: string }) => g.name)).toEqual([
      'Church', 'Cluster A', 'Cluster B', 'Fellowship A1', 'Fellowship A2', 'Fellowship B1', 'Location', 'Network', 'Zone A', 'Zone B',
    ]);
    const item = all.data.find((g: { id: number }) => g.id === tree.zoneA.id);
    expect(item).toMatchObject({ category: { name: 'Zone' }, parent: { id: tree.location.id, name: 'Location' }, address: { city: null, country: null } });

    const page2 = (await a.get('/api/groups?limit=3&page=2')).json();
    expect(page2).toMatchObject({ total: 10, page: 2, limit: 3 });
    expect(page2.data.map((g: { name: string }) => g.name)).toEqual(['Fellowship A1', 'Fellowship A2', 'Fellowship B1']);
    expect((await a.get('/api/groups?limit=1000')).json().limit).toBe(100);
    expect((await a.get('/api/groups?page=99')).json()).toMatchObject({ data: [], total: 10 });

    const fellowships = (await a.get(`/api/groups?categoryId=${tree.fellowshipA1.categoryId}`)).json();
    expect(fellowships.data.map((g: { name: string }) => g.name)).toEqual(['Fellowship A1', 'Fellowship A2', 'Fellowship B1']);
    const children = (await a.get(`/api/groups?parentId=${tree.location.id}`)).json();
    expect(children.data.map((g: { name: string }) => g.name)).toEqual(['Zone A', 'Zone B']);
    const under = (await a.get(`/api/groups?ancestorId=${tree.zoneA.id}`)).json();
    expect(under.data.map((g: { name: string }) => g.name)).toEqual(['Cluster A', 'Fellowship A1', 'Fellowship A2']);
    expect((await a.get(`/api/groups?ancestorId=${tree.church.id}`)).json().total).toBe(9);
    const q = (await a.get('/api/groups?q=FELLOW')).json();
    expect(q.total).toBe(3);
    expect((await a.get('/api/groups?q=%25')).json().total).toBe(0);
    expect((await a.get('/api/groups?sort=-name&limit=1')).json().data[0].name).toBe('Zone B');
    expect((await a.get('/api/groups?parentId=99999999')).json()).toMatchObject({ data: [], total: 0 });
    expect((await a.get('/api/groups?ancestorId=99999999')).json()).toMatchObject({ data: [], total: 0 });
  });

  it('updates fields and keeps what was left out', async () => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    const g = await newGroup(ctx, t, { name: 'Old', category: 'Church' });
    await a.put(`/api/groups/${g.id}`, { address: { city: 'Gulu' }, metaData: { x: 1 } });
    const res = await a.put(`/api/groups/${g.id}`, { name: 'New', privacy: 'Private', details: 'd', category: { id: 1 } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ name: 'New', privacy: 'Private', details: 'd', address: { city: 'Gulu', street: null }, metaData: { x: 1 } });
    const cleared = await a.put(`/api/groups/${g.id}`, { address: null, details: null, metaData: {} });
    expect(cleared.json()).toMatchObject({ details: null, address: { street: null, city: null, country: null }, metaData: {} });
  });

  it('moves a subtree in one go, rewriting every descendant path', async () => {
    const t = await newTenant(ctx);
    const tree = await newTree(ctx, t);
    const a = api(ctx.app, t.admin.token);
    const res = await a.put(`/api/groups/${tree.clusterA.id}`, { parentId: tree.zoneB.id });
    expect(res.statusCode).toBe(200);
    expect(res.json().parent).toEqual({ id: tree.zoneB.id, name: 'Zone B' });
    const base = `${tree.zoneB.path}${tree.clusterA.id}/`;
    expect(await pathOf(t.id, tree.clusterA.id)).toEqual({ path: base, parentId: tree.zoneB.id });
    expect((await pathOf(t.id, tree.fellowshipA1.id)).path).toBe(`${base}${tree.fellowshipA1.id}/`);
    expect((await pathOf(t.id, tree.fellowshipA2.id)).path).toBe(`${base}${tree.fellowshipA2.id}/`);
    expect((await pathOf(t.id, tree.zoneA.id)).path).toBe(tree.zoneA.path);
    const under = (await a.get(`/api/groups?ancestorId=${tree.zoneB.id}`)).json();
    expect(under.total).toBe(5);
    // to the root
    const root = await a.put(`/api/groups/${tree.zoneB.id}`, { parentId: null });
    expect(root.json().parent).toBeNull();
    expect((await pathOf(t.id, tree.fellowshipA1.id)).path).toBe(`/${tree.zoneB.id}/${tree.clusterA.id}/${tree.fellowshipA1.id}/`);
  });

  it('deletes a leaf group with its inactive memberships and handled requests', async () => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    const g = await newGroup(ctx, t, { name: 'Leaf', category: 'Church' });
    const c = await newContact(ctx, t);
    await addMembership(ctx, t, g, c, 'Member', false);
    const res = await a.delete(`/api/groups/${g.id}`);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect(await pathOf(t.id, g.id)).toBeUndefined();
    expect((await a.get(`/api/groups/${g.id}`)).statusCode).toBe(404);
  });

  it('single read carries the first 100 members by name and memberCount; the membership list has them all', async () => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    const g = await newGroup(ctx, t, { name: 'Crowd', category: 'Church' });
    // Inserted in reverse name order, so the name order is not the id order; one inactive member counts too.
    const ids = await withTenant(ctx.db, t.id, async (tx) => {
      const out: number[] = [];
      for (let i = 102; i >= 0; i--) out.push(await insertPersonContact(tx, t.id, { firstName: 'Pat', lastName: `Member${String(i).padStart(3, '0')}` }));
      await tx.insert(groupMemberships).values(out.map((contactId, k) => ({ tenantId: t.id, groupId: g.id, contactId, role: 'Member' as const, isActive: k !== 0 })));
      return out.reverse();
    });
    const read = (await a.get(`/api/groups/${g.id}`)).json();
    expect(read.memberCount).toBe(103);
    expect(read.members).toHaveLength(100);
    expect(read.members.map((m: { contactId: number }) => m.contactId)).toEqual(ids.slice(0, 100));
    expect(read.members[0].contact).toEqual({ id: ids[0], firstName: 'Pat', lastName: 'Member000' });
    const listed = [1, 2].map((page) => a.get(`/api/groups/membership?groupId=${g.id}&limit=100&page=${page}`));
    const [p1, p2] = await Promise.all(listed).then((rs) => rs.map((r) => r.json()));
    expect(p1.total).toBe(103);
    expect(new Set([...p1.data, ...p2.data].map((m: { contactId: number }) => m.contactId))).toEqual(new Set(ids));
  });

  it('combo lists visible groups flat, filtered by category', async () => {
    const t = await newTenant(ctx);
    const tree = await newTree(ctx, t);
    const a = api(ctx.app, t.admin.token);
    const all = (await a.get('/api/groups/combo')).json();
    expect(all.total).toBe(10);
    expect(all.data[0]).toEqual({ id: tree.church.id, name: 'Church', categoryId: tree.church.categoryId, parentId: null });
    const zones = (await a.get(`/api/groups/combo?categoryId=${tree.zoneA.categoryId}`)).json();
    expect(zones.data).toEqual([
      { id: tree.zoneA.id, name: 'Zone A', categoryId: tree.zoneA.categoryId, parentId: tree.location.id },
      { id: tree.zoneB.id, name: 'Zone B', categoryId: tree.zoneA.categoryId, parentId: tree.location.id },
    ]);
    expect((await a.get('/api/groups/combo?categoryId=99999')).json()).toEqual({ data: [], total: 0, page: 1, limit: 20 });
  });
});
