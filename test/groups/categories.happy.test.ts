import { describe, expect, it } from 'vitest';
import { api, setupTestApp } from '../helpers/app.js';
import { newTenant } from '../helpers/factories.js';

const ctx = setupTestApp();

describe('group categories: happy paths', () => {
  it('lists the seeded hierarchy categories by level, then custom ones by name', async () => {
    const t = await newTenant(ctx);
    const a = api(ctx.app, t.admin.token);
    const res = await a.get('/api/groups/categories');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ total: 6, page: 1, limit: 20 });
    expect(body.data.map((c: { name: string }) => c.name)).toEqual(['Church', 'Network', 'Location', 'Zone', 'Cluster', 'Fellowship']);
    expect(body.data[0]).toEqual({ id: expect.any(Number), name: 'Church', description: expect.any(String), purpose: 'Hierarchy', level: 1 });

    const created = await a.post('/api/groups/categories', { name: 'Worship Team', description: 'Music', purpose: 'Ministry' });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toEqual({ id: expect.any(Number), name: 'Worship Team', description: 'Music', purpose: 'Ministry', level: null });
    await a.post('/api/groups/categories', { name: 'Committee' });
    const after = (await a.get('/api/groups/categories?limit=100')).json();
    expect(after.total).toBe(8);
    expect(after.data.slice(6).map((c: { name: string }) => c.name)).toEqual(['Committee', 'Worship Team']);
    const paged = (await a.get('/api/groups/categories?limit=2&page=4')).json();
    expect(paged.data.map((c: { name: string }) => c.name)).toEqual(['Committee', 'Worship Team']);
  });

  it('a member with groups:read sees the categories', async () => {
    const t = await newTenant(ctx);
    const { newUser } = await import('../helpers/factories.js');
    const member = await newUser(ctx, t, 'Member');
    expect((await api(ctx.app, member.token).get('/api/groups/categories')).json().total).toBe(6);
  });
});
