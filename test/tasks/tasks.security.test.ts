import { beforeAll, describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser, type TestTenant, type TestUser } from '../helpers/factories.js';
import { newActors, newContact, newTree } from '../helpers/groups.factories.js';
import { changeCount, newPeoplePipeline, newTask } from '../helpers/tasks.factories.js';

const ctx = setupTestApp();

type Tree = Awaited<ReturnType<typeof newTree>>;
const HOSTS = ['church', 'zoneA', 'fellowshipA1', 'fellowshipA2', 'zoneB', 'fellowshipB1'] as const;
type Host = (typeof HOSTS)[number] | 'none';

describe('visibility and confidentiality matrix', () => {
  let t: TestTenant;
  let tree: Tree;
  let actors: Awaited<ReturnType<typeof newActors>>;
  let carer: TestUser;
  const task = {} as Record<Host, number>;
  const secret = {} as Record<'publicGroup' | 'assignedToMember' | 'byZoneLeader', number>;
  beforeAll(async () => {
    t = await newTenant(ctx);
    tree = await newTree(ctx, t);
    actors = await newActors(ctx, t, tree);
    // The module's special role: pastoral care, no hierarchy.
    carer = await newUser(ctx, t, ['tasks:read', 'care:read']);
    for (const host of HOSTS) task[host] = (await newTask(ctx, t.admin, { title: `Task ${host}`, groupId: tree[host].id })).id;
    task.none = (await newTask(ctx, t.admin, { title: 'Task none' })).id;
    secret.publicGroup = (await newTask(ctx, t.admin, { title: 'Secret public', groupId: tree.fellowshipA1.id, confidential: true })).id;
    secret.assignedToMember = (await newTask(ctx, t.admin, { title: 'Secret member', groupId: tree.zoneA.id, confidential: true, assigneeUserId: actors.member.id })).id;
    secret.byZoneLeader = (await newTask(ctx, actors.zoneLeader, { title: 'Secret zone leader', groupId: tree.zoneA.id, confidential: true })).id;
  });

  const visible: Record<string, string[]> = {
    admin: ['Task church', 'Task zoneA', 'Task fellowshipA1', 'Task fellowshipA2', 'Task zoneB', 'Task fellowshipB1', 'Task none', 'Secret public', 'Secret member', 'Secret zone leader'],
    zoneLeader: ['Task church', 'Task zoneA', 'Task fellowshipA1', 'Task fellowshipA2', 'Secret zone leader'],
    fellowshipLeader: ['Task church', 'Task zoneA', 'Task fellowshipA1', 'Task fellowshipA2'],
    member: ['Secret member'],
    loner: [],
    carer: ['Task church', 'Task zoneA', 'Task fellowshipA1', 'Secret public', 'Secret member', 'Secret zone leader'],
  };
  const who = (name: string): TestUser => (name === 'carer' ? carer : (actors as unknown as Record<string, TestUser>)[name]);

  it.each(Object.keys(visible))('%s lists exactly the tasks they may see, and reads none other', async (name) => {
    const client = api(ctx.app, who(name).token);
    const res = await client.get('/api/tasks?limit=100');
    expect(res.statusCode).toBe(200);
    expect(res.json().data.map((x: { title: string }) => x.title).sort()).toEqual([...visible[name]].sort());
    const all = { ...Object.fromEntries(Object.entries(task).map(([k, v]) => [`Task ${k}`, v])), 'Secret public': secret.publicGroup, 'Secret member': secret.assignedToMember, 'Secret zone leader': secret.byZoneLeader };
    for (const [title, id] of Object.entries(all)) {
      const one = await client.get(`/api/tasks/${id}`);
      expect(one.statusCode, `${name} GET ${title}`).toBe(visible[name].includes(title) ? 200 : 404);
    }
  });

  it('an assignee without tasks:write may change the status and comment, nothing else', async () => {
    const client = api(ctx.app, actors.member.token);
    const id = secret.assignedToMember;
    expect((await client.put(`/api/tasks/${id}`, { status: 'InProgress' })).statusCode).toBe(200);
    expect((await client.post(`/api/tasks/${id}/comments`, { body: 'On it' })).statusCode).toBe(201);
    expect(expectError(await client.put(`/api/tasks/${id}`, { title: 'Renamed' }), 403)).toMatch(/only change the status/);
    // Sending back unchanged fields along with the status is fine.
    const res = await client.put(`/api/tasks/${id}`, { status: 'Done', title: 'Secret member', confidential: true, groupId: tree.zoneA.id });
    expect(res.statusCode).toBe(200);
    expect(res.json().status).toBe('Done');
    expectError(await client.delete(`/api/tasks/${id}`), 403);
    expectError(await client.post('/api/tasks', { title: 'New' }), 403);
  });

  it('visible but not assigned, without tasks:write: 403 on writes', async () => {
    const readOnly = carer;
    expectError(await api(ctx.app, readOnly.token).put(`/api/tasks/${task.church}`, { status: 'Done' }), 403);
    expectError(await api(ctx.app, readOnly.token).post(`/api/tasks/${task.church}/comments`, { body: 'x' }), 403);
  });

  it('writers act only on tasks they see: invisible ones are 404', async () => {
    const client = api(ctx.app, actors.fellowshipLeader.token);
    expectError(await client.put(`/api/tasks/${task.zoneB}`, { status: 'Done' }), 404);
    expectError(await client.delete(`/api/tasks/${task.none}`), 404);
    expectError(await client.post(`/api/tasks/${secret.publicGroup}/comments`, { body: 'x' }), 404);
    const bulk = await client.post('/api/tasks/bulk', { ids: [task.fellowshipA2, task.zoneB], action: 'complete' });
    expect(bulk.json()).toEqual({ updated: [task.fellowshipA2], skipped: [{ id: task.zoneB, reason: `Task with id ${task.zoneB} not found` }] });
    // Creating in an invisible group is 404; the creator always sees what they created without a group.
    expect(expectError(await client.post('/api/tasks', { title: 'x', groupId: tree.zoneB.id }), 404)).toBe(`Group with id ${tree.zoneB.id} not found`);
    const own = await newTask(ctx, actors.fellowshipLeader, { title: 'Own without group' });
    expect((await client.get(`/api/tasks/${own.id}`)).statusCode).toBe(200);
  });

  it('a Counseling request is not a reference without care:read', async () => {
    const contactId = await newContact(ctx, t);
    const req = await api(ctx.app, t.admin.token).post('/api/crm/requests', { contactId, type: 'Counseling', description: 'Private' });
    expect(req.statusCode).toBe(201);
    expectError(await api(ctx.app, actors.zoneLeader.token).post('/api/tasks', { title: 'x', requestId: req.json().id }), 404);
    expect((await api(ctx.app, t.admin.token).post('/api/tasks', { title: 'x', requestId: req.json().id })).statusCode).toBe(201);
  });

  it('the board and cards follow group visibility', async () => {
    const pipelineId = await newPeoplePipeline(ctx, t);
    const admin = api(ctx.app, t.admin.token);
    const inB = await admin.post(`/api/tasks/pipelines/${pipelineId}/cards`, { contactId: await newContact(ctx, t, 'B', 'Card'), groupId: tree.fellowshipB1.id });
    const inA = await admin.post(`/api/tasks/pipelines/${pipelineId}/cards`, { contactId: await newContact(ctx, t, 'A', 'Card'), groupId: tree.fellowshipA1.id });
    expect(inB.statusCode).toBe(201);
    const board = (await api(ctx.app, actors.zoneLeader.token).get(`/api/tasks/pipelines/${pipelineId}/board`)).json();
    expect(board.steps[0].count).toBe(1);
    expect(board.steps[0].cards.map((c: { id: number }) => c.id)).toEqual([inA.json().id]);
    expect((await admin.get(`/api/tasks/pipelines/${pipelineId}/board`)).json().steps[0].count).toBe(2);
    expectError(await api(ctx.app, actors.zoneLeader.token).put(`/api/tasks/cards/${inB.json().id}/move`, { direction: 'next' }), 404);
    expect((await api(ctx.app, actors.zoneLeader.token).get(`/api/tasks/cards?pipelineId=${pipelineId}`)).json().total).toBe(1);
  });
});

