import { describe, expect, it } from 'vitest';
import { events } from '../../src/db/schema/index.js';
import { withTenant } from '../../src/db/client.js';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant } from '../helpers/factories.js';
import { addMembership, categoryId, newContact, newGroup, newTree } from '../helpers/groups.factories.js';

const ctx = setupTestApp();

const BAD_IDS = ['abc', '1.5', '-1', '0', '99999999999999999999'];

describe('groups: errors', () => {
  it('bad path ids are 400 on every :id route, never 500', async () => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    for (const id of BAD_IDS) {
      expect(expectError(await a.get(`/api/groups/${id}`), 400)).toMatch(/^params\/id /);
      expectError(await a.put(`/api/groups/${id}`, { name: 'x' }), 400);
      expectError(await a.delete(`/api/groups/${id}`), 400);
    }
  });

  it('bad filters are 400 naming the field', async () => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    expect(expectError(await a.get('/api/groups?categoryId=abc'), 400)).toMatch(/querystring\/categoryId/);
    expect(expectError(await a.get('/api/groups?parentId=0'), 400)).toMatch(/querystring\/parentId/);
    expect(expectError(await a.get('/api/groups?ancestorId=-3'), 400)).toMatch(/querystring\/ancestorId/);
    expect(expectError(await a.get('/api/groups?page=0'), 400)).toMatch(/querystring\/page/);
    expect(expectError(await a.get('/api/groups?limit=1.5'), 400)).toMatch(/querystring\/limit/);
    expect(expectError(await a.get('/api/groups?sort=path'), 400)).toMatch(/querystring\/sort/);
    expect(expectError(await a.get(`/api/groups?q=${'x'.repeat(201)}`), 400)).toMatch(/querystring\/q/);
    expect(expectError(await a.get('/api/groups/combo?categoryId=x'), 400)).toMatch(/querystring\/categoryId/);
  });

  it('bad bodies are 400 naming the field', async () => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    const cat = await categoryId(ctx, t, 'Church');
    const ok = { name: 'G', categoryId: cat };
    expect(expectError(await a.post('/api/groups', { categoryId: cat }), 400)).toBe('body/name is required');
    expect(expectError(await a.post('/api/groups', { name: 'G' }), 400)).toBe('body/categoryId is required');
    expect(expectError(await a.post('/api/groups', { ...ok, name: '' }), 400)).toMatch(/body\/name/);
    expect(expectError(await a.post('/api/groups', { ...ok, name: '   ' }), 400)).toMatch(/body\/name/);
    expect(expectError(await a.post('/api/groups', { ...ok, name: 'x'.repeat(201) }), 400)).toMatch(/body\/name/);
    expect(expectError(await a.post('/api/groups', { ...ok, details: 'x'.repeat(5001) }), 400)).toMatch(/body\/details/);
    expect(expectError(await a.post('/api/groups', { ...ok, privacy: 'Secret' }), 400)).toMatch(/body\/privacy must be one of: Public, Private/);
    expect(expectError(await a.post('/api/groups', { ...ok, categoryId: 'abc' }), 400)).toMatch(/body\/categoryId/);
    expect(expectError(await a.post('/api/groups', { ...ok, parentId: 1.5 }), 400)).toMatch(/body\/parentId/);
    expect(expectError(await a.post('/api/groups', { ...ok, address: { city: 5 } }), 400)).toMatch(/body\/address\/city/);
    expect(expectError(await a.post('/api/groups', { ...ok, address: 'Kampala' }), 400)).toMatch(/body\/address/);
    expect(expectError(await a.post('/api/groups', { ...ok, metaData: [1, 2] }), 400)).toMatch(/body\/metaData/);
    expect(expectError(await a.post('/api/groups', { ...ok, metaData: 'x' }), 400)).toMatch(/body\/metaData/);
    expect(expectError(await a.post('/api/groups', { ...ok, name: 'a\u0000b' }), 400)).toMatch(/NUL/);
    expectError(await a.post('/api/groups', '{"name":', { 'content-type': 'application/json' }), 400);
    expectError(await a.post('/api/groups', 'name=x', { 'content-type': 'application/x-www-form-urlencoded' }), 415);
  });

  it('metaData is bounded: 16 KB serialized and 8 levels deep', async () => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    const cat = await categoryId(ctx, t, 'Church');
    let deep: Record<string, unknown> = { leaf: 1 };
    for (let i = 0; i < 8; i++) deep = { d: deep };
    expect(expectError(await a.post('/api/groups', { name: 'G', categoryId: cat, metaData: deep }), 400)).toMatch(/body\/metaData must be at most 8 levels deep/);
    let ok: Record<string, unknown> = { leaf: 1 };
    for (let i = 0; i < 7; i++) ok = { d: ok };
    expect((await a.post('/api/groups', { name: 'G', categoryId: cat, metaData: ok })).statusCode).toBe(201);
    const big = { text: 'x'.repeat(17 * 1024) };
    expect(expectError(await a.post('/api/groups', { name: 'G2', categoryId: cat, metaData: big }), 400)).toMatch(/16 KB/);
    const g = await newGroup(ctx, t, { name: 'H', category: 'Church' });
    expect(expectError(await a.put(`/api/groups/${g.id}`, { metaData: big }), 400)).toMatch(/16 KB/);
  });

  it('unknown category or parent is 404 naming it; nothing is written', async () => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    const cat = await categoryId(ctx, t, 'Church');
    expect(expectError(await a.post('/api/groups', { name: 'G', categoryId: 99999999 }), 404)).toBe('Group category with id 99999999 not found');
    expect(expectError(await a.post('/api/groups', { name: 'G', categoryId: cat, parentId: 99999999 }), 404)).toBe('Group with id 99999999 not found');
    const g = await newGroup(ctx, t, { name: 'H', category: 'Church' });
    expect(expectError(await a.put(`/api/groups/${g.id}`, { categoryId: 99999999 }), 404)).toBe('Group category with id 99999999 not found');
    expect(expectError(await a.put(`/api/groups/${g.id}`, { parentId: 99999999, name: 'Renamed' }), 404)).toBe('Group with id 99999999 not found');
    expect(expectError(await a.get('/api/groups/99999999'), 404)).toBe('Group with id 99999999 not found');
    expect(expectError(await a.put('/api/groups/99999999', { name: 'x' }), 404)).toBe('Group with id 99999999 not found');
    expect(expectError(await a.delete('/api/groups/99999999'), 404)).toBe('Group with id 99999999 not found');
    expect((await a.get('/api/groups')).json().data.map((x: { name: string }) => x.name)).toEqual(['H']);
  });

  it('a move under itself or a descendant is 409 and changes nothing', async () => {
    const t = await newTenant(ctx);
    const tree = await newTree(ctx, t);
    const a = api(ctx.app, t.admin.token);
    expect(expectError(await a.put(`/api/groups/${tree.zoneA.id}`, { parentId: tree.zoneA.id }), 409)).toMatch(/cannot be moved under itself or one of its descendants/);
    expectError(await a.put(`/api/groups/${tree.zoneA.id}`, { parentId: tree.fellowshipA1.id }), 409);
    expectError(await a.put(`/api/groups/${tree.church.id}`, { parentId: tree.fellowshipB1.id }), 409);
    const read = (await a.get(`/api/groups/${tree.zoneA.id}`)).json();
    expect(read.parent.id).toBe(tree.location.id);
    expect((await a.get(`/api/groups?ancestorId=${tree.zoneA.id}`)).json().total).toBe(3);
  });

  it('two concurrent crossing moves cannot make a cycle: one wins, the other is 409', async () => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    for (let round = 0; round < 3; round++) {
      const x = await newGroup(ctx, t, { name: `X${round}`, category: 'Church' });
      const y = await newGroup(ctx, t, { name: `Y${round}`, category: 'Church' });
      const [r1, r2] = await Promise.all([a.put(`/api/groups/${x.id}`, { parentId: y.id }), a.put(`/api/groups/${y.id}`, { parentId: x.id })]);
      expect([r1.statusCode, r2.statusCode].sort()).toEqual([200, 409]);
      const rx = (await a.get(`/api/groups/${x.id}`)).json();
      const ry = (await a.get(`/api/groups/${y.id}`)).json();
      expect([rx.parent?.id ?? null, ry.parent?.id ?? null].filter((p) => p !== null)).toHaveLength(1);
    }
  });

  it('DELETE is 409 naming sub-groups, active memberships and hosted events', async () => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    const parent = await newGroup(ctx, t, { name: 'P', category: 'Church' });
    await newGroup(ctx, t, { name: 'C', parent });
    expect(expectError(await a.delete(`/api/groups/${parent.id}`), 409)).toBe(`Group ${parent.id} cannot be deleted: it still has sub-groups`);

    const busy = await newGroup(ctx, t, { name: 'Busy', category: 'Church' });
    const c = await newContact(ctx, t);
    await addMembership(ctx, t, busy, c);
    expect(expectError(await a.delete(`/api/groups/${busy.id}`), 409)).toBe(`Group ${busy.id} cannot be deleted: it still has active memberships`);

    const host = await newGroup(ctx, t, { name: 'Host', category: 'Church' });
    await withTenant(ctx.db, t.id, (tx) => tx.insert(events).values({ tenantId: t.id, name: 'Service', startDate: '2026-01-01', endDate: '2026-01-01', groupId: host.id }));
    await newGroup(ctx, t, { name: 'Kid', parent: host });
    await addMembership(ctx, t, host, c);
    expect(expectError(await a.delete(`/api/groups/${host.id}`), 409)).toBe(
      `Group ${host.id} cannot be deleted: it still has sub-groups, active memberships and hosted events`,
    );
    expect((await a.get(`/api/groups/${host.id}`)).statusCode).toBe(200);
  });
});
