import { beforeAll, describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser, type TestTenant, type TestUser } from '../helpers/factories.js';
import { newContact, newGroup } from '../helpers/groups.factories.js';
import { changeCount, changesOf, newPeoplePipeline, newTask } from '../helpers/tasks.factories.js';

const ctx = setupTestApp();

let t: TestTenant;
let contactId: number;
beforeAll(async () => {
  t = await newTenant(ctx);
  contactId = await newContact(ctx, t);
});

/** The request fails with `status`, and nothing is recorded in the change feed. */
async function refused(method: 'post' | 'put' | 'delete' | 'get', url: string, body: unknown, status: number, token = t.admin.token): Promise<string> {
  const before = await changeCount(ctx, t);
  const client = api(ctx.app, token);
  const res = method === 'get' || method === 'delete' ? await client[method](url) : await client[method](url, body as object);
  const message = expectError(res, status);
  expect(await changeCount(ctx, t), `${method} ${url}`).toBe(before);
  return message;
}

describe('tasks: bad input', () => {
  it('forbidden transitions are 409 naming both states; nothing written', async () => {
    const task = await newTask(ctx, t.admin, { title: 'Machine' });
    await api(ctx.app, t.admin.token).put(`/api/tasks/${task.id}`, { status: 'Done' });
    expect(await refused('put', `/api/tasks/${task.id}`, { status: 'InProgress' }, 409)).toBe('A task cannot go from Done to InProgress');
    expect(await refused('put', `/api/tasks/${task.id}`, { status: 'Cancelled', title: 'Also renamed' }, 409)).toBe('A task cannot go from Done to Cancelled');
    await api(ctx.app, t.admin.token).put(`/api/tasks/${task.id}`, { status: 'Open' });
    await api(ctx.app, t.admin.token).put(`/api/tasks/${task.id}`, { status: 'Cancelled' });
    expect(await refused('put', `/api/tasks/${task.id}`, { status: 'Done' }, 409)).toBe('A task cannot go from Cancelled to Done');
    expect(await refused('put', `/api/tasks/${task.id}`, { status: 'InProgress' }, 409)).toBe('A task cannot go from Cancelled to InProgress');
    const detail = (await api(ctx.app, t.admin.token).get(`/api/tasks/${task.id}`)).json();
    expect(detail).toMatchObject({ title: 'Machine', status: 'Cancelled' });
  });

  it('unknown references are 404 naming them, checked before writing', async () => {
    expect(await refused('post', '/api/tasks', { title: 'x', contactId: 999999 }, 404)).toBe('Contact with id 999999 not found');
    expect(await refused('post', '/api/tasks', { title: 'x', groupId: 999998 }, 404)).toBe('Group with id 999998 not found');
    expect(await refused('post', '/api/tasks', { title: 'x', requestId: 999997 }, 404)).toBe('Request with id 999997 not found');
    expect(await refused('post', '/api/tasks', { title: 'x', assigneeUserId: 999996 }, 404)).toBe('User with id 999996 not found');
    const task = await newTask(ctx, t.admin, { title: 'Ref' });
    expect(await refused('put', `/api/tasks/${task.id}`, { title: 'y', assigneeUserId: 999996 }, 404)).toBe('User with id 999996 not found');
    expect(await refused('put', '/api/tasks/999995', { title: 'y' }, 404)).toBe('Task with id 999995 not found');
    expect(await refused('post', '/api/tasks/999995/comments', { body: 'y' }, 404)).toBe('Task with id 999995 not found');
    expect(await refused('delete', '/api/tasks/999995', undefined, 404)).toBe('Task with id 999995 not found');
    expect((await api(ctx.app, t.admin.token).get(`/api/tasks/${task.id}`)).json().title).toBe('Ref');
  });

  it('validation: 400 with the field named', async () => {
    expect(await refused('post', '/api/tasks', { title: '' }, 400)).toMatch(/title/);
    expect(await refused('post', '/api/tasks', { title: 'x', priority: 'Critical' }, 400)).toMatch(/priority/);
    expect(await refused('post', '/api/tasks', { title: 'x', dueDate: '2026-02-30' }, 400)).toMatch(/dueDate/);
    expect(await refused('post', '/api/tasks', { description: 'no title' }, 400)).toMatch(/title/);
    const task = await newTask(ctx, t.admin, { title: 'Valid' });
    expect(await refused('put', `/api/tasks/${task.id}`, { status: 'Finished' }, 400)).toMatch(/status/);
    expect(await refused('post', `/api/tasks/${task.id}/comments`, { body: '' }, 400)).toMatch(/body/);
    expect(await refused('get', '/api/tasks/abc', undefined, 400)).toMatch(/id/);
    for (const q of ['assignee=someone', 'assignee=0', 'status=Closed', 'overdue=maybe', 'sort=title', 'limit=0', 'dueFrom=yesterday', 'groupId=abc']) {
      expectError(await api(ctx.app, t.admin.token).get(`/api/tasks?${q}`), 400);
    }
  });

  it('bulk: 1–500 unique ids, assign needs an existing assignee', async () => {
    expect(await refused('post', '/api/tasks/bulk', { ids: [], action: 'complete' }, 400)).toMatch(/ids/);
    expect(await refused('post', '/api/tasks/bulk', { ids: Array.from({ length: 501 }, (_, i) => i + 1), action: 'complete' }, 400)).toMatch(/ids/);
    expect(await refused('post', '/api/tasks/bulk', { ids: [1], action: 'archive' }, 400)).toMatch(/action/);
    expect(await refused('post', '/api/tasks/bulk', { ids: [1], action: 'assign' }, 400)).toMatch(/assigneeUserId/);
    expect(await refused('post', '/api/tasks/bulk', { ids: [1], action: 'assign', assigneeUserId: 999999 }, 404)).toBe('User with id 999999 not found');
  });
});