describe('authentication, permissions, tenants', () => {
  let t: TestTenant;
  let other: TestTenant;
  let noPerms: TestUser;
  let leader: TestUser;
  const ids = {} as Record<string, number>;
  beforeAll(async () => {
    t = await newTenant(ctx);
    other = await newTenant(ctx);
    noPerms = await newUser(ctx, t, []);
    leader = await newUser(ctx, t, 'Leader');
    const client = api(ctx.app, other.admin.token);
    const contact = await newContact(ctx, other);
    ids.contact = contact;
    ids.task = (await newTask(ctx, other.admin, { title: 'Theirs', contactId: contact })).id;
    ids.pipeline = await newPeoplePipeline(ctx, other);
    const card = (await client.post(`/api/tasks/pipelines/${ids.pipeline}/cards`, { contactId: contact })).json();
    ids.card = card.id;
    ids.step = card.step.id;
    ids.automation = (await client.get('/api/tasks/automations')).json().data[0].id;
    ids.request = (await client.post('/api/crm/requests', { contactId: contact, type: 'Prayer', description: 'x' })).json().id;
    ids.user = other.admin.id;
  });

  const routes = (): [string, string, unknown?][] => [
    ['GET', '/api/tasks'], ['POST', '/api/tasks', { title: 'x' }], ['POST', '/api/tasks/bulk', { ids: [1], action: 'complete' }],
    ['GET', '/api/tasks/1'], ['PUT', '/api/tasks/1', { title: 'x' }], ['DELETE', '/api/tasks/1'], ['POST', '/api/tasks/1/comments', { body: 'x' }],
    ['GET', '/api/tasks/pipelines'], ['POST', '/api/tasks/pipelines', { name: 'x', steps: [{ name: 'a', dueInDays: 1 }] }],
    ['GET', '/api/tasks/pipelines/1'], ['PUT', '/api/tasks/pipelines/1', { name: 'x' }], ['DELETE', '/api/tasks/pipelines/1'],
    ['GET', '/api/tasks/pipelines/1/board'], ['POST', '/api/tasks/pipelines/1/cards', { contactId: 1 }],
    ['GET', '/api/tasks/cards'], ['PUT', '/api/tasks/cards/1/move', { direction: 'next' }], ['DELETE', '/api/tasks/cards/1'],
    ['GET', '/api/tasks/automations'], ['POST', '/api/tasks/automations', { name: 'x', trigger: 'contact.created', action: { type: 'createTask', title: 'x' } }],
    ['GET', '/api/tasks/automations/1'], ['PUT', '/api/tasks/automations/1', { name: 'x' }], ['DELETE', '/api/tasks/automations/1'],
  ];

  it('every route is 401 without a token', async () => {
    for (const [method, url, payload] of routes()) {
      const res = await ctx.app.inject({ method: method as 'GET', url, payload: payload as object });
      expect(res.statusCode, `${method} ${url}`).toBe(401);
    }
  });

  it('routes that need a permission are 403 without it', async () => {
    const forbidden = routes().filter(([m, u]) => !(u === '/api/tasks' && m === 'GET') && !/^\/api\/tasks\/1(\/comments)?$/.test(u) && u !== '/api/tasks/bulk');
    for (const [method, url, payload] of forbidden) {
      const res = await ctx.app.inject({ method: method as 'GET', url, payload: payload as object, headers: { authorization: `Bearer ${noPerms.token}` } });
      expect(res.statusCode, `${method} ${url}`).toBe(403);
    }
    // The list answers a user without tasks:read with their own tasks only.
    expect((await api(ctx.app, noPerms.token).get('/api/tasks')).json()).toMatchObject({ data: [], total: 0 });
  });

  it('pipelines and automations are tenant-wide structure: tasks:write without hierarchy:all is 403', async () => {
    const client = api(ctx.app, leader.token);
    const pipelineId = await newPeoplePipeline(ctx, t);
    expectError(await client.post('/api/tasks/pipelines', { name: 'x', steps: [{ name: 'a', dueInDays: 1 }] }), 403);
    expectError(await client.put(`/api/tasks/pipelines/${pipelineId}`, { name: 'x' }), 403);
    expectError(await client.delete(`/api/tasks/pipelines/${pipelineId}`), 403);
    expectError(await client.post('/api/tasks/automations', { name: 'x', trigger: 'contact.created', action: { type: 'createTask', title: 'x' } }), 403);
    expect((await client.get(`/api/tasks/pipelines/${pipelineId}`)).statusCode).toBe(200);
  });

  it("another tenant's ids are 404 everywhere, and nothing is written", async () => {
    const client = api(ctx.app, t.admin.token);
    const before = await changeCount(ctx, other);
    const myPipeline = await newPeoplePipeline(ctx, t);
    const cases: [string, string, unknown?][] = [
      ['GET', `/api/tasks/${ids.task}`], ['PUT', `/api/tasks/${ids.task}`, { status: 'Done' }], ['DELETE', `/api/tasks/${ids.task}`],
      ['POST', `/api/tasks/${ids.task}/comments`, { body: 'x' }],
      ['GET', `/api/tasks/pipelines/${ids.pipeline}`], ['PUT', `/api/tasks/pipelines/${ids.pipeline}`, { name: 'x' }], ['DELETE', `/api/tasks/pipelines/${ids.pipeline}`],
      ['GET', `/api/tasks/pipelines/${ids.pipeline}/board`], ['POST', `/api/tasks/pipelines/${ids.pipeline}/cards`, { contactId: ids.contact }],
      ['PUT', `/api/tasks/cards/${ids.card}/move`, { direction: 'next' }], ['DELETE', `/api/tasks/cards/${ids.card}`],
      ['GET', `/api/tasks/automations/${ids.automation}`], ['PUT', `/api/tasks/automations/${ids.automation}`, { isActive: false }], ['DELETE', `/api/tasks/automations/${ids.automation}`],
      ['POST', '/api/tasks', { title: 'x', contactId: ids.contact }], ['POST', '/api/tasks', { title: 'x', assigneeUserId: ids.user }],
      ['POST', '/api/tasks', { title: 'x', requestId: ids.request }],
      ['POST', `/api/tasks/pipelines/${myPipeline}/cards`, { contactId: ids.contact }],
      ['POST', '/api/tasks/pipelines', { name: 'x', steps: [{ name: 'a', dueInDays: 1, assigneeUserId: ids.user }] }],
      ['POST', '/api/tasks/automations', { name: 'x', trigger: 'contact.created', action: { type: 'addToPipeline', pipelineId: ids.pipeline } }],
      ['POST', '/api/tasks/bulk', { ids: [1], action: 'assign', assigneeUserId: ids.user }],
    ];
    for (const [method, url, payload] of cases) {
      const res = await ctx.app.inject({ method: method as 'GET', url, payload: payload as object, headers: { authorization: `Bearer ${t.admin.token}` } });
      expect(res.statusCode, `${method} ${url} ${JSON.stringify(payload)}`).toBe(404);
    }
    const myCard = (await client.post(`/api/tasks/pipelines/${myPipeline}/cards`, { contactId: await newContact(ctx, t) })).json();
    expectError(await client.put(`/api/tasks/cards/${myCard.id}/move`, { stepId: ids.step }), 404);
    const bulk = await client.post('/api/tasks/bulk', { ids: [ids.task], action: 'complete' });
    expect(bulk.json().skipped).toEqual([{ id: ids.task, reason: `Task with id ${ids.task} not found` }]);
    for (const q of [`contactId=${ids.contact}`, `pipelineId=${ids.pipeline}`, `assignee=${ids.user}`]) {
      expect((await client.get(`/api/tasks?${q}`)).json().total, q).toBe(0);
    }
    expect((await client.get(`/api/tasks/cards?pipelineId=${ids.pipeline}`)).json().total).toBe(0);
    expect(await changeCount(ctx, other)).toBe(before);
    const theirs = (await api(ctx.app, other.admin.token).get(`/api/tasks/${ids.task}`)).json();
    expect(theirs.status).toBe('Open');
  });
});
