import { beforeAll, describe, expect, it } from 'vitest';
import { addDays, todayIn } from '../../src/lib/periods.js';
import { api, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser, type TestTenant, type TestUser } from '../helpers/factories.js';
import { newContact, newGroup, type TestGroup } from '../helpers/groups.factories.js';
import { changesOf, newTask } from '../helpers/tasks.factories.js';

const ctx = setupTestApp();
const today = () => todayIn('UTC');

describe('tasks: create, read, list, update', () => {
  let t: TestTenant;
  let worker: TestUser;
  let group: TestGroup;
  let contactId: number;
  beforeAll(async () => {
    t = await newTenant(ctx);
    worker = await newUser(ctx, t, ['tasks:read', 'tasks:write', 'hierarchy:all'], { username: 'worker' });
    group = await newGroup(ctx, t, { name: 'Riverside' });
    contactId = await newContact(ctx, t, 'Jane', 'Guest');
  });

  it('creates a task with every field and records task.created and task.assigned', async () => {
    const res = await api(ctx.app, t.admin.token).post('/api/tasks', {
      title: 'Call Jane', description: 'About the camp', contactId, groupId: group.id, assigneeUserId: worker.id, dueDate: addDays(today(), 3), priority: 'High',
    });
    expect(res.statusCode).toBe(201);
    const task = res.json();
    expect(task).toMatchObject({
      title: 'Call Jane', description: 'About the camp', status: 'Open', priority: 'High', dueDate: addDays(today(), 3), overdue: false, confidential: false,
      assignee: { id: worker.id, username: 'worker' }, contact: { id: contactId, firstName: 'Jane', lastName: 'Guest' }, group: { id: group.id, name: 'Riverside' },
      request: null, card: null, completedAt: null,
    });
    const feed = await changesOf(ctx, t, 'task', task.id);
    expect(feed.map((c) => c.type)).toEqual(['task.created', 'task.assigned']);
    expect(feed[0].actorUserId).toBe(t.admin.id);
    expect(feed[0].data).toMatchObject({ contactId, groupId: group.id, confidential: false, title: 'Call Jane' });
    expect(feed[1].data).toMatchObject({ assigneeUserId: worker.id, contactId });
  });

  it('defaults: Normal priority, no due date, unassigned, no task.assigned', async () => {
    const task = await newTask(ctx, t.admin, { title: 'Plain' });
    expect(task).toMatchObject({ priority: 'Normal', dueDate: null, assignee: null, overdue: false, status: 'Open' });
    expect((await changesOf(ctx, t, 'task', task.id)).map((c) => c.type)).toEqual(['task.created']);
  });

  it('walks the status machine; completedAt on Done; reopen clears it; changes carry the diff', async () => {
    const task = await newTask(ctx, t.admin, { title: 'Machine', contactId });
    const client = api(ctx.app, t.admin.token);
    let res = await client.put(`/api/tasks/${task.id}`, { status: 'InProgress' });
    expect(res.json()).toMatchObject({ status: 'InProgress', completedAt: null });
    res = await client.put(`/api/tasks/${task.id}`, { status: 'Done' });
    expect(res.json().status).toBe('Done');
    expect(typeof res.json().completedAt).toBe('string');
    res = await client.put(`/api/tasks/${task.id}`, { status: 'Open' });
    expect(res.json()).toMatchObject({ status: 'Open', completedAt: null });
    res = await client.put(`/api/tasks/${task.id}`, { status: 'Cancelled' });
    expect(res.json().status).toBe('Cancelled');
    const feed = await changesOf(ctx, t, 'task', task.id);
    expect(feed.map((c) => c.type)).toEqual(['task.created', 'task.updated', 'task.updated', 'task.completed', 'task.updated', 'task.updated']);
    expect(feed[2].changes).toEqual({ status: { from: 'InProgress', to: 'Done' } });
    expect(feed[3].data).toMatchObject({ contactId, title: 'Machine' });
  });

  it('updates fields, reassigns (task.assigned) and shows comments and history', async () => {
    const task = await newTask(ctx, t.admin, { title: 'Before', dueDate: addDays(today(), 1) });
    const client = api(ctx.app, t.admin.token);
    const res = await client.put(`/api/tasks/${task.id}`, { title: 'After', assigneeUserId: worker.id, priority: 'Urgent' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ title: 'After', priority: 'Urgent', assignee: { id: worker.id } });
    const comment = await client.post(`/api/tasks/${task.id}/comments`, { body: 'Left a message' });
    expect(comment.statusCode).toBe(201);
    expect(comment.json()).toMatchObject({ body: 'Left a message', author: { id: t.admin.id, username: 'admin' } });
    const detail = (await client.get(`/api/tasks/${task.id}`)).json();
    expect(detail.comments).toHaveLength(1);
    expect(detail.history[0]).toMatchObject({ type: 'task.created', field: null, actor: { id: t.admin.id, username: 'admin' } });
    const fields = detail.history.filter((h: { field: string | null }) => h.field).map((h: { field: string; from: unknown; to: unknown }) => [h.field, h.from, h.to]);
    expect(fields).toEqual(expect.arrayContaining([['title', 'Before', 'After'], ['assigneeUserId', null, worker.id], ['priority', 'Normal', 'Urgent']]));
    const types = (await changesOf(ctx, t, 'task', task.id)).map((c) => c.type);
    expect(types).toContain('task.assigned');
  });

  it('a PUT that changes nothing records nothing', async () => {
    const task = await newTask(ctx, t.admin, { title: 'Same' });
    const res = await api(ctx.app, t.admin.token).put(`/api/tasks/${task.id}`, { title: 'Same', status: 'Open' });
    expect(res.statusCode).toBe(200);
    expect((await changesOf(ctx, t, 'task', task.id)).length).toBe(1);
  });

  it('deletes a task (204, then 404)', async () => {
    const task = await newTask(ctx, t.admin, { title: 'Gone' });
    const client = api(ctx.app, t.admin.token);
    expect((await client.delete(`/api/tasks/${task.id}`)).statusCode).toBe(204);
    expect((await client.get(`/api/tasks/${task.id}`)).statusCode).toBe(404);
  });

  it('POST with an Idempotency-Key creates once and replays the first response', async () => {
    const client = api(ctx.app, t.admin.token);
    const first = await client.post('/api/tasks', { title: 'Once' }, { 'idempotency-key': 'task-once-1' });
    const again = await client.post('/api/tasks', { title: 'Once' }, { 'idempotency-key': 'task-once-1' });
    expect(first.statusCode).toBe(201);
    expect(again.statusCode).toBe(201);
    expect(again.json().id).toBe(first.json().id);
    expect((await client.get('/api/tasks?q=Once')).json().total).toBe(1);
  });

  it('a task on a request takes its contact', async () => {
    const req = await api(ctx.app, t.admin.token).post('/api/crm/requests', { contactId, type: 'Prayer', description: 'For healing' });
    expect(req.statusCode).toBe(201);
    const task = await newTask(ctx, t.admin, { title: 'Pray', requestId: req.json().id });
    expect(task).toMatchObject({ request: { id: req.json().id, type: 'Prayer' }, contact: { id: contactId } });
  });
});

