import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { recordChanges } from '../../src/changes/recorder.js';
import type { ChangeType } from '../../src/changes/types.js';
import { withTenant } from '../../src/db/client.js';
import { api, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser, type TestTenant, type TestUser } from '../helpers/factories.js';
import { addMembership, newLeaderOf, newMemberOf, newTree } from '../helpers/groups.factories.js';
import { queryRows } from '../helpers/notifications.factories.js';

const ctx = setupTestApp();
const N = '/api/notifications';
const TYPES = ['task.assigned', 'membership_request.created', 'membership_request.approved', 'membership_request.rejected', 'request.created', 'report.missing', 'message.failed'];

async function change(t: TestTenant, actorUserId: number | null, type: ChangeType, entityId: number, data: Record<string, unknown> = {}) {
  await withTenant(ctx.db, t.id, (tx) => recordChanges(tx, { tenantId: t.id, userId: actorUserId }, [{ type, entityId, data }]));
}

/**
 * The route records its change once the changes issue lands in the groups module; until then the
 * test records what the route would have (same type, entity and data), so either way the
 * subscriber is exercised on a real membership request row.
 */
async function ensureChange(t: TestTenant, actor: TestUser, type: ChangeType, entityId: number, data: Record<string, unknown>) {
  const found = await queryRows(ctx, sql`select 1 from changes where tenant_id = ${t.id} and type = ${type} and entity_id = ${entityId}`);
  if (found.length === 0) await change(t, actor.id, type, entityId, data);
}

const inbox = async (u: TestUser) => (await api(ctx.app, u.token).get(N)).json();
const mailsTo = (email: string) => ctx.mailer.sent.filter((m) => m.to === email);

