import { describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { countOf, newService, newSession } from '../helpers/attendance.factories.js';
import { newCompany, newPerson } from '../helpers/contacts.factories.js';
import { newTenant, newUser, type TestTenant } from '../helpers/factories.js';
import { addMembership, newGroup } from '../helpers/groups.factories.js';

const ctx = setupTestApp();
const today = () => new Date().toISOString().slice(0, 10);

/** A tenant (time zone UTC) with a public Sunday service, today's session and a kiosk holding the seeded Check-in role. */
async function church() {
  const t = await newTenant(ctx);
  const main = await newGroup(ctx, t, { name: 'Church', category: 'Church' });
  const service = await newService(ctx, t, main.id, { name: 'Sunday' });
  const session = await newSession(ctx, t, { serviceId: service.id }, today());
  const kiosk = await newUser(ctx, t, 'Check-in');
  return { t, main, session, kiosk: api(ctx.app, kiosk.token), admin: api(ctx.app, t.admin.token) };
}

const person = async (t: TestTenant, first: string, last: string, extra: Record<string, unknown> = {}) => (await newPerson(ctx, t, first, last, extra)).id as number;

describe("a kiosk token's reach (checkin:write alone)", () => {
  it('the seeded Check-in role holds checkin:write alone: no check-in list, sessions or contacts', async () => {
    const { t, kiosk } = await church();
    const role = (await api(ctx.app, t.admin.token).get('/api/roles')).json().data.find((r: { name: string }) => r.name === 'Check-in');
    expect(role.permissions).toEqual(['checkin:write']);
    expectError(await kiosk.get('/api/attendance/checkins'), 403);
    expectError(await kiosk.get('/api/attendance/sessions'), 403);
    expectError(await kiosk.get('/api/crm/contacts'), 403);
    expectError(await kiosk.get('/api/attendance/records'), 403);
  });

  it('cannot check in a contact out of reach: the same 404 as an unknown id, nothing written; the people it reaches check in', async () => {
    const { t, main, session, kiosk, admin } = await church();
    const secret = await newGroup(ctx, t, { name: 'Recovery', parent: main, privacy: 'Private' });
    const youth = await newGroup(ctx, t, { name: 'Youth', parent: main });
    const hiddenOnlyPrivate = await person(t, 'Quiet', 'Private');
    await addMembership(ctx, t, secret, hiddenOnlyPrivate);
    const alsoPublic = await person(t, 'Open', 'Private');
    await addMembership(ctx, t, secret, alsoPublic);
    await addMembership(ctx, t, youth, alsoPublic);
    const leftPrivate = await person(t, 'Former', 'Private');
    await addMembership(ctx, t, secret, leftPrivate, 'Member', false);
    const deceased = await person(t, 'Gone', 'Away', { status: 'Deceased' });
    const moved = await person(t, 'Moved', 'Away', { status: 'MovedAway' });
    const inactive = await person(t, 'Back', 'Again', { status: 'Inactive' });
    const company = (await newCompany(ctx, t, 'Acme Ltd')).id as number;
    const erased = await person(t, 'Ern', 'Erase');
    expect((await admin.post(`/api/crm/contacts/${erased}/erase`, { confirm: true })).statusCode).toBe(200);
    const other = await newTenant(ctx);
    const foreign = await person(other, 'Far', 'Away');
    const unknown = foreign + 1_000_000;

    const messageOf = async (id: number) => expectError(await kiosk.post('/api/attendance/checkins', { sessionId: session.id, contactIds: [id] }), 404);
    const unknownMessage = await messageOf(unknown);
    expect(unknownMessage).toBe(`Contact with id ${unknown} not found`);
    for (const id of [hiddenOnlyPrivate, deceased, moved, company, erased, foreign]) expect(await messageOf(id)).toBe(`Contact with id ${id} not found`);
    // Mixed with reachable people: all or nothing, the unreachable named as unknown ones are.
    expect(expectError(await kiosk.post('/api/attendance/checkins', { sessionId: session.id, contactIds: [alsoPublic, hiddenOnlyPrivate] }), 404)).toBe(`Contact with id ${hiddenOnlyPrivate} not found`);
    expect(await countOf(ctx, t, 'attendance_checkins')).toBe(0);
    expect(await countOf(ctx, t, 'attendance_records')).toBe(0);

    const ok = await kiosk.post('/api/attendance/checkins', { sessionId: session.id, contactIds: [alsoPublic, leftPrivate, inactive] });
    expect(ok.statusCode, ok.body).toBe(201);
    expect(ok.json().checkIns.map((k: { contact: { id: number } }) => k.contact.id)).toEqual([alsoPublic, leftPrivate, inactive]);
    // contacts:read reaches every contact of the tenant (it reads them all anyway).
    const reader = api(ctx.app, (await newUser(ctx, t, ['checkin:write', 'contacts:read'])).token);
    expect((await reader.post('/api/attendance/checkins', { sessionId: session.id, contactIds: [hiddenOnlyPrivate, deceased] })).statusCode).toBe(201);
  });

  it("checks in the lookup's people: a household's members together under one code", async () => {
    const { t, main, session, kiosk, admin } = await church();
    const secret = await newGroup(ctx, t, { name: 'Recovery', parent: main, privacy: 'Private' });
    const [mum, kid, hidden] = [await person(t, 'Wanjiku', 'Njoroge'), await person(t, 'Baraka', 'Njoroge'), await person(t, 'Quiet', 'Njoroge')];
    await addMembership(ctx, t, secret, hidden);
    const home = await admin.post('/api/crm/households', { members: [{ contactId: mum, role: 'Head' }, { contactId: kid, role: 'Child' }, { contactId: hidden, role: 'Other' }] });
    expect(home.statusCode, home.body).toBe(201);
    const found = (await kiosk.get('/api/attendance/checkins/lookup?q=njoroge')).json().data;
    expect(found).toHaveLength(1);
    const ids = found[0].people.map((p: { id: number }) => p.id);
    expect(ids).toEqual([mum, kid]);
    const res = await kiosk.post('/api/attendance/checkins', { sessionId: session.id, contactIds: ids });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().checkIns.map((k: { contact: { id: number } }) => k.contact.id)).toEqual(ids);
    expect(expectError(await kiosk.post('/api/attendance/checkins', { sessionId: session.id, contactIds: [hidden] }), 404)).toBe(`Contact with id ${hidden} not found`);
  });

  it("labels: a kiosk reprints only today's open check-ins; attendance:read reads any", async () => {
    const { t, main, session, kiosk, admin } = await church();
    const kids = [await person(t, 'Ana', 'Mwangi'), await person(t, 'Ben', 'Mwangi')];
    const { securityCode, checkIns } = (await kiosk.post('/api/attendance/checkins', { sessionId: session.id, contactIds: kids })).json();
    const label = await kiosk.get(`/api/attendance/checkins/${checkIns[0].id}/label`);
    expect(label.statusCode, label.body).toBe(200);
    expect(label.json()).toEqual({ firstName: 'Ana', lastName: 'Mwangi', securityCode, room: null, sessionDate: today(), serviceName: 'Sunday', checkinNote: null });

    const lastWeek = await newSession(ctx, t, { groupId: main.id }, '2026-01-04');
    const old = (await admin.post('/api/attendance/checkins', { sessionId: lastWeek.id, contactIds: [kids[0]] })).json();
    expect(expectError(await kiosk.get(`/api/attendance/checkins/${old.checkIns[0].id}/label`), 404)).toBe(`Check-in with id ${old.checkIns[0].id} not found`);
    expect((await admin.get(`/api/attendance/checkins/${old.checkIns[0].id}/label`)).statusCode).toBe(200);

    expect((await kiosk.post('/api/attendance/checkins/checkout', { sessionId: session.id, securityCode })).statusCode).toBe(200);
    expectError(await kiosk.get(`/api/attendance/checkins/${checkIns[1].id}/label`), 404);
    expect((await admin.get(`/api/attendance/checkins/${checkIns[1].id}/label`)).json().securityCode).toBe(securityCode);
    expectError(await kiosk.get(`/api/attendance/checkins/${checkIns[1].id + 1_000_000}/label`), 404);
  });

  it('guessing check-out codes is bounded: 20 failures in 15 minutes, then 429 for that user only', async () => {
    const { t, session, kiosk } = await church();
    const kid = await person(t, 'Cid', 'Otieno');
    const { securityCode } = (await kiosk.post('/api/attendance/checkins', { sessionId: session.id, contactIds: [kid] })).json();
    const wrong = ['AAAA', 'CCCC', 'DDDD', 'EEEE', 'FFFF', 'HHHH', 'JJJJ', 'KKKK', 'LLLL', 'MMMM', 'NNNN', 'PPPP', 'QQQQ', 'RRRR', 'TTTT', 'UUUU', 'VVVV', 'WWWW', 'XXXX', 'YYYY']
      .filter((c) => c !== securityCode).slice(0, 20);
    expect(wrong).toHaveLength(20);
    for (const code of wrong) expectError(await kiosk.post('/api/attendance/checkins/checkout', { sessionId: session.id, securityCode: code }), 404);
    expect(expectError(await kiosk.post('/api/attendance/checkins/checkout', { sessionId: session.id, securityCode }), 429)).toMatch(/^Too many attempts; retry in \d+ seconds$/);
    // Another account of the church is not held up; the code was not used by the refused try.
    const other = api(ctx.app, (await newUser(ctx, t, 'Check-in')).token);
    const out = await other.post('/api/attendance/checkins/checkout', { sessionId: session.id, securityCode });
    expect(out.statusCode, out.body).toBe(200);
    expect(out.json().data.map((k: { contact: { id: number } }) => k.contact.id)).toEqual([kid]);
  });
});
