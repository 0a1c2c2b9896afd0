import { describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newService, newSession } from '../helpers/attendance.factories.js';
import { newPerson } from '../helpers/contacts.factories.js';
import { newTenant, newUser } from '../helpers/factories.js';
import { pdfText } from '../helpers/finance.factories.js';
import { newGroup } from '../helpers/groups.factories.js';

const ctx = setupTestApp();
const today = () => new Date().toISOString().slice(0, 10);

/** A tenant (UTC) with a public Sunday service, today's session, a kids' room and a kiosk holding the seeded Check-in role. */
async function church() {
  const t = await newTenant(ctx);
  const main = await newGroup(ctx, t, { name: 'Church', category: 'Church' });
  const room = await newGroup(ctx, t, { name: 'Toddlers', parent: main });
  const service = await newService(ctx, t, main.id, { name: 'Sunday Worship', startTime: '09:30' });
  const session = await newSession(ctx, t, { serviceId: service.id }, today());
  const kiosk = await newUser(ctx, t, 'Check-in');
  return { t, main, room, service, session, kiosk: api(ctx.app, kiosk.token), admin: api(ctx.app, t.admin.token) };
}

const NOTE = 'Peanut allergy: EpiPen in bag. Pick-up by mother only';

describe('check-in note', () => {
  it('is written with contacts:write (at most 200 characters), read on the contact, cleared with null', async () => {
    const { t, admin } = await church();
    const kid = await newPerson(ctx, t, 'Amani', 'Okello', { person: { firstName: 'Amani', lastName: 'Okello', checkinNote: NOTE } });
    expect(kid.person.checkinNote).toBe(NOTE);
    expect((await admin.get(`/api/crm/contacts/${kid.id}`)).json().person.checkinNote).toBe(NOTE);
    expect(expectError(await admin.put(`/api/crm/contacts/${kid.id}`, { person: { checkinNote: 'x'.repeat(201) } }), 400)).toMatch(/checkinNote/);
    expectError(await admin.post('/api/crm/contacts', { category: 'Person', person: { firstName: 'A', lastName: 'B', checkinNote: 'x'.repeat(201) } }), 400);
    expectError(await admin.put(`/api/crm/contacts/${kid.id}`, { person: { checkinNote: 7 } }), 400);
    expect((await admin.get(`/api/crm/contacts/${kid.id}`)).json().person.checkinNote).toBe(NOTE);
    const max = 'y'.repeat(200);
    expect((await admin.put(`/api/crm/contacts/${kid.id}`, { person: { checkinNote: max } })).json().person.checkinNote).toBe(max);
    expect((await admin.put(`/api/crm/contacts/${kid.id}`, { person: { checkinNote: null } })).json().person.checkinNote).toBeNull();
    // Without contacts:write, no write; a kiosk reads no contact at all.
    const reader = api(ctx.app, (await newUser(ctx, t, ['contacts:read'])).token);
    expectError(await reader.put(`/api/crm/contacts/${kid.id}`, { person: { checkinNote: 'x' } }), 403);
    const kiosk = api(ctx.app, (await newUser(ctx, t, 'Check-in')).token);
    expectError(await kiosk.get(`/api/crm/contacts/${kid.id}`), 403);
    expectError(await kiosk.get('/api/crm/contacts'), 403);
  });

  it('reaches the kiosk only on the label of the person it checks in, never in the lookup', async () => {
    const { t, session, kiosk } = await church();
    const kid = (await newPerson(ctx, t, 'Amani', 'Okello', { person: { firstName: 'Amani', lastName: 'Okello', checkinNote: NOTE } })).id as number;
    const sib = (await newPerson(ctx, t, 'Baraka', 'Okello')).id as number;
    const lookup = await kiosk.get('/api/attendance/checkins/lookup?q=okello');
    expect(lookup.statusCode, lookup.body).toBe(200);
    expect(lookup.json().data.flatMap((e: { people: { id: number }[] }) => e.people.map((p) => p.id)).sort()).toEqual([kid, sib].sort());
    expect(lookup.body).not.toContain('Peanut');
    expect(lookup.body).not.toContain('checkinNote');

    const { checkIns } = (await kiosk.post('/api/attendance/checkins', { sessionId: session.id, contactIds: [kid, sib] })).json();
    expect((await kiosk.get(`/api/attendance/checkins/${checkIns[0].id}/label`)).json().checkinNote).toBe(NOTE);
    expect((await kiosk.get(`/api/attendance/checkins/${checkIns[1].id}/label`)).json().checkinNote).toBeNull();
  });
});