describe('tasks: list filters, overdue and sort', () => {
  let t: TestTenant;
  let me: TestUser;
  let other: TestUser;
  let group: TestGroup;
  let child: TestGroup;
  let contactId: number;
  const ids: Record<string, number> = {};
  beforeAll(async () => {
    t = await newTenant(ctx);
    me = await newUser(ctx, t, ['tasks:read', 'tasks:write', 'hierarchy:all', 'care:read']);
    other = await newUser(ctx, t, ['tasks:read']);
    group = await newGroup(ctx, t, { name: 'Zone', category: 'Zone' });
    child = await newGroup(ctx, t, { name: 'Cell', parent: group });
    contactId = await newContact(ctx, t);
    const d = (n: number) => addDays(today(), n);
    ids.overdueMine = (await newTask(ctx, me, { title: 'Overdue mine', assigneeUserId: me.id, dueDate: d(-2), priority: 'Low', groupId: child.id })).id;
    ids.dueToday = (await newTask(ctx, me, { title: 'Due today', assigneeUserId: me.id, dueDate: d(0), priority: 'Urgent' })).id;
    ids.overdueOther = (await newTask(ctx, me, { title: 'Overdue other', assigneeUserId: other.id, dueDate: d(-1), groupId: group.id, contactId })).id;
    ids.future = (await newTask(ctx, me, { title: 'Future unassigned', dueDate: d(10), priority: 'High' })).id;
    ids.noDue = (await newTask(ctx, me, { title: 'No due date' })).id;
    ids.doneLate = (await newTask(ctx, me, { title: 'Done late', assigneeUserId: me.id, dueDate: d(-5) })).id;
    await api(ctx.app, me.token).put(`/api/tasks/${ids.doneLate}`, { status: 'Done' });
  });
  const list = async (query: string) => {
    const res = await api(ctx.app, me.token).get(`/api/tasks?limit=100&${query}`);
    expect(res.statusCode).toBe(200);
    return res.json() as { data: { id: number; title: string; overdue: boolean }[]; total: number };
  };
  const titles = async (query: string) => (await list(query)).data.map((x) => x.title);

  it('sorts by dueDate by default (no due date last), ties by id', async () => {
    expect(await titles('')).toEqual(['Done late', 'Overdue mine', 'Overdue other', 'Due today', 'Future unassigned', 'No due date']);
  });
  it('overdue=true: due before today and still open; overdue flags agree', async () => {
    expect(await titles('overdue=true')).toEqual(['Overdue mine', 'Overdue other']);
    const all = await list('');
    expect(all.data.filter((x) => x.overdue).map((x) => x.title)).toEqual(['Overdue mine', 'Overdue other']);
    expect(await titles('overdue=false')).toEqual(['Done late', 'Due today', 'Future unassigned', 'No due date']);
  });
  it('assignee=me, a user id, unassigned', async () => {
    expect(await titles('assignee=me&overdue=true')).toEqual(['Overdue mine']);
    expect(await titles(`assignee=${other.id}`)).toEqual(['Overdue other']);
    expect(await titles('assignee=unassigned')).toEqual(['Future unassigned', 'No due date']);
  });
  it('status, priority, dueFrom/dueTo, contactId, q', async () => {
    expect(await titles('status=Done')).toEqual(['Done late']);
    expect(await titles('priority=Urgent')).toEqual(['Due today']);
    expect(await titles(`dueFrom=${addDays(today(), -2)}&dueTo=${today()}`)).toEqual(['Overdue mine', 'Overdue other', 'Due today']);
    expect(await titles(`contactId=${contactId}`)).toEqual(['Overdue other']);
    expect(await titles('q=OVERDUE')).toEqual(['Overdue mine', 'Overdue other']);
  });
  it('groupId covers the subtree unless includeDescendants=false; unknown group lists nothing', async () => {
    expect(await titles(`groupId=${group.id}`)).toEqual(['Overdue mine', 'Overdue other']);
    expect(await titles(`groupId=${group.id}&includeDescendants=false`)).toEqual(['Overdue other']);
    expect(await list('groupId=999999')).toMatchObject({ data: [], total: 0 });
  });
  it('sort=-createdAt and sort=priority', async () => {
    expect((await titles('sort=-createdAt'))[0]).toBe('Done late');
    expect((await titles('sort=priority')).slice(0, 2)).toEqual(['Due today', 'Future unassigned']);
  });
  it('pages with the true total', async () => {
    const res = await api(ctx.app, me.token).get('/api/tasks?limit=2&page=2');
    expect(res.json()).toMatchObject({ total: 6, page: 2, limit: 2 });
    expect(res.json().data).toHaveLength(2);
    const past = await api(ctx.app, me.token).get('/api/tasks?limit=2&page=9');
    expect(past.json()).toMatchObject({ data: [], total: 6 });
  });
  it("overdue follows the tenant's time zone", async () => {
    // At UTC+14 the local date is never behind UTC: a task due "yesterday in UTC+14" is overdue there.
    const admin = api(ctx.app, t.admin.token);
    expect((await admin.put('/api/tenants/current', { timeZone: 'Pacific/Kiritimati' })).statusCode).toBe(200);
    const local = todayIn('Pacific/Kiritimati');
    const task = await newTask(ctx, me, { title: 'Zone test', dueDate: addDays(local, -1) });
    expect((await api(ctx.app, me.token).get(`/api/tasks/${task.id}`)).json().overdue).toBe(true);
    const edge = await newTask(ctx, me, { title: 'Zone edge', dueDate: local });
    expect((await api(ctx.app, me.token).get(`/api/tasks/${edge.id}`)).json().overdue).toBe(false);
    await admin.put('/api/tenants/current', { timeZone: 'UTC' });
    await api(ctx.app, me.token).delete(`/api/tasks/${task.id}`);
    await api(ctx.app, me.token).delete(`/api/tasks/${edge.id}`);
  });
});

