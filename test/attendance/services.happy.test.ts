import { describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newService, newSession, record } from '../helpers/attendance.factories.js';
import { newContacts } from '../helpers/events.factories.js';
import { newTenant } from '../helpers/factories.js';
import { newGroup } from '../helpers/groups.factories.js';

const ctx = setupTestApp();

describe('services', () => {
  it('creates with defaults, reads, lists with filters, updates and deletes', async () => {
    const t = await newTenant(ctx);
    const church = await newGroup(ctx, t, { name: 'Church', category: 'Church' });
    const fellowship = await newGroup(ctx, t, { name: 'Fellowship', parent: church });
    const admin = api(ctx.app, t.admin.token);
    const res = await admin.post('/api/attendance/services', { name: 'Sunday Service', groupId: church.id, dayOfWeek: 0, startTime: '09:30', id: 99, tenantId: 5 });
    expect(res.statusCode, res.body).toBe(201);
    const svc = res.json();
    expect(svc).toEqual({ id: svc.id, name: 'Sunday Service', group: { id: church.id, name: 'Church' }, dayOfWeek: 0, startTime: '09:30', frequency: 'Weekly', headcountTypes: ['Adults', 'Children'], isActive: true, metaData: {} });
    const weekly = await newService(ctx, t, fellowship.id, { name: 'Bible Study', dayOfWeek: 3, startTime: '19:00', frequency: 'Biweekly', headcountTypes: ['People'], metaData: { room: 'B', nested: { a: [1] } } });
    expect(weekly).toMatchObject({ frequency: 'Biweekly', headcountTypes: ['People'], metaData: { room: 'B', nested: { a: [1] } } });

    expect((await admin.get(`/api/attendance/services/${svc.id}`)).json()).toEqual(svc);
    const names = async (q: string) => (await admin.get(`/api/attendance/services${q}`)).json().data.map((s: { name: string }) => s.name);
    expect(await names('')).toEqual(['Bible Study', 'Sunday Service']);
    expect(await names(`?groupId=${church.id}`)).toEqual(['Bible Study', 'Sunday Service']);
    expect(await names(`?groupId=${church.id}&includeDescendants=false`)).toEqual(['Sunday Service']);
    expect(await names('?groupId=999999')).toEqual([]);

    const put = await admin.put(`/api/attendance/services/${weekly.id}`, { isActive: false, startTime: '18:45' });
    expect(put.json()).toMatchObject({ isActive: false, startTime: '18:45', name: 'Bible Study' });
    expect(await names('?isActive=true')).toEqual(['Sunday Service']);
    expect(await names('?isActive=false')).toEqual(['Bible Study']);
    expect((await admin.get('/api/attendance/services?limit=1')).json()).toMatchObject({ total: 2, limit: 1 });

    expect((await admin.delete(`/api/attendance/services/${weekly.id}`)).statusCode).toBe(204);
    expectError(await admin.get(`/api/attendance/services/${weekly.id}`), 404);
  });

  it('a service with sessions is 409 on delete; moving it to another group takes its sessions and records along', async () => {
    const t = await newTenant(ctx);
    const a = await newGroup(ctx, t, { name: 'A' });
    const b = await newGroup(ctx, t, { name: 'B' });
    const svc = await newService(ctx, t, a.id);
    const s = await newSession(ctx, t, { serviceId: svc.id }, '2026-03-01');
    await record(ctx, t, s.id, await newContacts(ctx, t, 2));
    const admin = api(ctx.app, t.admin.token);
    expect(expectError(await admin.delete(`/api/attendance/services/${svc.id}`), 409)).toMatch(/deactivate/);
    expect((await admin.put(`/api/attendance/services/${svc.id}`, { groupId: b.id })).json().group).toEqual({ id: b.id, name: 'B' });
    expect((await admin.get(`/api/attendance/sessions/${s.id}`)).json().group).toEqual({ id: b.id, name: 'B' });
    expect((await admin.get(`/api/attendance/records?groupId=${b.id}`)).json().total).toBe(2);
    expect((await admin.get(`/api/attendance/records?groupId=${a.id}`)).json().total).toBe(0);
  });
});
