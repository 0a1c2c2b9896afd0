import { describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant } from '../helpers/factories.js';
import { newEvent } from '../helpers/events.factories.js';

const ctx = setupTestApp();

describe('events: bad input is 400 naming the field, never 500', () => {
  it('requires name and startDate', async () => {
    const t = await newTenant(ctx);
    const admin = api(ctx.app, t.admin.token);
    expect(expectError(await admin.post('/api/events', { startDate: '2026-01-01' }), 400)).toMatch(/body\/name is required/);
    expect(expectError(await admin.post('/api/events', { name: 'X' }), 400)).toMatch(/body\/startDate is required/);
    expect(expectError(await admin.post('/api/events', { name: '', startDate: '2026-01-01' }), 400)).toMatch(/body\/name/);
    expect(expectError(await admin.post('/api/events', { name: '   ', startDate: '2026-01-01' }), 400)).toMatch(/body\/name/);
    expect(expectError(await admin.post('/api/events', { name: 'x'.repeat(201), startDate: '2026-01-01' }), 400)).toMatch(/body\/name/);
    expect(expectError(await admin.post('/api/events', { name: 'X', description: 'x'.repeat(5001), startDate: '2026-01-01' }), 400)).toMatch(/body\/description/);
    expect(expectError(await admin.post('/api/events', { name: { a: 1 }, startDate: '2026-01-01' }), 400)).toMatch(/body\/name/);
    expect(expectError(await admin.post('/api/events', 'not json', { 'content-type': 'application/json' }), 400)).toMatch(/JSON/);
  });

  it('dates must be real YYYY-MM-DD dates and the end may not precede the start', async () => {
    const t = await newTenant(ctx);
    const admin = api(ctx.app, t.admin.token);
    for (const bad of ['2026-02-30', '2026-1-01', '01/02/2026', '2026-01-01T00:00:00Z', '0000-01-01', '']) {
      expect(expectError(await admin.post('/api/events', { name: 'X', startDate: bad }), 400)).toMatch(/body\/startDate/);
    }
    expect(expectError(await admin.post('/api/events', { name: 'X', startDate: '2026-01-02', endDate: '2026-01-01' }), 400)).toMatch(/endDate must not precede startDate/);
    expect(await admin.get('/api/events').then((r) => r.json().total)).toBe(0);
  });

  it('PUT checks the dates against the stored values', async () => {
    const t = await newTenant(ctx);
    const admin = api(ctx.app, t.admin.token);
    const e = await newEvent(ctx, t, { startDate: '2026-03-01', endDate: '2026-03-05' });
    expect(expectError(await admin.put(`/api/events/${e.id}`, { startDate: '2026-03-06' }), 400)).toMatch(/endDate/);
    expect(expectError(await admin.put(`/api/events/${e.id}`, { endDate: '2026-02-28' }), 400)).toMatch(/endDate/);
    expect((await admin.put(`/api/events/${e.id}`, { startDate: '2026-03-06', endDate: '2026-03-07' })).statusCode).toBe(200);
    expect(expectError(await admin.put(`/api/events/${e.id}`, { name: null }), 400)).toMatch(/body\/name/);
    expect(expectError(await admin.put(`/api/events/${e.id}`, { startDate: null }), 400)).toMatch(/body\/startDate/);
  });

  it('metaData must be an object of at most 16 KB and depth 8', async () => {
    const t = await newTenant(ctx);
    const admin = api(ctx.app, t.admin.token);
    const post = (metaData: unknown) => admin.post('/api/events', { name: 'X', startDate: '2026-01-01', metaData });
    for (const bad of ['text', [1, 2], 5, null]) expect(expectError(await post(bad), 400)).toMatch(/body\/metaData/);
    expect(expectError(await post({ big: 'x'.repeat(16 * 1024) }), 400)).toMatch(/body\/metaData must be at most 16 KB/);
    expect((await post({ big: 'x'.repeat(16 * 1024 - 20) })).statusCode).toBe(201);
    const nest = (depth: number): Record<string, unknown> => (depth === 1 ? { leaf: 1 } : { n: nest(depth - 1) });
    expect((await post(nest(8))).statusCode).toBe(201);
    expect(expectError(await post(nest(9)), 400)).toMatch(/body\/metaData must be nested at most 8/);
    expect(expectError(await post({ a: [[[[[[[[1]]]]]]]] }), 400)).toMatch(/body\/metaData/);
    const e = await newEvent(ctx, t);
    expect(expectError(await admin.put(`/api/events/${e.id}`, { metaData: nest(9) }), 400)).toMatch(/metaData/);
  });

  it('bad ids in paths are 400, unknown ones 404', async () => {
    const t = await newTenant(ctx);
    const admin = api(ctx.app, t.admin.token);
    for (const bad of ['abc', '1.5', '-1', '0', '99999999999999999999']) {
      expect(expectError(await admin.get(`/api/events/${bad}`), 400)).toMatch(/params\/id/);
      expectError(await admin.put(`/api/events/${bad}`, { name: 'X' }), 400);
      expectError(await admin.delete(`/api/events/${bad}`), 400);
    }
    expect(expectError(await admin.get('/api/events/999999'), 404)).toBe('Event with id 999999 not found');
    expect(expectError(await admin.put('/api/events/999999', { name: 'X' }), 404)).toBe('Event with id 999999 not found');
    expect(expectError(await admin.delete('/api/events/999999'), 404)).toBe('Event with id 999999 not found');
  });

  it('unknown groupId or categoryId in the body is 404 naming it, nothing written', async () => {
    const t = await newTenant(ctx);
    const admin = api(ctx.app, t.admin.token);
    expect(expectError(await admin.post('/api/events', { name: 'X', startDate: '2026-01-01', groupId: 999999 }), 404)).toBe('Group with id 999999 not found');
    expect(expectError(await admin.post('/api/events', { name: 'X', startDate: '2026-01-01', categoryId: 999999 }), 404)).toBe('Event category with id 999999 not found');
    expect((await admin.get('/api/events')).json().total).toBe(0);
    const e = await newEvent(ctx, t);
    expect(expectError(await admin.put(`/api/events/${e.id}`, { groupId: 999999 }), 404)).toBe('Group with id 999999 not found');
    expect(expectError(await admin.put(`/api/events/${e.id}`, { categoryId: 999999 }), 404)).toBe('Event category with id 999999 not found');
    for (const bad of ['abc', 0, -1, 1.5, '99999999999999999999']) {
      expect(expectError(await admin.post('/api/events', { name: 'X', startDate: '2026-01-01', groupId: bad }), 400)).toMatch(/body\/groupId/);
    }
  });

  it('malformed list filters are 400', async () => {
    const t = await newTenant(ctx);
    const admin = api(ctx.app, t.admin.token);
    for (const q of ['groupId=abc', 'groupId=0', 'categoryId=-1', 'from=2026-13-01', 'to=yesterday', 'page=0', 'limit=0', 'limit=1.5', 'includeSubgroups=maybe', `q=${'x'.repeat(201)}`]) {
      const field = q.split('=')[0];
      expect(expectError(await admin.get(`/api/events?${q}`), 400)).toMatch(new RegExp(`querystring/${field}`));
    }
  });
});
