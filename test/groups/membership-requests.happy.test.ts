import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { groupMembershipRequests, groupMemberships } from '../../src/db/schema/index.js';
import { api, setupTestApp } from '../helpers/app.js';
import { newTenant } from '../helpers/factories.js';
import { addMembership, newContact, newLeaderOf, newMemberOf, newTree } from '../helpers/groups.factories.js';

const ctx = setupTestApp();

describe('membership requests: happy paths', () => {
  it('a member requests, the leader sees it pending and approves: an active Member membership appears', async () => {
    const t = await newTenant(ctx);
    const tree = await newTree(ctx, t);
    const leader = await newLeaderOf(ctx, t, tree.clusterA);
    const member = await newMemberOf(ctx, t);
    const m = api(ctx.app, member.token);
    const l = api(ctx.app, leader.token);

    const created = await m.post('/api/groups/membership-request', { groupId: tree.fellowshipA1.id });
    expect(created.statusCode).toBe(201);
    const req = created.json();
    expect(req).toEqual({
      id: expect.any(Number), contactId: member.contactId, groupId: tree.fellowshipA1.id, status: 'Pending',
      contact: { id: member.contactId, firstName: 'Test', lastName: member.username }, group: { id: tree.fellowshipA1.id, name: 'Fellowship A1' },
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/), handledAt: null, handledBy: null,
    });

    const pending = (await l.get('/api/groups/membership-request')).json();
    expect(pending).toMatchObject({ total: 1, page: 1, limit: 20 });
    expect(pending.data[0].id).toBe(req.id);
    expect((await m.get('/api/groups/membership-request')).json()).toEqual({ data: [], total: 0, page: 1, limit: 20 });

    const approved = await l.put(`/api/groups/membership-request/${req.id}/approve`);
    expect(approved.statusCode).toBe(200);
    const body = approved.json();
    expect(body).toMatchObject({ id: req.id, status: 'Approved', handledBy: leader.id });
    expect(Date.parse(body.handledAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(body.membership).toMatchObject({ groupId: tree.fellowshipA1.id, contactId: member.contactId, role: 'Member', isActive: true });
    const rows = await ctx.db.select().from(groupMemberships).where(and(eq(groupMemberships.tenantId, t.id), eq(groupMemberships.contactId, member.contactId)));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ groupId: tree.fellowshipA1.id, role: 'Member', isActive: true });
    expect((await l.get('/api/groups/membership-request')).json().total).toBe(0);
  });

  it('approve reactivates an inactive membership as Member; accepts {} and an empty JSON body', async () => {
    const t = await newTenant(ctx);
    const tree = await newTree(ctx, t);
    const c = await newContact(ctx, t);
    await addMembership(ctx, t, tree.zoneA, c, 'Leader', false);
    const a = api(ctx.app, t.admin.token);
    const req = (await a.post('/api/groups/membership-request', { groupId: tree.zoneA.id, contactId: c })).json();
    const res = await a.put(`/api/groups/membership-request/${req.id}/approve`, {});
    expect(res.statusCode).toBe(200);
    expect(res.json().membership).toMatchObject({ role: 'Member', isActive: true });
    const rows = await ctx.db.select().from(groupMemberships).where(and(eq(groupMemberships.tenantId, t.id), eq(groupMemberships.contactId, c)));
    expect(rows).toHaveLength(1);

    const c2 = await newContact(ctx, t);
    const req2 = (await a.post('/api/groups/membership-request', { groupId: tree.zoneA.id, contactId: c2 })).json();
    const empty = await a.put(`/api/groups/membership-request/${req2.id}/approve`, '', { 'content-type': 'application/json' });
    expect(empty.statusCode).toBe(200);
  });

  it('reject records the decision and creates no membership; a new request may follow', async () => {
    const t = await newTenant(ctx);
    const tree = await newTree(ctx, t);
    const member = await newMemberOf(ctx, t);
    const m = api(ctx.app, member.token);
    const a = api(ctx.app, t.admin.token);
    const req = (await m.post('/api/groups/membership-request', { groupId: tree.zoneA.id })).json();
    const res = await a.put(`/api/groups/membership-request/${req.id}/reject`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'Rejected', handledBy: t.admin.id });
    expect(res.json().membership).toBeUndefined();
    const rows = await ctx.db.select().from(groupMemberships).where(and(eq(groupMemberships.tenantId, t.id), eq(groupMemberships.contactId, member.contactId)));
    expect(rows).toEqual([]);
    const again = await m.post('/api/groups/membership-request', { groupId: tree.zoneA.id });
    expect(again.statusCode).toBe(201);
    const [stored] = await ctx.db.select().from(groupMembershipRequests).where(and(eq(groupMembershipRequests.tenantId, t.id), eq(groupMembershipRequests.id, req.id)));
    expect(stored).toMatchObject({ status: 'Rejected', handledBy: t.admin.id });
    expect(stored.handledAt).toBeInstanceOf(Date);
  });

  it('the admin sees every pending request; filters groupId and contactId', async () => {
    const t = await newTenant(ctx);
    const tree = await newTree(ctx, t);
    const a = api(ctx.app, t.admin.token);
    const c1 = await newContact(ctx, t);
    const c2 = await newContact(ctx, t);
    await a.post('/api/groups/membership-request', { groupId: tree.zoneA.id, contactId: c1 });
    await a.post('/api/groups/membership-request', { groupId: tree.fellowshipB1.id, contactId: c2 });
    expect((await a.get('/api/groups/membership-request')).json().total).toBe(2);
    expect((await a.get(`/api/groups/membership-request?groupId=${tree.zoneA.id}`)).json().data[0].contactId).toBe(c1);
    expect((await a.get(`/api/groups/membership-request?contactId=${c2}`)).json().data[0].groupId).toBe(tree.fellowshipB1.id);
  });
});
