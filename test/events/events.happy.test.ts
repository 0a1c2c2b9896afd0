import { describe, expect, it } from 'vitest';
import { api, setupTestApp } from '../helpers/app.js';
import { newTenant } from '../helpers/factories.js';
import { newGroup } from '../helpers/groups.factories.js';
import { eventCategoryId, newEvent } from '../helpers/events.factories.js';

const ctx = setupTestApp();

describe('events: create, read, update, delete', () => {
  it('creates an event with group, category and metaData, and reads it back', async () => {
    const t = await newTenant(ctx);
    const group = await newGroup(ctx, t, { name: 'Riverside' });
    const categoryId = await eventCategoryId(ctx, t);
    const metaData = { venue: 'Main hall', expected: 120, tags: ['a', { b: [1, 2, null] }], nested: { ok: true } };
    const res = await api(ctx.app, t.admin.token).post('/api/events', {
      name: 'Easter', description: 'Sunrise service', startDate: '2026-04-05', groupId: group.id, categoryId, metaData,
    });
    expect(res.statusCode, res.body).toBe(201);
    const created = res.json();
    expect(created).toMatchObject({
      name: 'Easter', description: 'Sunrise service', startDate: '2026-04-05', endDate: '2026-04-05',
      group: { id: group.id, name: 'Riverside' }, category: { id: categoryId, name: 'Sunday Service' }, metaData,
    });
    expect(created.createdAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    const read = await api(ctx.app, t.admin.token).get(`/api/events/${created.id}`);
    expect(read.statusCode).toBe(200);
    expect(read.json()).toMatchObject({ ...created, registrations: [], attendance: [], activities: [] });
    expect(read.json().metaData).toEqual(metaData);
  });

  it('creates a minimal event: no group, no category, empty metaData', async () => {
    const t = await newTenant(ctx);
    const e = await newEvent(ctx, t, { name: 'Prayer night', startDate: '2026-01-31', endDate: '2026-02-01' });
    expect(e).toMatchObject({ name: 'Prayer night', startDate: '2026-01-31', endDate: '2026-02-01', group: null, category: null, metaData: {}, description: null });
  });
});
