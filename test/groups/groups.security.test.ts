import { describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser } from '../helpers/factories.js';
import { categoryId, newGroup, newLeaderOf, newTree } from '../helpers/groups.factories.js';

const ctx = setupTestApp();

describe('groups: security', () => {
  it('no token is 401 on every route, whatever the path or body', async () => {
    const anon = api(ctx.app);
    for (const [method, url] of [
      ['GET', '/api/groups'], ['POST', '/api/groups'], ['GET', '/api/groups/1'], ['PUT', '/api/groups/1'], ['DELETE', '/api/groups/1'],
      ['GET', '/api/groups/abc'], ['GET', '/api/groups/combo'],
    ] as const) {
      const res = await ctx.app.inject({ method, url, payload: method === 'GET' || method === 'DELETE' ? undefined : { bad: true } });
      expectError(res, 401);
    }
    expectError(await anon.get('/api/groups?page=0'), 401);
    expectError(await api(ctx.app, 'not-a-jwt').get('/api/groups'), 401);
  });

  it('missing permission is 403', async () => {
    const t = await newTenant(ctx);
    const g = await newGroup(ctx, t, { name: 'G', category: 'Church' });
    const none = api(ctx.app, (await newUser(ctx, t, ['contacts:read'])).token);
    expectError(await none.get('/api/groups'), 403);
    expectError(await none.get(`/api/groups/${g.id}`), 403);
    expectError(await none.get('/api/groups/combo'), 403);
    const reader = api(ctx.app, (await newUser(ctx, t, ['groups:read'])).token);
    const cat = await categoryId(ctx, t, 'Church');
    expectError(await reader.post('/api/groups', { name: 'X', categoryId: cat, parentId: g.id }), 403);
    expectError(await reader.put(`/api/groups/${g.id}`, { name: 'X' }), 403);
    expectError(await reader.delete(`/api/groups/${g.id}`), 403);
  });

  it('root groups need hierarchy:all; a leader may create only inside its subtree', async () => {
    const t = await newTenant(ctx);
    const tree = await newTree(ctx, t);
    const leader = await newLeaderOf(ctx, t, tree.zoneA);
    const l = api(ctx.app, leader.token);
    const cat = await categoryId(ctx, t, 'Fellowship');
    expect(expectError(await l.post('/api/groups', { name: 'Root', categoryId: cat }), 403)).toMatch(/hierarchy:all/);
    expect(expectError(await l.post('/api/groups', { name: 'Root', categoryId: cat, parentId: null }), 403)).toMatch(/hierarchy:all/);
    const inside = await l.post('/api/groups', { name: 'New Fellowship', categoryId: cat, parentId: tree.clusterA.id });
    expect(inside.statusCode).toBe(201);
    // Visible (Public) but not led: 403. Invisible (Private, not led): 404.
    expectError(await l.post('/api/groups', { name: 'X', categoryId: cat, parentId: tree.location.id }), 403);
    expect(expectError(await l.post('/api/groups', { name: 'X', categoryId: cat, parentId: tree.zoneB.id }), 404)).toBe(`Group with id ${tree.zoneB.id} not found`);
    // Moves: to the root needs hierarchy:all; under an unled or invisible parent is 403 / 404.
    expectError(await l.put(`/api/groups/${tree.clusterA.id}`, { parentId: null }), 403);
    expectError(await l.put(`/api/groups/${tree.clusterA.id}`, { parentId: tree.location.id }), 403);
    expectError(await l.put(`/api/groups/${tree.clusterA.id}`, { parentId: tree.clusterB.id }), 404);
    expect((await l.put(`/api/groups/${tree.fellowshipA1.id}`, { parentId: tree.zoneA.id })).statusCode).toBe(200);
  });

  it("another tenant's ids are 404 in paths and bodies (parentId, categoryId)", async () => {
    const t1 = await newTenant(ctx);
    const t2 = await newTenant(ctx);
    const other = await newGroup(ctx, t2, { name: 'Other', category: 'Church' });
    const otherCat = await categoryId(ctx, t2, 'Church');
    const mine = await newGroup(ctx, t1, { name: 'Mine', category: 'Church' });
    const myCat = await categoryId(ctx, t1, 'Church');
    const a = api(ctx.app, t1.admin.token);
    expect(expectError(await a.get(`/api/groups/${other.id}`), 404)).toBe(`Group with id ${other.id} not found`);
    expectError(await a.put(`/api/groups/${other.id}`, { name: 'Stolen' }), 404);
    expectError(await a.delete(`/api/groups/${other.id}`), 404);
    expect(expectError(await a.post('/api/groups', { name: 'X', categoryId: myCat, parentId: other.id }), 404)).toBe(`Group with id ${other.id} not found`);
    expect(expectError(await a.post('/api/groups', { name: 'X', categoryId: otherCat }), 404)).toBe(`Group category with id ${otherCat} not found`);
    expectError(await a.put(`/api/groups/${mine.id}`, { parentId: other.id }), 404);
    expectError(await a.put(`/api/groups/${mine.id}`, { categoryId: otherCat }), 404);
    expect((await a.get(`/api/groups?parentId=${other.id}`)).json().total).toBe(0);
    expect((await a.get(`/api/groups?ancestorId=${other.id}`)).json().total).toBe(0);
    expect((await a.get(`/api/groups?categoryId=${otherCat}`)).json().total).toBe(0);
    expect((await a.get(`/api/groups/combo?categoryId=${otherCat}`)).json().total).toBe(0);
    expect((await a.get('/api/groups')).json().data.map((g: { id: number }) => g.id)).toEqual([mine.id]);
    const stillThere = (await api(ctx.app, t2.admin.token).get(`/api/groups/${other.id}`)).json();
    expect(stillThere.name).toBe('Other');
  });
});
