import { describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { countOf, newService } from '../helpers/attendance.factories.js';
import { newTenant } from '../helpers/factories.js';
import { newGroup } from '../helpers/groups.factories.js';

const ctx = setupTestApp();

describe('services: bad input', () => {
  it('validates day, time, frequency, headcount types and metaData; unknown groups are 404; nothing written', async () => {
    const t = await newTenant(ctx);
    const g = await newGroup(ctx, t, { name: 'Church', category: 'Church' });
    const admin = api(ctx.app, t.admin.token);
    const ok = { name: 'Sunday', groupId: g.id, dayOfWeek: 0, startTime: '09:00' };
    const post = (patch: Record<string, unknown>) => admin.post('/api/attendance/services', { ...ok, ...patch });
    expect(expectError(await post({ dayOfWeek: 7 }), 400)).toMatch(/dayOfWeek/);
    expectError(await post({ dayOfWeek: -1 }), 400);
    expect(expectError(await post({ startTime: '24:00' }), 400)).toMatch(/startTime/);
    expectError(await post({ startTime: '9:00' }), 400);
    expectError(await post({ startTime: '09:60' }), 400);
    expectError(await post({ frequency: 'Daily' }), 400);
    expectError(await post({ headcountTypes: ['Adults', 'Adults'] }), 400);
    expectError(await post({ name: '' }), 400);
    expectError(await post({ name: 'x'.repeat(201) }), 400);
    expectError(await post({ metaData: 'x' }), 400);
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 10; i++) deep = { d: deep };
    expectError(await post({ metaData: deep }), 400);
    expect(expectError(await post({ groupId: 999999 }), 404)).toBe('Group with id 999999 not found');
    expect(await countOf(ctx, t, 'attendance_services')).toBe(0);

    const svc = await newService(ctx, t, g.id);
    expectError(await admin.put(`/api/attendance/services/${svc.id}`, { dayOfWeek: 7 }), 400);
    expectError(await admin.put(`/api/attendance/services/${svc.id}`, { isActive: 'no' }), 400);
    expect(expectError(await admin.put(`/api/attendance/services/${svc.id}`, { groupId: 999999 }), 404)).toBe('Group with id 999999 not found');
    expect((await admin.get(`/api/attendance/services/${svc.id}`)).json().group.id).toBe(g.id);
    expectError(await admin.put('/api/attendance/services/999999', { name: 'x' }), 404);
    expectError(await admin.delete('/api/attendance/services/999999'), 404);
    expectError(await admin.get('/api/attendance/services/abc'), 400);
    expectError(await admin.get('/api/attendance/services?isActive=maybe'), 400);
    expectError(await admin.get('/api/attendance/services?limit=0'), 400);
  });
});