describe('pipelines and cards: bad input', () => {
  let pipelineId: number;
  let steps: { id: number }[];
  let other: TestUser;
  beforeAll(async () => {
    pipelineId = await newPeoplePipeline(ctx, t);
    steps = (await api(ctx.app, t.admin.token).get(`/api/tasks/pipelines/${pipelineId}`)).json().steps;
    other = await newUser(ctx, t, ['tasks:read']);
  });
  const steps21 = Array.from({ length: 21 }, (_, i) => ({ name: `S${i}`, dueInDays: 1 }));

  it('steps: 1–20, dueInDays 0–365, assignees that exist', async () => {
    expect(await refused('post', '/api/tasks/pipelines', { name: 'x', steps: [] }, 400)).toMatch(/steps/);
    expect(await refused('post', '/api/tasks/pipelines', { name: 'x', steps: steps21 }, 400)).toMatch(/steps/);
    expect(await refused('post', '/api/tasks/pipelines', { name: 'x', steps: [{ name: 'a', dueInDays: -1 }] }, 400)).toMatch(/dueInDays/);
    expect(await refused('post', '/api/tasks/pipelines', { name: 'x', steps: [{ name: 'a', dueInDays: 366 }] }, 400)).toMatch(/dueInDays/);
    expect(await refused('post', '/api/tasks/pipelines', { name: 'x', steps: [{ name: 'a', dueInDays: 1, assigneeUserId: 999999 }] }, 404)).toBe('User with id 999999 not found');
    expect(await refused('put', `/api/tasks/pipelines/${pipelineId}`, { steps: steps21 }, 400)).toMatch(/steps/);
    expect((await api(ctx.app, t.admin.token).get('/api/tasks/pipelines')).json().total).toBe(1);
  });

  it("PUT steps: another pipeline's step is 404; nothing changes", async () => {
    const second = (await api(ctx.app, t.admin.token).post('/api/tasks/pipelines', { name: 'Second', steps: [{ name: 'Only', dueInDays: 1 }] })).json();
    expect(await refused('put', `/api/tasks/pipelines/${pipelineId}`, { name: 'Renamed', steps: [{ id: second.steps[0].id, name: 'Stolen', dueInDays: 1 }] }, 404))
      .toBe(`Step with id ${second.steps[0].id} not found`);
    const p = (await api(ctx.app, t.admin.token).get(`/api/tasks/pipelines/${pipelineId}`)).json();
    expect(p.name).toBe('New people');
    expect(p.steps).toHaveLength(5);
    expect(await refused('put', '/api/tasks/pipelines/999999', { name: 'x' }, 404)).toBe('Pipeline with id 999999 not found');
    expect(await refused('get', '/api/tasks/pipelines/999999/board', undefined, 404)).toBe('Pipeline with id 999999 not found');
  });

  it('cards: unknown contact, assignee, group, pipeline 404; a second active card 409; moves', async () => {
    expect(await refused('post', `/api/tasks/pipelines/${pipelineId}/cards`, { contactId: 999999 }, 404)).toBe('Contact with id 999999 not found');
    expect(await refused('post', `/api/tasks/pipelines/${pipelineId}/cards`, { contactId, assigneeUserId: 999999 }, 404)).toBe('User with id 999999 not found');
    expect(await refused('post', `/api/tasks/pipelines/${pipelineId}/cards`, { contactId, groupId: 999999 }, 404)).toBe('Group with id 999999 not found');
    expect(await refused('post', '/api/tasks/pipelines/999999/cards', { contactId }, 404)).toBe('Pipeline with id 999999 not found');
    const card = (await api(ctx.app, t.admin.token).post(`/api/tasks/pipelines/${pipelineId}/cards`, { contactId, assigneeUserId: other.id })).json();
    expect(await refused('post', `/api/tasks/pipelines/${pipelineId}/cards`, { contactId }, 409)).toMatch(`Contact ${contactId} is already active in pipeline ${pipelineId}`);
    expect(await refused('put', `/api/tasks/cards/${card.id}/move`, {}, 400)).toMatch(/exactly one/);
    expect(await refused('put', `/api/tasks/cards/${card.id}/move`, { stepId: steps[1].id, direction: 'next' }, 400)).toMatch(/exactly one/);
    expect(await refused('put', `/api/tasks/cards/${card.id}/move`, { direction: 'sideways' }, 400)).toMatch(/direction/);
    expect(await refused('put', `/api/tasks/cards/${card.id}/move`, { stepId: 999999 }, 404)).toBe('Step with id 999999 not found');
    expect(await refused('put', `/api/tasks/cards/${card.id}/move`, { direction: 'previous' }, 409)).toMatch(/first step/);
    expect(await refused('put', '/api/tasks/cards/999999/move', { direction: 'next' }, 404)).toBe('Card with id 999999 not found');
    expect(await refused('delete', '/api/tasks/cards/999999', undefined, 404)).toBe('Card with id 999999 not found');
    // Still where it was, its task still open.
    const [still] = (await api(ctx.app, t.admin.token).get(`/api/tasks/cards?contactId=${contactId}`)).json().data;
    expect(still).toMatchObject({ step: { id: steps[0].id }, task: { id: card.task.id, status: 'Open' } });
    expect((await changesOf(ctx, t, 'task', card.task.id)).map((c) => c.type)).toEqual(['task.created', 'task.assigned']);
  });

  it('an inactive pipeline takes no new cards (409)', async () => {
    const p = (await api(ctx.app, t.admin.token).post('/api/tasks/pipelines', { name: 'Dormant', isActive: false, steps: [{ name: 'Only', dueInDays: 1 }] })).json();
    expect(await refused('post', `/api/tasks/pipelines/${p.id}/cards`, { contactId }, 409)).toBe(`Pipeline ${p.id} is inactive`);
  });
});

