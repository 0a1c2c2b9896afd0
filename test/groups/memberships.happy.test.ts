import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { groupMemberships } from '../../src/db/schema/index.js';
import { api, setupTestApp } from '../helpers/app.js';
import { newTenant } from '../helpers/factories.js';
import { newContact, newGroup, newLeaderOf, newTree } from '../helpers/groups.factories.js';

const ctx = setupTestApp();

describe('memberships: happy paths', () => {
  it('creates, lists with filters, updates and deletes memberships', async () => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    const g1 = await newGroup(ctx, t, { name: 'One', category: 'Church' });
    const g2 = await newGroup(ctx, t, { name: 'Two', category: 'Church' });
    const ann = await newContact(ctx, t, 'Ann', 'Apple');
    const bob = await newContact(ctx, t, 'Bob', 'Berry');

    const created = await a.post('/api/groups/membership', { groupId: g1.id, contactId: ann });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toEqual({
      id: expect.any(Number), groupId: g1.id, contactId: ann, role: 'Member', isActive: true,
      group: { id: g1.id, name: 'One' }, contact: { id: ann, firstName: 'Ann', lastName: 'Apple' },
    });
    const m1 = created.json().id;
    await a.post('/api/groups/membership', { groupId: g1.id, contactId: bob, role: 'Leader', isActive: false });
    await a.post('/api/groups/membership', { groupId: g2.id, contactId: ann, role: 'Assistant' });

    const all = (await a.get('/api/groups/membership')).json();
    expect(all.total).toBe(3);
    expect((await a.get(`/api/groups/membership?groupId=${g1.id}`)).json().total).toBe(2);
    const anns = (await a.get(`/api/groups/membership?contactId=${ann}`)).json();
    expect(anns.data.map((m: { groupId: number; role: string }) => [m.groupId, m.role])).toEqual([[g1.id, 'Member'], [g2.id, 'Assistant']]);
    expect((await a.get(`/api/groups/membership?groupId=${g1.id}&contactId=${bob}`)).json().data[0]).toMatchObject({ role: 'Leader', isActive: false });
    expect((await a.get('/api/groups/membership?isActive=false')).json().total).toBe(1);
    expect((await a.get('/api/groups/membership?role=Assistant')).json().total).toBe(1);
    expect((await a.get('/api/groups/membership?groupId=99999999')).json()).toEqual({ data: [], total: 0, page: 1, limit: 20 });

    const updated = await a.put(`/api/groups/membership/${m1}`, { role: 'Leader' });
    expect(updated.statusCode).toBe(200);
    expect(updated.json()).toMatchObject({ id: m1, role: 'Leader', isActive: true });
    const deactivated = await a.put(`/api/groups/membership/${m1}`, { isActive: false, groupId: g2.id });
    expect(deactivated.json()).toMatchObject({ id: m1, role: 'Leader', isActive: false, groupId: g1.id });

    const del = await a.delete(`/api/groups/membership/${m1}`);
    expect(del.statusCode).toBe(204);
    const rows = await ctx.db.select().from(groupMemberships).where(and(eq(groupMemberships.tenantId, t.id), eq(groupMemberships.id, m1)));
    expect(rows).toEqual([]);
  });

  it('a zone leader manages memberships anywhere in the zone subtree', async () => {
    const t = await newTenant(ctx);
    const tree = await newTree(ctx, t);
    const leader = await newLeaderOf(ctx, t, tree.zoneA);
    const l = api(ctx.app, leader.token);
    const c = await newContact(ctx, t);
    const res = await l.post('/api/groups/membership', { groupId: tree.fellowshipA2.id, contactId: c });
    expect(res.statusCode).toBe(201);
    expect((await l.put(`/api/groups/membership/${res.json().id}`, { role: 'Assistant' })).statusCode).toBe(200);
    expect((await l.delete(`/api/groups/membership/${res.json().id}`)).statusCode).toBe(204);
  });
});
