import { beforeAll, describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser, type TestTenant, type TestUser } from '../helpers/factories.js';
import { addMembership, newActors, newGroup, newLeaderOf, newTree } from '../helpers/groups.factories.js';
import { event, person, request, task } from './fixtures.js';

const ctx = setupTestApp();

type Hit = { id: number };
const hitIds = (body: { results: Record<string, Hit[]> }, type: string) => body.results[type].map((h) => h.id).sort((a, b) => a - b);
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);

describe('search box security', () => {
  let t: TestTenant;
  let tree: Awaited<ReturnType<typeof newTree>>;
  let actors: Awaited<ReturnType<typeof newActors>>;
  const ev: Record<string, number> = {};
  const search = (token: string, query: string) => api(ctx.app, token).get(`/api/search?${query}`);

  beforeAll(async () => {
    t = await newTenant(ctx);
    tree = await newTree(ctx, t);
    actors = await newActors(ctx, t, tree);
    ev.open = await event(ctx, t, 'Secret open', '2026-01-01', tree.fellowshipA1.id);
    ev.a2 = await event(ctx, t, 'Secret A2', '2026-01-02', tree.fellowshipA2.id);
    ev.b1 = await event(ctx, t, 'Secret B1', '2026-01-03', tree.fellowshipB1.id);
    ev.zoneB = await event(ctx, t, 'Secret zone B', '2026-01-04', tree.zoneB.id);
    ev.none = await event(ctx, t, 'Secret everyone', '2026-01-05');
  });

  it('401 without a token or with a bad one', async () => {
    expectError(await api(ctx.app).get('/api/search?q=jose'), 401);
    expectError(await api(ctx.app, 'nope').get('/api/search?q=jose'), 401);
  });

  it('any valid token may search; each type only with its read permission (default: the readable ones)', async () => {
    const nothing = await newUser(ctx, t, []);
    const res = await search(nothing.token, 'q=secret');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ q: 'secret', results: {}, totals: {} });
    // Member: groups:read and events:read only.
    const member = (await search(actors.member.token, 'q=secret')).json();
    expect(Object.keys(member.results)).toEqual(['groups', 'events']);
    const reader = await newUser(ctx, t, ['contacts:read', 'users:read', 'tasks:read']);
    expect(Object.keys((await search(reader.token, 'q=secret')).json().results)).toEqual(['contacts', 'requests', 'tasks', 'users', 'households']);
  });

  it('naming a type the caller may not read is 403 naming the permission', async () => {
    const cases: [string, string][] = [
      ['contacts', 'contacts:read'], ['requests', 'contacts:read'], ['tasks', 'tasks:read'], ['users', 'users:read'],
    ];
    for (const [type, permission] of cases) {
      expect(expectError(await search(actors.member.token, `q=secret&types=groups,${type}`), 403)).toContain(permission);
    }
    const noGroups = await newUser(ctx, t, ['contacts:read']);
    expect(expectError(await search(noGroups.token, 'q=secret&types=groups'), 403)).toContain('groups:read');
    expect(expectError(await search(noGroups.token, 'q=secret&types=events'), 403)).toContain('events:read');
  });

  it('groups: only visible ones are found and counted (admin, zone leader, fellowship leader, member, loner)', async () => {
    const all = [tree.fellowshipA1.id, tree.fellowshipA2.id, tree.fellowshipB1.id];
    const expected: [TestUser, number[]][] = [
      [actors.admin, all],
      [actors.zoneLeader, [tree.fellowshipA1.id, tree.fellowshipA2.id]],
      [actors.fellowshipLeader, [tree.fellowshipA1.id, tree.fellowshipA2.id]],
      [actors.member, [tree.fellowshipA1.id, tree.fellowshipB1.id]],
      [actors.loner, [tree.fellowshipA1.id]],
    ];
    for (const [user, groups] of expected) {
      const body = (await search(user.token, 'q=fellowship&types=groups&limit=20')).json();
      expect(hitIds(body, 'groups'), user.username).toEqual(sorted(groups));
      expect(body.totals.groups, user.username).toBe(groups.length);
      // With limit 1 the total still counts only what the caller may see.
      expect((await search(user.token, 'q=fellowship&types=groups&limit=1')).json().totals.groups).toBe(groups.length);
    }
    // Zone B (private): its leader sees the whole private subtree.
    const zoneBLeader = await newLeaderOf(ctx, t, tree.zoneB);
    const body = (await search(zoneBLeader.token, 'q=cluster&types=groups')).json();
    expect(hitIds(body, 'groups')).toEqual(sorted([tree.clusterA.id, tree.clusterB.id]));
    expect(hitIds((await search(actors.loner.token, 'q=cluster&types=groups')).json(), 'groups')).toEqual([tree.clusterA.id]);
  });

  it('events: those of visible groups and those without a group, counted the same way', async () => {
    const expected: [TestUser, number[]][] = [
      [actors.admin, [ev.open, ev.a2, ev.b1, ev.zoneB, ev.none]],
      [actors.zoneLeader, [ev.open, ev.a2, ev.none]],
      [actors.fellowshipLeader, [ev.open, ev.a2, ev.none]],
      [actors.member, [ev.open, ev.b1, ev.none]],
      [actors.loner, [ev.open, ev.none]],
    ];
    for (const [user, events] of expected) {
      const body = (await search(user.token, 'q=secret&types=events&limit=20')).json();
      expect(hitIds(body, 'events'), user.username).toEqual(sorted(events));
      expect(body.totals.events, user.username).toBe(events.length);
    }
  });

  it('requests of type Counseling and Welfare only with care:read, in the results and the totals', async () => {
    const contact = await person(ctx, t, 'Care', 'Seeker');
    const prayer = await request(ctx, t, contact, 'Prayer', 'Confidential matter one');
    const counseling = await request(ctx, t, contact, 'Counseling', 'Confidential matter two');
    const welfare = await request(ctx, t, contact, 'Welfare', 'Confidential matter three');
    const reader = await newUser(ctx, t, ['contacts:read']);
    const carer = await newUser(ctx, t, ['contacts:read', 'care:read']);
    const plain = (await search(reader.token, 'q=confidential matter&types=requests')).json();
    expect(hitIds(plain, 'requests')).toEqual([prayer]);
    expect(plain.totals.requests).toBe(1);
    const care = (await search(carer.token, 'q=confidential matter&types=requests')).json();
    expect(hitIds(care, 'requests')).toEqual(sorted([prayer, counseling, welfare]));
    expect(care.totals.requests).toBe(3);
  });

  it('tasks: by the tasks visibility rule (groups, own tasks, confidential)', async () => {
    const leader = actors.zoneLeader; // Leader role: tasks:read, no hierarchy:all, no care:read
    const tk = {
      zoneA: await task(ctx, t, { title: 'Followup zone A', groupId: tree.clusterA.id }),
      zoneB: await task(ctx, t, { title: 'Followup zone B', groupId: tree.zoneB.id }),
      noGroup: await task(ctx, t, { title: 'Followup no group' }),
      confidential: await task(ctx, t, { title: 'Followup confidential', groupId: tree.clusterA.id, confidential: true }),
      assigned: await task(ctx, t, { title: 'Followup assigned', groupId: tree.zoneB.id, confidential: true, assignee: leader.id }),
      created: await task(ctx, t, { title: 'Followup created', createdBy: leader.id }),
    };
    const mine = (await search(leader.token, 'q=followup&types=tasks&limit=20')).json();
    expect(hitIds(mine, 'tasks')).toEqual(sorted([tk.zoneA, tk.assigned, tk.created]));
    expect(mine.totals.tasks).toBe(3);
    const admin = (await search(t.admin.token, 'q=followup&types=tasks&limit=20')).json();
    expect(admin.totals.tasks).toBe(6);
    const carer = await newUser(ctx, t, ['tasks:read', 'care:read']);
    await addMembership(ctx, t, tree.zoneA, carer.contactId, 'Leader');
    expect(hitIds((await search(carer.token, 'q=followup&types=tasks&limit=20')).json(), 'tasks')).toEqual(sorted([tk.zoneA, tk.confidential]));
  });

  it("another tenant's records are never found nor counted", async () => {
    const other = await newTenant(ctx);
    await person(ctx, other, 'Secret', 'Outsider');
    await newGroup(ctx, other, { name: 'Secret group elsewhere' });
    await event(ctx, other, 'Secret elsewhere', '2026-01-01');
    await newUser(ctx, other, ['contacts:read'], { username: 'secret.user', lastName: 'Elsewhere' });
    const body = (await search(t.admin.token, 'q=secret&limit=20')).json();
    expect(body.totals).toEqual({ contacts: 0, groups: 0, events: 5, requests: 0, tasks: 0, users: 0, households: 0 });
    const theirs = (await search(other.admin.token, 'q=secret&limit=20')).json();
    expect(theirs.totals).toEqual({ contacts: 1, groups: 1, events: 1, requests: 0, tasks: 0, users: 1, households: 0 });
  });
});