describe('automations: bad input', () => {
  const valid = { name: 'A', trigger: 'contact.created', action: { type: 'createTask', title: 'Hello' } };
  it('unknown trigger or action type, conditions not a flat object, bad dueInDays: 400', async () => {
    expect(await refused('post', '/api/tasks/automations', { ...valid, trigger: 'task.created' }, 400)).toMatch(/trigger/);
    expect(await refused('post', '/api/tasks/automations', { ...valid, action: { type: 'sendEmail', title: 'x' } }, 400)).toMatch(/type/);
    expect(await refused('post', '/api/tasks/automations', { ...valid, conditions: { type: { in: ['Prayer'] } } }, 400)).toMatch(/conditions/);
    expect(await refused('post', '/api/tasks/automations', { ...valid, conditions: ['Prayer'] }, 400)).toMatch(/conditions/);
    expect(await refused('post', '/api/tasks/automations', { ...valid, conditions: 'Prayer' }, 400)).toMatch(/conditions/);
    expect(await refused('post', '/api/tasks/automations', { ...valid, conditions: { groupId: 'abc' } }, 400)).toMatch(/groupId/);
    expect(await refused('post', '/api/tasks/automations', { ...valid, action: { type: 'createTask', title: 'x', dueInDays: 366 } }, 400)).toMatch(/dueInDays/);
    expect(await refused('post', '/api/tasks/automations', { ...valid, action: { type: 'createTask', title: 'x', dueInDays: -1 } }, 400)).toMatch(/dueInDays/);
    expect(await refused('post', '/api/tasks/automations', { ...valid, action: { type: 'createTask' } }, 400)).toMatch(/title/);
    expect(await refused('post', '/api/tasks/automations', { ...valid, action: { type: 'addToPipeline' } }, 400)).toMatch(/pipelineId/);
    expect(await refused('post', '/api/tasks/automations', { ...valid, action: { type: 'createTask', title: 'x', assignTo: 'pastor' } }, 400)).toMatch(/assignTo/);
  });

  it('unknown pipeline or user: 404; unknown automation: 404', async () => {
    expect(await refused('post', '/api/tasks/automations', { ...valid, action: { type: 'addToPipeline', pipelineId: 999999 } }, 404)).toBe('Pipeline with id 999999 not found');
    expect(await refused('post', '/api/tasks/automations', { ...valid, action: { type: 'createTask', title: 'x', assignTo: 999999 } }, 404)).toBe('User with id 999999 not found');
    expect(await refused('get', '/api/tasks/automations/999999', undefined, 404)).toBe('Automation with id 999999 not found');
    expect(await refused('put', '/api/tasks/automations/999999', { isActive: false }, 404)).toBe('Automation with id 999999 not found');
    const before = (await api(ctx.app, t.admin.token).get('/api/tasks/automations')).json().total;
    expect(before).toBe(2);
  });

  it('PUT re-validates the action and leaves the automation unchanged on error', async () => {
    const created = (await api(ctx.app, t.admin.token).post('/api/tasks/automations', valid)).json();
    expect(await refused('put', `/api/tasks/automations/${created.id}`, { name: 'B', action: { type: 'addToPipeline', pipelineId: 999999 } }, 404)).toMatch(/Pipeline/);
    expect((await api(ctx.app, t.admin.token).get(`/api/tasks/automations/${created.id}`)).json()).toMatchObject({ name: 'A', action: { type: 'createTask', title: 'Hello' } });
    const g = await newGroup(ctx, t, { name: 'Cond' });
    const put = await api(ctx.app, t.admin.token).put(`/api/tasks/automations/${created.id}`, { conditions: { groupId: g.id, kind: 'Guest' } });
    expect(put.json().conditions).toEqual({ groupId: g.id, kind: 'Guest' });
    expect((await api(ctx.app, t.admin.token).delete(`/api/tasks/automations/${created.id}`)).statusCode).toBe(204);
  });
});
