import { beforeAll, describe, expect, it } from 'vitest';
import { addDays, todayIn } from '../../src/lib/periods.js';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser, type TestTenant, type TestUser } from '../helpers/factories.js';
import { newContact, newGroup, type TestGroup } from '../helpers/groups.factories.js';
import { changesOf, newPeoplePipeline } from '../helpers/tasks.factories.js';

const ctx = setupTestApp();
const today = () => todayIn('UTC');

describe('pipelines', () => {
  let t: TestTenant;
  let helper: TestUser;
  beforeAll(async () => {
    t = await newTenant(ctx);
    helper = await newUser(ctx, t, ['tasks:read']);
  });

  it('every new tenant has the New people pipeline and the two active automations', async () => {
    const client = api(ctx.app, t.admin.token);
    const res = await client.get('/api/tasks/pipelines');
    expect(res.statusCode).toBe(200);
    expect(res.json().total).toBe(1);
    const [p] = res.json().data;
    expect(p).toMatchObject({ name: 'New people', isActive: true });
    expect(p.steps.map((s: { name: string; dueInDays: number; position: number }) => [s.position, s.name, s.dueInDays])).toEqual([
      [1, 'Welcome call', 2], [2, 'Matched to a fellowship', 7], [3, 'Attended a fellowship', 14], [4, 'Joined a serving team', 30], [5, 'Baptised', 60],
    ]);
    const autos = (await client.get('/api/tasks/automations')).json();
    expect(autos.data.map((a: { name: string; trigger: string; isActive: boolean }) => [a.name, a.trigger, a.isActive])).toEqual([
      ['First visit → New people', 'attendance.first_visit', true],
      ['Prayer request → task', 'request.created', true],
    ]);
    expect(autos.data[0].action).toEqual({ type: 'addToPipeline', pipelineId: p.id, assignTo: 'groupLeader' });
    expect(autos.data[1]).toMatchObject({ conditions: { type: 'Prayer' }, action: { type: 'createTask', dueInDays: 2, assignTo: 'groupLeader' } });
  });

  it('creates, reads, updates (steps matched by id, added, removed) and deletes a pipeline', async () => {
    const client = api(ctx.app, t.admin.token);
    const res = await client.post('/api/tasks/pipelines', {
      name: 'Care', description: 'Hospital visits', steps: [{ name: 'Call', dueInDays: 1, assigneeUserId: helper.id }, { name: 'Visit', dueInDays: 3 }],
    });
    expect(res.statusCode).toBe(201);
    const p = res.json();
    expect(p).toMatchObject({ name: 'Care', description: 'Hospital visits', isActive: true });
    expect(p.steps[0]).toMatchObject({ name: 'Call', position: 1, dueInDays: 1, assignee: { id: helper.id, username: helper.username } });
    expect((await client.get(`/api/tasks/pipelines/${p.id}`)).json()).toEqual(p);
    const [call, visit] = p.steps;
    const put = await client.put(`/api/tasks/pipelines/${p.id}`, {
      name: 'Care team', isActive: false, steps: [{ id: visit.id, name: 'Visit', dueInDays: 5 }, { name: 'Follow up', dueInDays: 10 }],
    });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toMatchObject({ name: 'Care team', isActive: false });
    expect(put.json().steps.map((s: { id: number; name: string; position: number; dueInDays: number }) => [s.name, s.position, s.dueInDays])).toEqual([['Visit', 1, 5], ['Follow up', 2, 10]]);
    expect(put.json().steps[0].id).toBe(visit.id);
    expect(put.json().steps.some((s: { id: number }) => s.id === call.id)).toBe(false);
    expect((await client.get('/api/tasks/pipelines?isActive=false')).json().data.map((x: { name: string }) => x.name)).toEqual(['Care team']);
    expect((await client.delete(`/api/tasks/pipelines/${p.id}`)).statusCode).toBe(204);
    expect((await client.get(`/api/tasks/pipelines/${p.id}`)).statusCode).toBe(404);
  });
});

