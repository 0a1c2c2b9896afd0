import { describe, expect, it } from 'vitest';
import { api, setupTestApp } from '../helpers/app.js';
import { newTenant } from '../helpers/factories.js';
import { newGroup } from '../helpers/groups.factories.js';
import { countRows, eventCategoryId, newContacts, newEvent } from '../helpers/events.factories.js';

const ctx = setupTestApp();

describe('events: create, read, update, delete', () => {
  it('creates an event with group, category and metaData, and reads it back', async () => {
    const t = await newTenant(ctx);
    const group = await newGroup(ctx, t, { name: 'Riverside' });
    const categoryId = await eventCategoryId(ctx, t);
    const metaData = { venue: '  Main hall  ', expected: 120, tags: ['a', { b: [1, 2, null] }], nested: { ok: true } };
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

describe('events: update and delete', () => {
  it('PUT changes only the sent fields, clears with null, and replaces metaData', async () => {
    const t = await newTenant(ctx);
    const group = await newGroup(ctx, t, { name: 'Hillside' });
    const e = await newEvent(ctx, t, { name: 'Retreat', description: 'Weekend', startDate: '2026-05-01', endDate: '2026-05-03', groupId: group.id, metaData: { a: 1 } });
    const res = await api(ctx.app, t.admin.token).put(`/api/events/${e.id}`, { name: 'Retreat 2026', groupId: null, metaData: { b: [2] } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ id: e.id, name: 'Retreat 2026', description: 'Weekend', startDate: '2026-05-01', endDate: '2026-05-03', group: null, metaData: { b: [2] } });
    const again = await api(ctx.app, t.admin.token).put(`/api/events/${e.id}`, { description: null, endDate: '2026-05-04' });
    expect(again.json()).toMatchObject({ name: 'Retreat 2026', description: null, endDate: '2026-05-04' });
  });

  it('PUT accepts back what GET returned (output-only fields are ignored)', async () => {
    const t = await newTenant(ctx);
    const e = await newEvent(ctx, t, { metaData: { x: 'y' } });
    const read = (await api(ctx.app, t.admin.token).get(`/api/events/${e.id}`)).json();
    const res = await api(ctx.app, t.admin.token).put(`/api/events/${e.id}`, { ...read, name: 'Renamed' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ name: 'Renamed', metaData: { x: 'y' }, startDate: read.startDate });
  });

  it('DELETE removes the event with its registrations, attendance and activities', async () => {
    const t = await newTenant(ctx);
    const e = await newEvent(ctx, t);
    const contacts = await newContacts(ctx, t, 2);
    const admin = api(ctx.app, t.admin.token);
    expect((await admin.post(`/api/events/${e.id}/registration`, { contactIds: contacts })).statusCode).toBe(201);
    expect((await admin.post(`/api/events/${e.id}/attendance`, { contactIds: contacts })).statusCode).toBe(201);
    expect((await admin.post(`/api/events/${e.id}/activities`, { activityType: 'Salvation', contactIds: contacts })).statusCode).toBe(201);
    const res = await admin.delete(`/api/events/${e.id}`);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect((await admin.get(`/api/events/${e.id}`)).statusCode).toBe(404);
    for (const kind of ['registrations', 'attendance', 'activities'] as const) expect(await countRows(ctx, t, kind, e.id)).toBe(0);
  });
});

describe('events: list', () => {
  async function seeded() {
    const t = await newTenant(ctx);
    const parent = await newGroup(ctx, t, { name: 'Zone', category: 'Zone' });
    const child = await newGroup(ctx, t, { name: 'Cell', parent });
    const other = await newGroup(ctx, t, { name: 'Other' });
    const conference = await eventCategoryId(ctx, t, 'Conference');
    const e = {
      a: await newEvent(ctx, t, { name: 'Alpha 100% night', startDate: '2026-01-10', groupId: parent.id }),
      b: await newEvent(ctx, t, { name: 'Beta camp', startDate: '2026-01-05', endDate: '2026-01-20', groupId: child.id, categoryId: conference }),
      c: await newEvent(ctx, t, { name: 'Gamma_x', startDate: '2026-02-01', groupId: other.id }),
      d: await newEvent(ctx, t, { name: 'Delta', startDate: '2026-01-10' }),
    };
    return { t, parent, child, other, conference, e, admin: api(ctx.app, t.admin.token) };
  }
  const names = (res: { json(): { data: { name: string }[] } }) => res.json().data.map((x) => x.name);

  it('lists by start date then id with the envelope', async () => {
    const { admin } = await seeded();
    const res = await admin.get('/api/events');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ total: 4, page: 1, limit: 20 });
    expect(names(res)).toEqual(['Beta camp', 'Alpha 100% night', 'Delta', 'Gamma_x']);
    expect(res.json().data[0]).toMatchObject({ startDate: '2026-01-05', endDate: '2026-01-20', group: { name: 'Cell' }, category: { name: 'Conference' } });
  });

  it('paginates, clamps limit to 100 and returns an empty page past the end', async () => {
    const { admin } = await seeded();
    const p2 = await admin.get('/api/events?page=2&limit=3');
    expect(p2.json()).toMatchObject({ total: 4, page: 2, limit: 3 });
    expect(names(p2)).toEqual(['Gamma_x']);
    expect((await admin.get('/api/events?limit=1000')).json().limit).toBe(100);
    expect((await admin.get('/api/events?page=9')).json()).toMatchObject({ data: [], total: 4 });
  });

  it('filters by group, with and without subgroups', async () => {
    const { admin, parent, child } = await seeded();
    expect(names(await admin.get(`/api/events?groupId=${parent.id}`))).toEqual(['Alpha 100% night']);
    expect(names(await admin.get(`/api/events?groupId=${parent.id}&includeSubgroups=true`))).toEqual(['Beta camp', 'Alpha 100% night']);
    expect(names(await admin.get(`/api/events?groupId=${child.id}&includeSubgroups=true`))).toEqual(['Beta camp']);
  });

  it('filters by category, by date window (overlap) and by q', async () => {
    const { admin, conference } = await seeded();
    expect(names(await admin.get(`/api/events?categoryId=${conference}`))).toEqual(['Beta camp']);
    expect(names(await admin.get('/api/events?from=2026-01-15&to=2026-01-31'))).toEqual(['Beta camp']);
    expect(names(await admin.get('/api/events?from=2026-01-10&to=2026-01-10'))).toEqual(['Beta camp', 'Alpha 100% night', 'Delta']);
    expect(names(await admin.get('/api/events?from=2026-02-01'))).toEqual(['Gamma_x']);
    expect(names(await admin.get('/api/events?to=2026-01-09'))).toEqual(['Beta camp']);
    expect(names(await admin.get('/api/events?q=ALPHA'))).toEqual(['Alpha 100% night']);
    // LIKE wildcards in q are literal characters.
    expect(names(await admin.get('/api/events?q=100%25'))).toEqual(['Alpha 100% night']);
    expect(names(await admin.get('/api/events?q=a_x'))).toEqual(['Gamma_x']);
    expect(names(await admin.get('/api/events?q=%25'))).toEqual(['Alpha 100% night']);
    expect(names(await admin.get('/api/events?q=_'))).toEqual(['Gamma_x']);
  });

  it('a filter naming an unknown group or category gives an empty page', async () => {
    const { admin } = await seeded();
    expect((await admin.get('/api/events?groupId=999999')).json()).toMatchObject({ data: [], total: 0 });
    expect((await admin.get('/api/events?groupId=999999&includeSubgroups=true')).json()).toMatchObject({ data: [], total: 0 });
    expect((await admin.get('/api/events?categoryId=999999')).json()).toMatchObject({ data: [], total: 0 });
  });
});
