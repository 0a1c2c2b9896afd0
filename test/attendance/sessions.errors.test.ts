import { describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { changesOf, countOf, newService, newSession, record } from '../helpers/attendance.factories.js';
import { newContacts, newEvent } from '../helpers/events.factories.js';
import { newTenant } from '../helpers/factories.js';
import { newGroup } from '../helpers/groups.factories.js';

const ctx = setupTestApp();

describe('sessions and records: bad input', () => {
  it('session create: exactly one source, a real date within the event, known references; duplicates 409 naming the existing session', async () => {
    const t = await newTenant(ctx);
    const g = await newGroup(ctx, t, { name: 'Fellowship' });
    const svc = await newService(ctx, t, g.id);
    const event = await newEvent(ctx, t, { groupId: g.id, startDate: '2026-05-01', endDate: '2026-05-03' });
    const admin = api(ctx.app, t.admin.token);
    const post = (body: Record<string, unknown>) => admin.post('/api/attendance/sessions', body);

    expect(expectError(await post({ date: '2026-05-01' }), 400)).toMatch(/exactly one of serviceId, groupId, eventId/);
    expectError(await post({ groupId: g.id, serviceId: svc.id, date: '2026-05-01' }), 400);
    expectError(await post({ groupId: g.id }), 400);
    expectError(await post({ groupId: g.id, date: '2026-02-30' }), 400);
    expectError(await post({ groupId: g.id, date: '2026-05-01', didNotMeet: 'maybe' }), 400);
    expect(expectError(await post({ eventId: event.id, date: '2026-05-04' }), 400)).toMatch(/outside event/);
    expectError(await post({ eventId: event.id, date: '2026-04-30' }), 400);
    expect(expectError(await post({ groupId: 999999, date: '2026-05-01' }), 404)).toBe('Group with id 999999 not found');
    expect(expectError(await post({ serviceId: 999999, date: '2026-05-01' }), 404)).toBe('Service with id 999999 not found');
    expect(expectError(await post({ eventId: 999999, date: '2026-05-01' }), 404)).toBe('Event with id 999999 not found');
    expect(await countOf(ctx, t, 'attendance_sessions')).toBe(0);

    const first = await newSession(ctx, t, { serviceId: svc.id }, '2026-05-03');
    expect(expectError(await post({ serviceId: svc.id, date: '2026-05-03' }), 409)).toContain(`Session ${first.id}`);
    // Another source on the same date is fine.
    expect((await post({ groupId: g.id, date: '2026-05-03' })).statusCode).toBe(201);
    expect(expectError(await post({ groupId: g.id, date: '2026-05-03' }), 409)).toMatch(/^Session \d+ already exists for group/);
    expect((await post({ eventId: event.id, date: '2026-05-03' })).statusCode).toBe(201);
    expect(await countOf(ctx, t, 'attendance_sessions')).toBe(3);
  });

  it('records: 1–1,000 unique ids, a known kind, all-or-nothing on unknown contacts (404 naming them, nothing written)', async () => {
    const t = await newTenant(ctx);
    const g = await newGroup(ctx, t, { name: 'Fellowship' });
    const s = await newSession(ctx, t, { groupId: g.id }, '2026-05-01');
    const [a] = await newContacts(ctx, t, 1);
    const admin = api(ctx.app, t.admin.token);
    const post = (body: object) => admin.post(`/api/attendance/sessions/${s.id}/records`, body);
    expectError(await post({ contactIds: [] }), 400);
    expectError(await post({ contactIds: [a, a] }), 400);
    expectError(await post({ contactIds: Array.from({ length: 1001 }, (_, i) => i + 1) }), 400);
    expectError(await post({ contactIds: ['x'] }), 400);
    expectError(await post({ contactIds: [a], kind: 'Visitor' }), 400);
    expectError(await post({}), 400);
    expect(expectError(await post({ contactIds: [a, 999998, 999999] }), 404)).toBe('Contacts with id 999998, 999999 not found');
    expect(expectError(await post({ contactIds: [999999] }), 404)).toBe('Contact with id 999999 not found');
    expect(await countOf(ctx, t, 'attendance_records')).toBe(0);
    expect(await countOf(ctx, t, 'contact_first_visits')).toBe(0);
    expect(await changesOf(ctx, t, 'attendance.recorded', 'attendance.first_visit')).toEqual([]);
    expect(expectError(await admin.post('/api/attendance/sessions/999999/records', { contactIds: [a] }), 404)).toBe('Session with id 999999 not found');
    expectError(await admin.post('/api/attendance/sessions/abc/records', { contactIds: [a] }), 400);
    expectError(await admin.delete(`/api/attendance/sessions/${s.id}/records/${a}`), 404);
    await record(ctx, t, s.id, [a]);
    expect((await admin.delete(`/api/attendance/sessions/${s.id}/records/${a}`)).statusCode).toBe(204);
  });

  it('guests and headcounts validate their bodies; unknown sessions are 404', async () => {
    const t = await newTenant(ctx);
    const g = await newGroup(ctx, t, { name: 'Fellowship' });
    const s = await newSession(ctx, t, { groupId: g.id }, '2026-05-01');
    const admin = api(ctx.app, t.admin.token);
    const guest = (body: object) => admin.post(`/api/attendance/sessions/${s.id}/guests`, body);
    expectError(await guest({ lastName: 'X' }), 400);
    expectError(await guest({ firstName: 'X', lastName: 'Y', email: 'not-an-email' }), 400);
    expectError(await guest({ firstName: 'X', lastName: 'Y', gender: 'Other' }), 400);
    expectError(await guest({ firstName: '', lastName: 'Y' }), 400);
    expectError(await admin.post('/api/attendance/sessions/999999/guests', { firstName: 'X', lastName: 'Y' }), 404);
    const heads = (body: object) => admin.put(`/api/attendance/sessions/${s.id}/headcounts`, body);
    expectError(await heads({ counts: [{ type: 'Adults', count: -1 }] }), 400);
    expectError(await heads({ counts: [{ type: 'Adults', count: 1.5 }] }), 400);
    expectError(await heads({ counts: [{ count: 1 }] }), 400);
    expect(expectError(await heads({ counts: [{ type: 'Adults', count: 1 }, { type: 'adults', count: 2 }] }), 400)).toMatch(/more than once/);
    expectError(await heads({}), 400);
    expectError(await admin.put('/api/attendance/sessions/999999/headcounts', { counts: [] }), 404);
    expect(await countOf(ctx, t, 'attendance_headcounts')).toBe(0);
    expect(await countOf(ctx, t, 'attendance_records')).toBe(0);
    expectError(await admin.put(`/api/attendance/sessions/${s.id}`, { didNotMeet: 'yes' }), 400);
    expectError(await admin.put('/api/attendance/sessions/999999', { notes: 'x' }), 404);
    expectError(await admin.delete('/api/attendance/sessions/999999'), 404);
    expectError(await admin.get('/api/attendance/sessions/0'), 400);
  });
});