describe('cards and the board', () => {
  let t: TestTenant;
  let leader: TestUser;
  let stepOwner: TestUser;
  let group: TestGroup;
  let pipelineId: number;
  let steps: { id: number; name: string }[];
  beforeAll(async () => {
    t = await newTenant(ctx);
    leader = await newUser(ctx, t, ['tasks:read', 'tasks:write', 'hierarchy:all'], { username: 'leader' });
    stepOwner = await newUser(ctx, t, ['tasks:read'], { username: 'stepowner' });
    group = await newGroup(ctx, t, { name: 'Riverside' });
    const res = await api(ctx.app, t.admin.token).post('/api/tasks/pipelines', {
      name: 'Follow-up', steps: [{ name: 'Call', dueInDays: 2 }, { name: 'Visit', dueInDays: 7, assigneeUserId: stepOwner.id }, { name: 'Invite', dueInDays: 0 }],
    });
    pipelineId = res.json().id;
    steps = res.json().steps;
  });

  it('a new card enters the first step and opens its task', async () => {
    const contactId = await newContact(ctx, t, 'Ann', 'New');
    const res = await api(ctx.app, leader.token).post(`/api/tasks/pipelines/${pipelineId}/cards`, { contactId, assigneeUserId: leader.id, groupId: group.id });
    expect(res.statusCode).toBe(201);
    const card = res.json();
    expect(card).toMatchObject({
      pipelineId, step: { id: steps[0].id, name: 'Call' }, contact: { id: contactId, firstName: 'Ann', lastName: 'New' },
      assignee: { id: leader.id, username: 'leader' }, group: { id: group.id, name: 'Riverside' }, status: 'Active', completedAt: null,
    });
    expect(card.task).toMatchObject({ title: 'Call: Ann New', status: 'Open', dueDate: addDays(today(), 2), overdue: false, assignee: { id: leader.id } });
    const task = (await api(ctx.app, leader.token).get(`/api/tasks/${card.task.id}`)).json();
    expect(task).toMatchObject({ card: { id: card.id, pipelineId, stepId: steps[0].id }, contact: { id: contactId }, group: { id: group.id } });
    expect((await changesOf(ctx, t, 'task', card.task.id)).map((c) => c.type)).toEqual(['task.created', 'task.assigned']);
    // One active card per contact and pipeline.
    const again = await api(ctx.app, leader.token).post(`/api/tasks/pipelines/${pipelineId}/cards`, { contactId });
    expect(expectError(again, 409)).toMatch(/already active/);
  });

  it('moves next (completing the old task, opening the new one), to a step, previous, and past the last step', async () => {
    const contactId = await newContact(ctx, t, 'Ben', 'Mover');
    const client = api(ctx.app, leader.token);
    const card = (await client.post(`/api/tasks/pipelines/${pipelineId}/cards`, { contactId, assigneeUserId: leader.id })).json();
    const firstTask = card.task.id;
    let res = await client.put(`/api/tasks/cards/${card.id}/move`, { direction: 'next' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ step: { id: steps[1].id, name: 'Visit' }, status: 'Active' });
    // The step's own assignee wins over the card's.
    expect(res.json().task).toMatchObject({ title: 'Visit: Ben Mover', dueDate: addDays(today(), 7), assignee: { id: stepOwner.id } });
    const old = (await client.get(`/api/tasks/${firstTask}`)).json();
    expect(old.status).toBe('Done');
    expect(old.completedAt).not.toBeNull();
    expect((await changesOf(ctx, t, 'task', firstTask)).map((c) => c.type)).toEqual(['task.created', 'task.assigned', 'task.updated', 'task.completed']);
    res = await client.put(`/api/tasks/cards/${card.id}/move`, { direction: 'previous' });
    expect(res.json().step.id).toBe(steps[0].id);
    res = await client.put(`/api/tasks/cards/${card.id}/move`, { stepId: steps[2].id });
    expect(res.json()).toMatchObject({ step: { id: steps[2].id }, task: { title: 'Invite: Ben Mover', dueDate: today() } });
    const lastTask = res.json().task.id;
    res = await client.put(`/api/tasks/cards/${card.id}/move`, { direction: 'next' });
    expect(res.json()).toMatchObject({ status: 'Completed', task: null });
    expect(res.json().completedAt).not.toBeNull();
    expect((await client.get(`/api/tasks/${lastTask}`)).json().status).toBe('Done');
    // Every task of the card's journey is listed under the pipeline.
    const listed = (await client.get(`/api/tasks?pipelineId=${pipelineId}&contactId=${contactId}&limit=100`)).json();
    expect(listed.total).toBe(4);
    // A completed card moves no more; the contact may start again.
    expectError(await client.put(`/api/tasks/cards/${card.id}/move`, { direction: 'next' }), 409);
    expect((await client.post(`/api/tasks/pipelines/${pipelineId}/cards`, { contactId })).statusCode).toBe(201);
  });

  it('two moves of one card at once run one after the other: one open task, two steps on', async () => {
    const contactId = await newContact(ctx, t, 'Con', 'Current');
    const client = api(ctx.app, leader.token);
    const card = (await client.post(`/api/tasks/pipelines/${pipelineId}/cards`, { contactId })).json();
    const [a, b] = await Promise.all([
      client.put(`/api/tasks/cards/${card.id}/move`, { direction: 'next' }),
      client.put(`/api/tasks/cards/${card.id}/move`, { direction: 'next' }),
    ]);
    expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
    const [now] = (await client.get(`/api/tasks/cards?contactId=${contactId}`)).json().data;
    expect(now.step.id).toBe(steps[2].id);
    const open = (await client.get(`/api/tasks?contactId=${contactId}&status=Open`)).json();
    expect(open.total).toBe(1);
  });

  it('removing a card cancels its open task', async () => {
    const contactId = await newContact(ctx, t, 'Cy', 'Gone');
    const client = api(ctx.app, leader.token);
    const card = (await client.post(`/api/tasks/pipelines/${pipelineId}/cards`, { contactId })).json();
    expect((await client.delete(`/api/tasks/cards/${card.id}`)).statusCode).toBe(204);
    expect((await client.get(`/api/tasks/${card.task.id}`)).json().status).toBe('Cancelled');
    const listed = (await client.get(`/api/tasks/cards?contactId=${contactId}`)).json();
    expect(listed.data).toHaveLength(1);
    expect(listed.data[0]).toMatchObject({ status: 'Removed', task: null });
  });

  it('a step holding cards is not removed, a pipeline with cards is not deleted (409)', async () => {
    const client = api(ctx.app, t.admin.token);
    const msg = expectError(await client.put(`/api/tasks/pipelines/${pipelineId}`, { steps: [{ id: steps[1].id, name: 'Visit', dueInDays: 7 }] }), 409);
    expect(msg).toMatch(new RegExp(`Step ${steps[0].id}`));
    expectError(await client.delete(`/api/tasks/pipelines/${pipelineId}`), 409);
  });

  it('lists cards by pipeline, step, contact and status', async () => {
    const client = api(ctx.app, leader.token);
    const all = (await client.get(`/api/tasks/cards?pipelineId=${pipelineId}&limit=100`)).json();
    expect(all.total).toBeGreaterThanOrEqual(4);
    const active = (await client.get(`/api/tasks/cards?pipelineId=${pipelineId}&status=Active&stepId=${steps[0].id}`)).json();
    expect(active.data.every((c: { status: string; step: { id: number } }) => c.status === 'Active' && c.step.id === steps[0].id)).toBe(true);
    expect((await client.get('/api/tasks/cards?pipelineId=999999')).json()).toMatchObject({ data: [], total: 0 });
  });
});

