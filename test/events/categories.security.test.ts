import { describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser } from '../helpers/factories.js';
import { newLeaderOf, newTree } from '../helpers/groups.factories.js';

const ctx = setupTestApp();

describe('event categories security', () => {
  it('creating needs events:write AND hierarchy:all; reading needs events:read', async () => {
    const t = await newTenant(ctx);
    const tree = await newTree(ctx, t);
    const leader = await newLeaderOf(ctx, t, tree.church);
    expect(expectError(await api(ctx.app, leader.token).post('/api/events/categories', { name: 'Leader cat' }), 403)).toMatch(/whole hierarchy/);
    const wideReader = await newUser(ctx, t, ['events:read', 'hierarchy:all']);
    expectError(await api(ctx.app, wideReader.token).post('/api/events/categories', { name: 'Reader cat' }), 403);
    const noEvents = await newUser(ctx, t, ['groups:read']);
    expectError(await api(ctx.app, noEvents.token).get('/api/events/categories'), 403);
    const writer = await newUser(ctx, t, ['events:write', 'hierarchy:all']);
    expect((await api(ctx.app, writer.token).post('/api/events/categories', { name: 'Writer cat' })).statusCode).toBe(201);
    expectError(await api(ctx.app).get('/api/events/categories'), 401);
    expectError(await api(ctx.app).post('/api/events/categories', { name: 'Anon' }), 401);
    const names = (await api(ctx.app, t.admin.token).get('/api/events/categories')).json().data.map((c: { name: string }) => c.name);
    expect(names).toContain('Writer cat');
    expect(names).not.toContain('Leader cat');
  });

  it("lists only the caller's tenant", async () => {
    const a = await newTenant(ctx);
    const b = await newTenant(ctx);
    await api(ctx.app, a.admin.token).post('/api/events/categories', { name: 'Only in A' });
    const names = (await api(ctx.app, b.admin.token).get('/api/events/categories')).json().data.map((c: { name: string }) => c.name);
    expect(names).not.toContain('Only in A');
    expect(names).toHaveLength(6);
  });
});
