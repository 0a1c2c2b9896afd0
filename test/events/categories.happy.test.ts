import { describe, expect, it } from 'vitest';
import { api, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser } from '../helpers/factories.js';
import { newEvent } from '../helpers/events.factories.js';

const ctx = setupTestApp();

describe('event categories', () => {
  it('lists the seeded defaults by name with the envelope', async () => {
    const t = await newTenant(ctx);
    const res = await api(ctx.app, (await newUser(ctx, t, 'Member')).token).get('/api/events/categories');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ total: 6, page: 1, limit: 20 });
    expect(body.data.map((c: { name: string }) => c.name)).toEqual(['Conference', 'Fellowship Meeting', 'Midweek Service', 'Outreach', 'Prayer Meeting', 'Sunday Service']);
    expect(body.data[0]).toEqual({ id: expect.any(Number), name: 'Conference', description: 'Conference, retreat or camp' });
  });

  it('creates a category (201) that events can then use', async () => {
    const t = await newTenant(ctx);
    const admin = api(ctx.app, t.admin.token);
    const res = await admin.post('/api/events/categories', { name: 'Youth Night', description: 'Friday youth', id: 5, tenantId: 99 });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toEqual({ id: expect.any(Number), name: 'Youth Night', description: 'Friday youth' });
    const e = await newEvent(ctx, t, { categoryId: res.json().id });
    expect(e).toMatchObject({ category: { id: res.json().id, name: 'Youth Night' } });
    const list = await admin.get('/api/events/categories?limit=2&page=4');
    expect(list.json()).toMatchObject({ total: 7, page: 4, limit: 2 });
    expect(list.json().data.map((c: { name: string }) => c.name)).toEqual(['Youth Night']);
    const bare = await admin.post('/api/events/categories', { name: 'Bare' });
    expect(bare.json()).toMatchObject({ name: 'Bare', description: null });
  });
});
