import { describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { countOf, newSession } from '../helpers/attendance.factories.js';
import { newContacts } from '../helpers/events.factories.js';
import { newTenant } from '../helpers/factories.js';
import { newGroup } from '../helpers/groups.factories.js';

const ctx = setupTestApp();

describe('check-in: bad input', () => {
  it('validates the family, the session, the room and the code; nothing written on an error', async () => {
    const t = await newTenant(ctx);
    const g = await newGroup(ctx, t, { name: 'Church', category: 'Church' });
    const s = await newSession(ctx, t, { groupId: g.id }, '2026-06-07');
    const kids = await newContacts(ctx, t, 21, 'Kid');
    const admin = api(ctx.app, t.admin.token);
    const post = (body: Record<string, unknown>) => admin.post('/api/attendance/checkins', { sessionId: s.id, contactIds: [kids[0]], ...body });
    expectError(await post({ contactIds: [] }), 400);
    expectError(await post({ contactIds: kids }), 400);
    expectError(await post({ contactIds: [kids[0], kids[0]] }), 400);
    expectError(await post({ sessionId: 'x' }), 400);
    expect(expectError(await post({ sessionId: 999999 }), 404)).toBe('Session with id 999999 not found');
    expect(expectError(await post({ contactIds: [kids[0], 999999] }), 404)).toBe('Contact with id 999999 not found');
    expect(expectError(await post({ roomGroupId: 999999 }), 404)).toBe('Group with id 999999 not found');
    expect(await countOf(ctx, t, 'attendance_checkins')).toBe(0);
    expect(await countOf(ctx, t, 'attendance_checkin_codes')).toBe(0);
    expect(await countOf(ctx, t, 'attendance_records')).toBe(0);

    expect((await post({ contactIds: [kids[0], kids[1]] })).statusCode).toBe(201);
    expect(expectError(await post({ contactIds: [kids[1], kids[2]] }), 409)).toContain(`${kids[1]}`);
    expect(await countOf(ctx, t, 'attendance_checkins')).toBe(2);

    expect(expectError(await admin.post('/api/attendance/checkins/checkout', { sessionId: s.id, securityCode: 'ZZZZ' }), 404)).toBe('No open check-in with security code ZZZZ in this session');
    expectError(await admin.post('/api/attendance/checkins/checkout', { sessionId: s.id }), 400);
    expectError(await admin.post('/api/attendance/checkins/checkout', { sessionId: 999999, securityCode: 'AAAA' }), 404);
    expectError(await admin.get('/api/attendance/checkins/999999/label'), 404);
    expectError(await admin.get('/api/attendance/checkins/abc/label'), 400);
  });
});
