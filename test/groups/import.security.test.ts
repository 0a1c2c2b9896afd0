import { describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser } from '../helpers/factories.js';
import { newGroup } from '../helpers/groups.factories.js';

const ctx = setupTestApp();

describe('groups import: security', () => {
  it('401 without a token; needs groups:write and hierarchy:all', async () => {
    expectError(await api(ctx.app).post('/api/groups/import', { groups: [] }), 401);
    expectError(await api(ctx.app).post('/api/groups/import', 'name,category\nA,Zone', { 'content-type': 'text/csv' }), 401);
    const t = await newTenant(ctx);
    const body = { groups: [{ name: 'A', category: 'Church' }] };
    expectError(await api(ctx.app, (await newUser(ctx, t, ['groups:read'])).token).post('/api/groups/import', body), 403);
    expect(expectError(await api(ctx.app, (await newUser(ctx, t, 'Leader')).token).post('/api/groups/import', body), 403)).toMatch(/hierarchy:all/);
    expect((await api(ctx.app, t.admin.token).get('/api/groups')).json().total).toBe(0);
  });

  it("another tenant's groups and categories are never matched by name", async () => {
    const t1 = await newTenant(ctx);
    const t2 = await newTenant(ctx);
    await newGroup(ctx, t2, { name: 'Foreign Parent', category: 'Church' });
    await api(ctx.app, t2.admin.token).post('/api/groups/categories', { name: 'Foreign Category' });
    const res = await api(ctx.app, t1.admin.token).post('/api/groups/import', {
      groups: [{ name: 'A', category: 'Zone', parentName: 'Foreign Parent' }, { name: 'B', category: 'Foreign Category' }],
    });
    expect(res.json()).toEqual({
      total: 2, created: 0, skipped: 0, failed: 2,
      errors: [{ row: 1, message: "Unknown parent group 'Foreign Parent'" }, { row: 2, message: "Unknown group category 'Foreign Category'" }],
    });
  });
});