describe('labels PDF', () => {
  it('one 4×2 in page per child (name, room, session, code, note) and one parent stub per code', async () => {
    const { t, room, session, kiosk } = await church();
    const kid = (await newPerson(ctx, t, 'Amani', 'Okello', { person: { firstName: 'Amani', lastName: 'Okello', checkinNote: NOTE } })).id as number;
    const sib = (await newPerson(ctx, t, 'Baraka', 'Okello')).id as number;
    const { securityCode, checkIns } = (await kiosk.post('/api/attendance/checkins', { sessionId: session.id, contactIds: [kid, sib], roomGroupId: room.id })).json();
    const res = await kiosk.get(`/api/attendance/checkins/labels?ids=${checkIns[0].id},${checkIns[1].id}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    const pdf = res.rawPayload;
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    const raw = pdf.toString('latin1');
    expect(raw.match(/\/Type \/Page\b/g)).toHaveLength(3);
    expect(raw).toContain('/MediaBox [0 0 288 144]');
    const text = pdfText(pdf);
    for (const s of ['Amani', 'Baraka', 'Okello', securityCode, `Toddlers · Sunday Worship · ${today()}`, `NOTE: ${NOTE.slice(0, 20)}`, 'Parent pick-up', 'Amani Okello, Baraka Okello']) {
      expect(text).toContain(s);
    }
    // The note is printed once: on Amani's label, not on Baraka's nor on the stub.
    expect(text.split('NOTE:')).toHaveLength(2);
  });

  it('answers 400 on bad ids and 404 for a check-in a kiosk may not read (closed, unknown)', async () => {
    const { t, session, kiosk, admin } = await church();
    const kid = (await newPerson(ctx, t, 'Cid', 'Otieno')).id as number;
    const { securityCode, checkIns } = (await kiosk.post('/api/attendance/checkins', { sessionId: session.id, contactIds: [kid] })).json();
    for (const ids of ['', 'a', '1,,2', '0', '-1', Array.from({ length: 21 }, (_, i) => i + 1).join(',')]) {
      expectError(await kiosk.get(`/api/attendance/checkins/labels?ids=${encodeURIComponent(ids)}`), 400);
    }
    expectError(await kiosk.get('/api/attendance/checkins/labels'), 400);
    const unknown = checkIns[0].id + 1_000_000;
    expect(expectError(await kiosk.get(`/api/attendance/checkins/labels?ids=${checkIns[0].id},${unknown}`), 404)).toBe(`Check-in with id ${unknown} not found`);
    expect((await kiosk.post('/api/attendance/checkins/checkout', { sessionId: session.id, securityCode })).statusCode).toBe(200);
    expectError(await kiosk.get(`/api/attendance/checkins/labels?ids=${checkIns[0].id}`), 404);
    // attendance:read reprints a closed one.
    expect((await admin.get(`/api/attendance/checkins/labels?ids=${checkIns[0].id}`)).headers['content-type']).toBe('application/pdf');
    const nobody = api(ctx.app, (await newUser(ctx, t, ['contacts:read'])).token);
    expectError(await nobody.get(`/api/attendance/checkins/labels?ids=${checkIns[0].id}`), 403);
  });
});

describe('check-out answers', () => {
  it('done, unknown code (404), already checked out (409 with the time); both refusals count toward the throttle', async () => {
    const { t, session, kiosk } = await church();
    const kid = (await newPerson(ctx, t, 'Dina', 'Achieng')).id as number;
    const { securityCode } = (await kiosk.post('/api/attendance/checkins', { sessionId: session.id, contactIds: [kid] })).json();
    const unknown = ['AAAA', 'CCCC'].find((c) => c !== securityCode)!;
    const checkout = (code: string) => kiosk.post('/api/attendance/checkins/checkout', { sessionId: session.id, securityCode: code });
    expect(expectError(await checkout(unknown), 404)).toBe(`No open check-in with security code ${unknown} in this session`);
    expect(expectError(await checkout(unknown.toLowerCase()), 404)).toBe(`No open check-in with security code ${unknown} in this session`);
    const done = await checkout(` ${securityCode.toLowerCase()} `);
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json().data).toHaveLength(1);
    const at = new Date(done.json().data[0].checkedOutAt).toISOString().slice(11, 16);
    expect(expectError(await checkout(securityCode), 409)).toBe(`Security code ${securityCode} was already checked out at ${at}`);
    // 3 refusals so far; 17 more reach the limit of 20.
    for (let i = 0; i < 17; i++) expectError(await checkout(securityCode), 409);
    expectError(await checkout(unknown), 429);
  });
});

describe("today's sessions for a kiosk", () => {
  it('lists the visible sessions dated today, not other days, by start time', async () => {
    const { t, main, room, service, session, kiosk } = await church();
    const early = await newService(ctx, t, main.id, { name: 'Early Service', startTime: '07:00' });
    const earlySession = await newSession(ctx, t, { serviceId: early.id }, today());
    await newSession(ctx, t, { serviceId: service.id }, '2026-01-04');
    const secret = await newGroup(ctx, t, { name: 'Recovery', parent: main, privacy: 'Private' });
    await newSession(ctx, t, { groupId: secret.id }, today());
    const nursery = await newGroup(ctx, t, { name: 'Nursery', parent: main });
    await newGroup(ctx, t, { name: 'Hidden Room', parent: main, privacy: 'Private' });
    await newGroup(ctx, t, { name: 'Grandchild', parent: nursery });
    const rooms = [{ id: nursery.id, name: 'Nursery' }, { id: room.id, name: 'Toddlers' }];
    const res = await kiosk.get('/api/attendance/checkins/sessions');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual([
      { id: earlySession.id, date: today(), name: 'Early Service', startTime: '07:00', rooms },
      { id: session.id, date: today(), name: 'Sunday Worship', startTime: '09:30', rooms },
    ]);
    const other = await newTenant(ctx);
    expect((await api(ctx.app, (await newUser(ctx, other, 'Check-in')).token).get('/api/attendance/checkins/sessions')).json().data).toEqual([]);
    expectError(await api(ctx.app, (await newUser(ctx, t, ['contacts:read'])).token).get('/api/attendance/checkins/sessions'), 403);
  });
});

describe('one family, several rooms', () => {
  it('checks children into their own rooms under one code; a bad room is 404 and a room for someone else 400, nothing written', async () => {
    const { t, main, room, session, kiosk } = await church();
    const nursery = await newGroup(ctx, t, { name: 'Nursery', parent: main });
    const secret = await newGroup(ctx, t, { name: 'Hidden Room', parent: main, privacy: 'Private' });
    const [a, b, c] = [(await newPerson(ctx, t, 'Ana', 'Kato')).id as number, (await newPerson(ctx, t, 'Ben', 'Kato')).id as number, (await newPerson(ctx, t, 'Cal', 'Kato')).id as number];
    const post = (body: Record<string, unknown>) => kiosk.post('/api/attendance/checkins', { sessionId: session.id, contactIds: [a, b, c], ...body });
    expect(expectError(await post({ rooms: [{ contactId: a, roomGroupId: secret.id }] }), 404)).toBe(`Group with id ${secret.id} not found`);
    expect(expectError(await post({ rooms: [{ contactId: 999999, roomGroupId: room.id }] }), 400)).toMatch(/rooms\/0\/contactId 999999 is not among contactIds/);
    expectError(await post({ rooms: [{ contactId: a, roomGroupId: room.id }, { contactId: a, roomGroupId: nursery.id }] }), 400);
    expectError(await post({ rooms: [{ contactId: a }] }), 400);
    expect((await kiosk.get('/api/attendance/checkins/lookup?q=kato')).json().data).toHaveLength(3);
    const res = await post({ roomGroupId: room.id, rooms: [{ contactId: a, roomGroupId: nursery.id }, { contactId: c, roomGroupId: null }] });
    expect(res.statusCode, res.body).toBe(201);
    const { securityCode, checkIns } = res.json();
    expect(checkIns.map((k: { room: unknown }) => k.room)).toEqual([{ id: nursery.id, name: 'Nursery' }, { id: room.id, name: 'Toddlers' }, null]);
    const text = pdfText((await kiosk.get(`/api/attendance/checkins/labels?ids=${checkIns.map((k: { id: number }) => k.id).join(',')}`)).rawPayload);
    expect(text).toContain(`Nursery · Sunday Worship · ${today()}`);
    expect(text).toContain(`Toddlers · Sunday Worship · ${today()}`);
    expect(text.split(securityCode).length - 1).toBe(4);
  });
});