describe('tasks: bulk actions', () => {
  let t: TestTenant;
  let helper: TestUser;
  beforeAll(async () => {
    t = await newTenant(ctx);
    helper = await newUser(ctx, t, ['tasks:read']);
  });

  it('completes, cancels and assigns with per-id skipped, and records one change set', async () => {
    const a = await newTask(ctx, t.admin, { title: 'A' });
    const b = await newTask(ctx, t.admin, { title: 'B' });
    const c = await newTask(ctx, t.admin, { title: 'C' });
    const client = api(ctx.app, t.admin.token);
    await client.put(`/api/tasks/${c.id}`, { status: 'Cancelled' });
    let res = await client.post('/api/tasks/bulk', { ids: [a.id, b.id, c.id, 999999], action: 'complete' });
    expect(res.statusCode).toBe(200);
    expect(res.json().updated).toEqual([a.id, b.id]);
    expect(res.json().skipped).toEqual([
      { id: c.id, reason: 'A task cannot go from Cancelled to Done' },
      { id: 999999, reason: 'Task with id 999999 not found' },
    ]);
    expect((await changesOf(ctx, t, 'task', a.id)).map((x) => x.type)).toEqual(['task.created', 'task.updated', 'task.completed']);
    res = await client.post('/api/tasks/bulk', { ids: [a.id, c.id], action: 'complete' });
    expect(res.json()).toEqual({ updated: [], skipped: [{ id: a.id, reason: 'Already Done' }, { id: c.id, reason: 'A task cannot go from Cancelled to Done' }] });
    res = await client.post('/api/tasks/bulk', { ids: [a.id, b.id, c.id], action: 'assign', assigneeUserId: helper.id });
    expect(res.json().updated).toEqual([a.id, b.id, c.id]);
    expect((await client.get(`/api/tasks/${c.id}`)).json().assignee).toEqual({ id: helper.id, username: helper.username });
    expect((await changesOf(ctx, t, 'task', c.id)).map((x) => x.type)).toContain('task.assigned');
    const reopened = await client.put(`/api/tasks/${c.id}`, { status: 'Open' });
    expect(reopened.statusCode).toBe(200);
    res = await client.post('/api/tasks/bulk', { ids: [c.id], action: 'cancel' });
    expect(res.json().updated).toEqual([c.id]);
  });

  it('an assignee without tasks:write may bulk-complete their own tasks, not others', async () => {
    const mine = await newTask(ctx, t.admin, { title: 'Mine', assigneeUserId: helper.id });
    const notMine = await newTask(ctx, t.admin, { title: 'Not mine' });
    const res = await api(ctx.app, helper.token).post('/api/tasks/bulk', { ids: [mine.id, notMine.id], action: 'complete' });
    expect(res.json().updated).toEqual([mine.id]);
    // Without a group and without hierarchy:all the other task is not even visible to them.
    expect(res.json().skipped).toEqual([{ id: notMine.id, reason: `Task with id ${notMine.id} not found` }]);
  });
});
