import crypto from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { changesOf, newService, newSession } from '../helpers/attendance.factories.js';
import { newContacts } from '../helpers/events.factories.js';
import { newTenant, newUser } from '../helpers/factories.js';
import { newGroup } from '../helpers/groups.factories.js';

const ctx = setupTestApp();
const CODE = /^[ACDEFHJKLMNPQRTUVWXY3479]{4}$/;

describe('check-in', () => {
  afterEach(() => vi.restoreAllMocks());

  it('checks a family in under one code, records them present, lists, labels and checks them out', async () => {
    const t = await newTenant(ctx);
    const church = await newGroup(ctx, t, { name: 'Church', category: 'Church' });
    const room = await newGroup(ctx, t, { name: 'Kids Room 1', parent: church });
    const service = await newService(ctx, t, church.id, { name: 'Family Service' });
    const session = await newSession(ctx, t, { serviceId: service.id }, '2026-06-07');
    const family = await newContacts(ctx, t, 3, 'Kid');
    const kiosk = api(ctx.app, (await newUser(ctx, t, ['checkin:write', 'attendance:read', 'contacts:read'])).token);

    const res = await kiosk.post('/api/attendance/checkins', { sessionId: session.id, contactIds: family, roomGroupId: room.id });
    expect(res.statusCode, res.body).toBe(201);
    const { securityCode, checkIns } = res.json();
    expect(securityCode).toMatch(CODE);
    expect(checkIns).toHaveLength(3);
    expect(checkIns[0]).toMatchObject({ sessionId: session.id, contact: { id: family[0], firstName: 'First0', lastName: 'Kid0' }, room: { id: room.id, name: 'Kids Room 1' }, securityCode, status: 'CheckedIn', checkedOutAt: null });
    expect(new Date(checkIns[0].checkedInAt).toISOString()).toBe(checkIns[0].checkedInAt);

    const records = (await kiosk.get(`/api/attendance/records?serviceId=${service.id}`)).json();
    expect(records.total).toBe(3);
    expect(records.data[0]).toMatchObject({ kind: 'Regular', isFirstTime: true });
    expect(records.data[0].checkedInAt).toMatch(/Z$/);
    const created = await changesOf(ctx, t, 'checkin.created');
    expect(created.map((c) => c.data.contactId)).toEqual(family);
    expect(created[0].data).toMatchObject({ sessionId: session.id, groupId: church.id, roomGroupId: room.id, serviceId: service.id });
    expect(JSON.stringify(created)).not.toContain(securityCode);
    expect(await changesOf(ctx, t, 'attendance.recorded')).toHaveLength(3);

    const other = await kiosk.post('/api/attendance/checkins', { sessionId: session.id, contactIds: (await newContacts(ctx, t, 1, 'Solo')) });
    expect(other.json().securityCode).not.toBe(securityCode);
    expect(other.json().checkIns[0].room).toBeNull();

    expect((await kiosk.get(`/api/attendance/checkins?sessionId=${session.id}`)).json().total).toBe(4);
    expect((await kiosk.get(`/api/attendance/checkins?securityCode=${securityCode.toLowerCase()}`)).json().data.map((k: { id: number }) => k.id)).toEqual(checkIns.map((k: { id: number }) => k.id));
    const label = await kiosk.get(`/api/attendance/checkins/${checkIns[1].id}/label`);
    expect(label.json()).toEqual({ firstName: 'First1', lastName: 'Kid1', securityCode, room: 'Kids Room 1', sessionDate: '2026-06-07', serviceName: 'Family Service', checkinNote: null });
    // A reprint keeps the code.
    expect((await kiosk.get(`/api/attendance/checkins/${checkIns[1].id}/label`)).json().securityCode).toBe(securityCode);

    const out = await kiosk.post('/api/attendance/checkins/checkout', { sessionId: session.id, securityCode });
    expect(out.statusCode, out.body).toBe(200);
    expect(out.json().data.map((k: { status: string }) => k.status)).toEqual(['CheckedOut', 'CheckedOut', 'CheckedOut']);
    expect(out.json().data[0].checkedOutAt).toMatch(/Z$/);
    expect((await changesOf(ctx, t, 'checkin.checked_out')).map((c) => c.data.contactId)).toEqual(family);
    expect((await kiosk.get(`/api/attendance/checkins?sessionId=${session.id}&status=CheckedIn`)).json().total).toBe(1);
    expect((await kiosk.get(`/api/attendance/checkins?sessionId=${session.id}&status=CheckedOut`)).json().total).toBe(3);
    // A used code is 409 saying when; the family may check in again, and their records stay one each.
    expect(expectError(await kiosk.post('/api/attendance/checkins/checkout', { sessionId: session.id, securityCode }), 409)).toMatch(new RegExp(`^Security code ${securityCode} was already checked out at \\d\\d:\\d\\d$`));
    const back = await kiosk.post('/api/attendance/checkins', { sessionId: session.id, contactIds: [family[0]] });
    expect(back.statusCode).toBe(201);
    expect((await kiosk.get(`/api/attendance/records?serviceId=${service.id}`)).json().total).toBe(4);
    expect(await changesOf(ctx, t, 'attendance.recorded')).toHaveLength(4);
  });

  it('codes are unique among the session open check-ins: a taken code is drawn again, a closed one may return', async () => {
    const t = await newTenant(ctx);
    const g = await newGroup(ctx, t, { name: 'Church', category: 'Church' });
    const s1 = await newSession(ctx, t, { groupId: g.id }, '2026-06-07');
    const s2 = await newSession(ctx, t, { groupId: g.id }, '2026-06-14');
    const kids = await newContacts(ctx, t, 4, 'Kid');
    const admin = api(ctx.app, t.admin.token);
    const spy = vi.spyOn(crypto, 'randomInt') as unknown as { mockImplementation(fn: () => number): void };
    let draws: number[] = [];
    spy.mockImplementation(() => draws.shift() ?? 5);

    draws = [0, 0, 0, 0];
    expect((await admin.post('/api/attendance/checkins', { sessionId: s1.id, contactIds: [kids[0]] })).json().securityCode).toBe('AAAA');
    draws = [0, 0, 0, 0, 1, 1, 1, 1];
    expect((await admin.post('/api/attendance/checkins', { sessionId: s1.id, contactIds: [kids[1]] })).json().securityCode).toBe('CCCC');
    // Another session's open codes do not count.
    draws = [0, 0, 0, 0];
    expect((await admin.post('/api/attendance/checkins', { sessionId: s2.id, contactIds: [kids[2]] })).json().securityCode).toBe('AAAA');
    await admin.post('/api/attendance/checkins/checkout', { sessionId: s1.id, securityCode: 'AAAA' });
    draws = [0, 0, 0, 0];
    expect((await admin.post('/api/attendance/checkins', { sessionId: s1.id, contactIds: [kids[3]] })).json().securityCode).toBe('AAAA');
  });

  it('many families in one session all get distinct codes', async () => {
    const t = await newTenant(ctx);
    const g = await newGroup(ctx, t, { name: 'Church', category: 'Church' });
    const s = await newSession(ctx, t, { groupId: g.id }, '2026-06-07');
    const kids = await newContacts(ctx, t, 30, 'Kid');
    const admin = api(ctx.app, t.admin.token);
    const codes = await Promise.all(kids.map(async (id) => (await admin.post('/api/attendance/checkins', { sessionId: s.id, contactIds: [id] })).json().securityCode as string));
    expect(new Set(codes).size).toBe(30);
    codes.forEach((c) => expect(c).toMatch(CODE));
  });
  it('a contact already present keeps the one record, gains the check-in instant, and records no second attendance change', async () => {
    const t = await newTenant(ctx);
    const g = await newGroup(ctx, t, { name: 'Church', category: 'Church' });
    const s = await newSession(ctx, t, { groupId: g.id }, '2026-06-07');
    const family = await newContacts(ctx, t, 4, 'Kid');
    const admin = api(ctx.app, t.admin.token);
    expect((await admin.post(`/api/attendance/sessions/${s.id}/records`, { contactIds: [family[1]] })).statusCode).toBe(201);
    const res = await admin.post('/api/attendance/checkins', { sessionId: s.id, contactIds: family });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().checkIns.map((k: { contact: { id: number } }) => k.contact.id)).toEqual(family);
    const records = (await admin.get(`/api/attendance/records?groupId=${g.id}&limit=100`)).json();
    expect(records.total).toBe(4);
    expect(records.data.every((r: { checkedInAt: string | null }) => r.checkedInAt !== null)).toBe(true);
    expect((await changesOf(ctx, t, 'attendance.recorded')).map((c) => c.data.contactId).sort()).toEqual([...family].sort());
    expect((await changesOf(ctx, t, 'attendance.first_visit')).map((c) => c.data.contactId).sort()).toEqual([...family].sort());
    expect((await changesOf(ctx, t, 'checkin.created')).map((c) => c.data.contactId)).toEqual(family);
  });
});