describe('board', () => {
  let t: TestTenant;
  let pipelineId: number;
  let zone: TestGroup;
  let cell: TestGroup;
  beforeAll(async () => {
    t = await newTenant(ctx);
    pipelineId = await newPeoplePipeline(ctx, t);
    zone = await newGroup(ctx, t, { name: 'Zone', category: 'Zone' });
    cell = await newGroup(ctx, t, { name: 'Cell', parent: zone });
  });

  it('counts, overdue and the first 50 cards per step, oldest in the step first', async () => {
    const client = api(ctx.app, t.admin.token);
    const cards: number[] = [];
    for (let i = 0; i < 53; i++) {
      const contactId = await newContact(ctx, t, `P${i}`, 'Board');
      const res = await client.post(`/api/tasks/pipelines/${pipelineId}/cards`, { contactId, groupId: i % 2 ? cell.id : zone.id });
      cards.push(res.json().id);
    }
    // Two cards move on; one of them gets an overdue task.
    const moved = (await client.put(`/api/tasks/cards/${cards[0]}/move`, { direction: 'next' })).json();
    await client.put(`/api/tasks/cards/${cards[1]}/move`, { direction: 'next' });
    await client.put(`/api/tasks/${moved.task.id}`, { dueDate: addDays(today(), -1) });
    const board = (await client.get(`/api/tasks/pipelines/${pipelineId}/board`)).json();
    expect(board.pipeline).toMatchObject({ id: pipelineId, name: 'New people' });
    expect(board.steps.map((s: { name: string; count: number; overdue: number }) => [s.name, s.count, s.overdue])).toEqual([
      ['Welcome call', 51, 0], ['Matched to a fellowship', 2, 1], ['Attended a fellowship', 0, 0], ['Joined a serving team', 0, 0], ['Baptised', 0, 0],
    ]);
    expect(board.steps[0].cards).toHaveLength(50);
    expect(board.steps[0].cards[0].id).toBe(cards[2]);
    expect(board.steps[1].cards.map((c: { id: number }) => c.id)).toEqual([cards[0], cards[1]]);
    expect(board.steps[1].cards[0].task.overdue).toBe(true);
    const sub = (await client.get(`/api/tasks/pipelines/${pipelineId}/board?groupId=${cell.id}`)).json();
    expect(sub.steps[0].count + sub.steps[1].count).toBe(26);
    const zoneOnly = (await client.get(`/api/tasks/pipelines/${pipelineId}/board?groupId=${zone.id}&includeDescendants=false`)).json();
    expect(zoneOnly.steps[0].count + zoneOnly.steps[1].count).toBe(27);
    const unknown = (await client.get(`/api/tasks/pipelines/${pipelineId}/board?groupId=999999`)).json();
    expect(unknown.steps.every((s: { count: number; cards: unknown[] }) => s.count === 0 && s.cards.length === 0)).toBe(true);
  });
});