describe('inbox: notifications from changes', () => {
  let t: TestTenant;
  let tree: Awaited<ReturnType<typeof newTree>>;
  beforeAll(async () => {
    t = await newTenant(ctx);
    tree = await newTree(ctx, t);
  });

  it('task.assigned: the assignee gets an unread notification (and an email); list, unread-count, read, read-all', async () => {
    const assignee = await newUser(ctx, t, 'Member', { email: 'assignee@example.org' });
    const u = api(ctx.app, assignee.token);
    expect((await u.get(`${N}/unread-count`)).json()).toEqual({ count: 0 });
    await change(t, t.admin.id, 'task.assigned', 501, { assigneeUserId: assignee.id, title: 'Call the visitors' });
    await change(t, t.admin.id, 'task.assigned', 502, { assigneeUserId: assignee.id, title: 'Order chairs' });
    await change(t, t.admin.id, 'task.assigned', 503, { assigneeUserId: t.admin.id, title: 'Self-assigned' }); // the actor is never notified
    await ctx.app.worker.drain();

    const list = await inbox(assignee);
    expect(list).toMatchObject({ total: 2, page: 1, limit: 20 });
    expect(list.data[0]).toEqual({
      id: expect.any(Number), type: 'task.assigned', title: 'A task was assigned to you', body: 'Order chairs',
      link: { entityType: 'task', entityId: 502 }, createdAt: expect.stringMatching(/Z$/), readAt: null,
    });
    expect(list.data[1].body).toBe('Call the visitors'); // newest first
    expect((await u.get(`${N}/unread-count`)).json()).toEqual({ count: 2 });
    expect(mailsTo('assignee@example.org').map((m) => m.text).sort()).toEqual(['Call the visitors', 'Order chairs']);
    expect((await inbox(t.admin)).total).toBe(0);

    const read = await u.put(`${N}/${list.data[1].id}/read`);
    expect(read.statusCode).toBe(200);
    expect(read.json()).toMatchObject({ id: list.data[1].id, readAt: expect.any(String) });
    const again = await u.put(`${N}/${list.data[1].id}/read`);
    expect(again.json().readAt).toBe(read.json().readAt);
    expect((await u.get(`${N}/unread-count`)).json()).toEqual({ count: 1 });
    expect((await u.get(`${N}?unread=true`)).json()).toMatchObject({ total: 1, data: [{ id: list.data[0].id }] });
    expect((await u.get(`${N}?unread=false`)).json()).toMatchObject({ total: 1, data: [{ id: list.data[1].id }] });

    // Someone else's notification is not yours to read.
    expect((await api(ctx.app, t.admin.token).put(`${N}/${list.data[0].id}/read`)).statusCode).toBe(404);

    expect((await u.put(`${N}/read-all`)).json()).toEqual({ updated: 1 });
    expect((await u.put(`${N}/read-all`)).json()).toEqual({ updated: 0 });
    expect((await u.get(`${N}/unread-count`)).json()).toEqual({ count: 0 });
  });

  it('membership_request.created reaches the leaders who may decide it; approved and rejected reach the requester', async () => {
    const zoneLeader = await newLeaderOf(ctx, t, tree.zoneA);
    const fellowshipLeader = await newLeaderOf(ctx, t, tree.fellowshipA1);
    const otherLeader = await newLeaderOf(ctx, t, tree.zoneB);
    const fellowMember = await newMemberOf(ctx, t, tree.fellowshipA1);
    const requester = await newMemberOf(ctx, t);
    const created = await api(ctx.app, requester.token).post('/api/groups/membership-request', { groupId: tree.fellowshipA1.id });
    expect(created.statusCode).toBe(201);
    const req = created.json();
    await ensureChange(t, requester, 'membership_request.created', req.id, { contactId: requester.contactId, groupId: tree.fellowshipA1.id });
    await ctx.app.worker.drain();

    for (const leader of [zoneLeader, fellowshipLeader]) {
      const list = await inbox(leader);
      expect(list.total).toBe(1);
      expect(list.data[0]).toMatchObject({
        type: 'membership_request.created', title: 'New membership request', body: `Test ${requester.username} asked to join Fellowship A1`,
        link: { entityType: 'membership_request', entityId: req.id },
      });
    }
    for (const nobody of [otherLeader, fellowMember, requester]) expect((await inbox(nobody)).total).toBe(0);
    expect((await inbox(t.admin)).total).toBe(0);

    const approved = await api(ctx.app, fellowshipLeader.token).put(`/api/groups/membership-request/${req.id}/approve`);
    expect(approved.statusCode).toBe(200);
    await ensureChange(t, fellowshipLeader, 'membership_request.approved', req.id, { contactId: requester.contactId, groupId: tree.fellowshipA1.id });
    await ctx.app.worker.drain();
    expect((await inbox(requester)).data[0]).toMatchObject({
      type: 'membership_request.approved', body: 'Your request to join Fellowship A1 was approved', link: { entityType: 'group', entityId: tree.fellowshipA1.id },
    });

    const second = (await api(ctx.app, requester.token).post('/api/groups/membership-request', { groupId: tree.clusterA.id })).json();
    await ensureChange(t, requester, 'membership_request.created', second.id, { contactId: requester.contactId, groupId: tree.clusterA.id });
    expect((await api(ctx.app, zoneLeader.token).put(`/api/groups/membership-request/${second.id}/reject`)).statusCode).toBe(200);
    await ensureChange(t, zoneLeader, 'membership_request.rejected', second.id, { contactId: requester.contactId, groupId: tree.clusterA.id });
    await ctx.app.worker.drain();
    expect((await inbox(requester)).data[0]).toMatchObject({ type: 'membership_request.rejected', body: 'Your request to join Cluster A was rejected' });
    // Cluster A is above the fellowship leader's group: only the zone leader was told.
    expect((await inbox(fellowshipLeader)).total).toBe(1);
    expect((await inbox(zoneLeader)).total).toBe(2);
  });

  it('a Prayer request reaches the leaders of the contact’s fellowship; other request types do not', async () => {
    const leader = await newLeaderOf(ctx, t, tree.fellowshipB1);
    const assistant = await newLeaderOf(ctx, t, tree.fellowshipB1, 'Assistant');
    const zoneLeader = await newLeaderOf(ctx, t, tree.zoneB);
    const member = await newMemberOf(ctx, t, tree.fellowshipB1);
    const a = api(ctx.app, t.admin.token);
    const prayer = await a.post('/api/crm/requests', { contactId: member.contactId, type: 'Prayer', description: 'For my exams' });
    expect(prayer.statusCode, prayer.body).toBe(201);
    const visit = await a.post('/api/crm/requests', { contactId: member.contactId, type: 'Visitation', description: 'Hospital' });
    expect(visit.statusCode).toBe(201);
    await ensureChange(t, t.admin, 'request.created', prayer.json().id, { contactId: member.contactId, type: 'Prayer' });
    await ensureChange(t, t.admin, 'request.created', visit.json().id, { contactId: member.contactId, type: 'Visitation', description: 'Hospital' });
    await ctx.app.worker.drain();
    // (Other modules may notify too, e.g. a follow-up task assigned by an automation: only request.created counts here.)
    const prayers = async (u: TestUser) => (await inbox(u)).data.filter((n: { type: string }) => n.type === 'request.created');
    for (const u of [leader, assistant]) {
      const list = await prayers(u);
      expect(list).toHaveLength(1);
      expect(list[0]).toMatchObject({ type: 'request.created', title: 'New prayer request', body: `Test ${member.username} asked for prayer`, link: { entityType: 'request', entityId: prayer.json().id } });
    }
    expect(await prayers(zoneLeader)).toHaveLength(0);
    expect(await prayers(member)).toHaveLength(0);
  });

  it('report.missing reaches the group’s leaders', async () => {
    const leader = await newLeaderOf(ctx, t, tree.clusterB);
    await change(t, null, 'report.missing', 77, { groupId: tree.clusterB.id, templateName: 'Weekly cell report', periodStart: '2026-11-15' });
    await ctx.app.worker.drain();
    expect((await inbox(leader)).data[0]).toMatchObject({
      type: 'report.missing', title: 'Report missing', body: 'Cluster B has not submitted Weekly cell report for the week of 2026-11-15',
      link: { entityType: 'group', entityId: tree.clusterB.id },
    });
  });

  it('preferences: defaults all true; switching email or in-app off for a type is honoured', async () => {
    const user = await newUser(ctx, t, 'Member', { email: 'prefs@example.org' });
    const u = api(ctx.app, user.token);
    const defaults = (await u.get(`${N}/preferences`)).json();
    expect(defaults).toEqual({ email: Object.fromEntries(TYPES.map((k) => [k, true])), inApp: Object.fromEntries(TYPES.map((k) => [k, true])) });

    const put = await u.put(`${N}/preferences`, { email: { 'task.assigned': false, 'no.such.type': false } });
    expect(put.statusCode).toBe(200);
    expect(put.json().email).toEqual({ ...defaults.email, 'task.assigned': false });
    expect(put.json().inApp).toEqual(defaults.inApp);
    await change(t, t.admin.id, 'task.assigned', 601, { assigneeUserId: user.id, title: 'In-app only' });
    await ctx.app.worker.drain();
    expect((await inbox(user)).data[0].body).toBe('In-app only');
    expect(mailsTo('prefs@example.org')).toHaveLength(0);

    // A second PUT merges: email stays off, in-app goes off too.
    const both = (await u.put(`${N}/preferences`, { inApp: { 'task.assigned': false } })).json();
    expect(both.email['task.assigned']).toBe(false);
    expect(both.inApp['task.assigned']).toBe(false);
    await u.put(`${N}/preferences`, { email: { 'task.assigned': true } });
    await change(t, t.admin.id, 'task.assigned', 602, { assigneeUserId: user.id, title: 'Email only' });
    await ctx.app.worker.drain();
    expect((await inbox(user)).total).toBe(1);
    expect(mailsTo('prefs@example.org').map((m) => m.text)).toEqual(['Email only']);
    expect((await u.get(`${N}/preferences`)).json()).toEqual({ email: defaults.email, inApp: { ...defaults.inApp, 'task.assigned': false } });
  });

  it('a user without an email of their own is written to at their contact’s primary email', async () => {
    const user = await newUser(ctx, t, 'Member');
    await ctx.db.execute(sql`insert into contact_emails (tenant_id, contact_id, value, is_primary) values (${t.id}, ${user.contactId}, 'contact-mail@example.org', true)`);
    await change(t, t.admin.id, 'task.assigned', 701, { assigneeUserId: user.id, title: 'Via contact' });
    await ctx.app.worker.drain();
    expect(mailsTo('contact-mail@example.org').map((m) => m.text)).toEqual(['Via contact']);
  });

  it('a change with malformed or missing ids notifies nobody and leaves nothing stuck in the queue', async () => {
    await change(t, t.admin.id, 'task.assigned', 900, { assigneeUserId: 'abc' });
    await change(t, t.admin.id, 'task.assigned', 901, {});
    await change(t, null, 'report.missing', 902, { groupId: { id: 1 } });
    await change(t, null, 'membership_request.created', 999999, { groupId: -1 });
    await ctx.app.worker.drain();
    const [row] = await queryRows<{ n: string }>(ctx, sql`select count(*) as n from change_queue where tenant_id = ${t.id}`);
    expect(Number(row.n)).toBe(0);
  });

  it('inbox pages: limit, page past the end', async () => {
    const user = await newUser(ctx, t, 'Member');
    for (let i = 0; i < 3; i++) await change(t, t.admin.id, 'task.assigned', 800 + i, { assigneeUserId: user.id, title: `T${i}` });
    await ctx.app.worker.drain();
    const u = api(ctx.app, user.token);
    expect((await u.get(`${N}?limit=2`)).json()).toMatchObject({ total: 3, limit: 2, data: [{ body: 'T2' }, { body: 'T1' }] });
    expect((await u.get(`${N}?limit=2&page=2`)).json()).toMatchObject({ total: 3, page: 2, data: [{ body: 'T0' }] });
    expect((await u.get(`${N}?page=9`)).json()).toMatchObject({ total: 3, data: [] });
  });
});
