import { describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser } from '../helpers/factories.js';

const ctx = setupTestApp();

describe('group categories: security', () => {
  it('401 without a token, 403 without permission, creation needs hierarchy:all', async () => {
    expectError(await api(ctx.app).get('/api/groups/categories'), 401);
    expectError(await api(ctx.app).post('/api/groups/categories', { name: 'X' }), 401);
    const t = await newTenant(ctx);
    const none = api(ctx.app, (await newUser(ctx, t, ['contacts:read'])).token);
    expectError(await none.get('/api/groups/categories'), 403);
    const reader = api(ctx.app, (await newUser(ctx, t, ['groups:read'])).token);
    expectError(await reader.post('/api/groups/categories', { name: 'X' }), 403);
    const leader = api(ctx.app, (await newUser(ctx, t, 'Leader')).token);
    expect(expectError(await leader.post('/api/groups/categories', { name: 'X' }), 403)).toMatch(/hierarchy:all/);
    const structure = api(ctx.app, (await newUser(ctx, t, ['groups:read', 'groups:write', 'hierarchy:all'])).token);
    expect((await structure.post('/api/groups/categories', { name: 'X' })).statusCode).toBe(201);
  });

  it("categories are per tenant: another tenant's are neither listed nor in conflict", async () => {
    const t1 = await newTenant(ctx);
    const t2 = await newTenant(ctx);
    expect((await api(ctx.app, t2.admin.token).post('/api/groups/categories', { name: 'Only Mine' })).statusCode).toBe(201);
    const list = (await api(ctx.app, t1.admin.token).get('/api/groups/categories')).json();
    expect(list.data.map((c: { name: string }) => c.name)).not.toContain('Only Mine');
    expect((await api(ctx.app, t1.admin.token).post('/api/groups/categories', { name: 'Only Mine' })).statusCode).toBe(201);
  });
});
