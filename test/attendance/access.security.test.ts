import { describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { countOf, newService, newSession, record } from '../helpers/attendance.factories.js';
import { newContacts, newEvent } from '../helpers/events.factories.js';
import { newTenant, newUser } from '../helpers/factories.js';
import { newGroup } from '../helpers/groups.factories.js';

const ctx = setupTestApp();

describe('attendance access', () => {
  it('401 without a token, 403 without the permission', async () => {
    const t = await newTenant(ctx);
    const anon = api(ctx.app);
    for (const [method, url] of [
      ['get', '/api/attendance/services'], ['post', '/api/attendance/sessions'], ['get', '/api/attendance/records'], ['get', '/api/attendance/summary'],
      ['get', '/api/attendance/absentees'], ['post', '/api/attendance/checkins'], ['post', '/api/attendance/checkins/checkout'], ['get', '/api/attendance/checkins/1/label'],
    ] as const) {
      expectError(await (method === 'get' ? anon.get(url) : anon.post(url, {})), 401);
    }
    const reader = api(ctx.app, (await newUser(ctx, t, ['attendance:read'])).token);
    const g = await newGroup(ctx, t, { name: 'Church', category: 'Church' });
    expectError(await reader.post('/api/attendance/services', { name: 'X', groupId: g.id, dayOfWeek: 0, startTime: '10:00' }), 403);
    expectError(await reader.post('/api/attendance/sessions', { groupId: g.id, date: '2026-01-04' }), 403);
    expectError(await reader.post('/api/attendance/checkins', { sessionId: 1, contactIds: [1] }), 403);
    const writerOnly = api(ctx.app, (await newUser(ctx, t, ['attendance:write', 'hierarchy:all'])).token);
    expectError(await writerOnly.get('/api/attendance/sessions'), 403);
    expect((await writerOnly.post('/api/attendance/sessions', { groupId: g.id, date: '2026-01-04' })).statusCode).toBe(201);
  });

  it("another tenant's ids are 404 everywhere and empty as filters; nothing is written", async () => {
    const t1 = await newTenant(ctx);
    const t2 = await newTenant(ctx);
    const g2 = await newGroup(ctx, t2, { name: 'Theirs' });
    const svc2 = await newService(ctx, t2, g2.id);
    const s2 = await newSession(ctx, t2, { serviceId: svc2.id }, '2026-02-01');
    const [c2] = await newContacts(ctx, t2, 1);
    await record(ctx, t2, s2.id, [c2]);
    const e2 = await newEvent(ctx, t2, { groupId: g2.id });
    const k2 = (await api(ctx.app, t2.admin.token).post('/api/attendance/checkins', { sessionId: s2.id, contactIds: [c2] })).json();
    const g1 = await newGroup(ctx, t1, { name: 'Ours' });
    const s1 = await newSession(ctx, t1, { groupId: g1.id }, '2026-02-01');
    const [c1] = await newContacts(ctx, t1, 1);
    const me = api(ctx.app, t1.admin.token);

    expectError(await me.get(`/api/attendance/services/${svc2.id}`), 404);
    expectError(await me.put(`/api/attendance/services/${svc2.id}`, { isActive: false }), 404);
    expectError(await me.delete(`/api/attendance/services/${svc2.id}`), 404);
    expectError(await me.post('/api/attendance/services', { name: 'X', groupId: g2.id, dayOfWeek: 0, startTime: '10:00' }), 404);
    expectError(await me.get(`/api/attendance/sessions/${s2.id}`), 404);
    expectError(await me.put(`/api/attendance/sessions/${s2.id}`, { notes: 'x' }), 404);
    expectError(await me.delete(`/api/attendance/sessions/${s2.id}`), 404);
    expectError(await me.post('/api/attendance/sessions', { serviceId: svc2.id, date: '2026-02-08' }), 404);
    expectError(await me.post('/api/attendance/sessions', { groupId: g2.id, date: '2026-02-08' }), 404);
    expectError(await me.post('/api/attendance/sessions', { eventId: e2.id, date: e2.startDate }), 404);
    expectError(await me.post(`/api/attendance/sessions/${s2.id}/records`, { contactIds: [c1] }), 404);
    expect(expectError(await me.post(`/api/attendance/sessions/${s1.id}/records`, { contactIds: [c1, c2] }), 404)).toBe(`Contact with id ${c2} not found`);
    expectError(await me.delete(`/api/attendance/sessions/${s2.id}/records/${c2}`), 404);
    expectError(await me.post(`/api/attendance/sessions/${s2.id}/guests`, { firstName: 'A', lastName: 'B' }), 404);
    expectError(await me.put(`/api/attendance/sessions/${s2.id}/headcounts`, { counts: [] }), 404);
    expectError(await me.post('/api/attendance/checkins', { sessionId: s2.id, contactIds: [c1] }), 404);
    expectError(await me.post('/api/attendance/checkins', { sessionId: s1.id, contactIds: [c2] }), 404);
    expectError(await me.post('/api/attendance/checkins', { sessionId: s1.id, contactIds: [c1], roomGroupId: g2.id }), 404);
    expectError(await me.post('/api/attendance/checkins/checkout', { sessionId: s2.id, securityCode: k2.securityCode }), 404);
    expectError(await me.get(`/api/attendance/checkins/${k2.checkIns[0].id}/label`), 404);
    for (const q of [`contactId=${c2}`, `groupId=${g2.id}`, `serviceId=${svc2.id}`, `eventId=${e2.id}`]) {
      expect((await me.get(`/api/attendance/records?${q}`)).json(), q).toMatchObject({ data: [], total: 0 });
    }
    expect((await me.get(`/api/attendance/sessions?serviceId=${svc2.id}`)).json().total).toBe(0);
    expect((await me.get(`/api/attendance/checkins?sessionId=${s2.id}`)).json().total).toBe(0);
    expect((await me.get(`/api/attendance/summary?serviceId=${svc2.id}&from=2026-02-01&to=2026-02-07`)).json().totals.present).toBe(0);
    expect((await me.get(`/api/attendance/absentees?groupId=${g2.id}`)).json().total).toBe(0);
    expect(await countOf(ctx, t1, 'attendance_records')).toBe(0);
    expect(await countOf(ctx, t1, 'attendance_checkins')).toBe(0);
    expect(await countOf(ctx, t2, 'attendance_records')).toBe(1);
  });
});
