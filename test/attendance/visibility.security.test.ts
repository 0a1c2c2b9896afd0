import { beforeAll, describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newService, newSession, record } from '../helpers/attendance.factories.js';
import { newContacts } from '../helpers/events.factories.js';
import { newTenant, newUser, type TestTenant, type TestUser } from '../helpers/factories.js';
import { newActors, newTree } from '../helpers/groups.factories.js';

const ctx = setupTestApp();

/**
 * The visibility matrix (api-contract §4, modules-contract §1): admin, zone leader (Zone A),
 * fellowship leader (Fellowship A2, private), member and loner (the Member role: no attendance
 * permission), and a check-in volunteer (checkin:write, attendance:read, contacts:read).
 */
describe('attendance visibility matrix', () => {
  let t: TestTenant;
  let tree: Awaited<ReturnType<typeof newTree>>;
  let actors: Awaited<ReturnType<typeof newActors>> & { volunteer: TestUser };
  const s: Record<'church' | 'a1' | 'a2' | 'b1', number> = { church: 0, a1: 0, a2: 0, b1: 0 };
  let serviceB1 = 0;
  let kids: number[] = [];

  beforeAll(async () => {
    t = await newTenant(ctx);
    tree = await newTree(ctx, t);
    actors = { ...(await newActors(ctx, t, tree)), volunteer: await newUser(ctx, t, ['checkin:write', 'attendance:read', 'contacts:read']) };
    const people = await newContacts(ctx, t, 4);
    kids = await newContacts(ctx, t, 6, 'Kid');
    s.church = (await newSession(ctx, t, { serviceId: (await newService(ctx, t, tree.church.id)).id }, '2026-03-01')).id;
    s.a1 = (await newSession(ctx, t, { groupId: tree.fellowshipA1.id }, '2026-03-02')).id;
    s.a2 = (await newSession(ctx, t, { groupId: tree.fellowshipA2.id }, '2026-03-03')).id;
    serviceB1 = (await newService(ctx, t, tree.fellowshipB1.id, { name: 'B1 meeting' })).id;
    s.b1 = (await newSession(ctx, t, { serviceId: serviceB1 }, '2026-03-04')).id;
    await record(ctx, t, s.church, people);
    await record(ctx, t, s.a1, people.slice(0, 3));
    await record(ctx, t, s.a2, people.slice(0, 2));
    await record(ctx, t, s.b1, people.slice(0, 1));
  });

  const visibleSessions = async (u: TestUser) => (await api(ctx.app, u.token).get('/api/attendance/sessions')).json().data.map((x: { id: number }) => x.id).sort();

  it('reads: each actor sees the sessions, records and services of visible groups only', async () => {
    expect(await visibleSessions(actors.admin as TestUser)).toEqual([s.church, s.a1, s.a2, s.b1].sort());
    expect(await visibleSessions(actors.zoneLeader)).toEqual([s.church, s.a1, s.a2].sort());
    expect(await visibleSessions(actors.fellowshipLeader)).toEqual([s.church, s.a1, s.a2].sort());
    expect(await visibleSessions(actors.volunteer)).toEqual([s.church, s.a1].sort());
    for (const u of [actors.member, actors.loner]) expectError(await api(ctx.app, u.token).get('/api/attendance/sessions'), 403);

    const zone = api(ctx.app, actors.zoneLeader.token);
    expectError(await zone.get(`/api/attendance/sessions/${s.b1}`), 404);
    expectError(await zone.get(`/api/attendance/services/${serviceB1}`), 404);
    expect((await zone.get('/api/attendance/services')).json().data.map((x: { name: string }) => x.name)).toEqual(['Sunday Service']);
    expect((await zone.get('/api/attendance/records')).json().total).toBe(9);
    expect((await zone.get(`/api/attendance/records?groupId=${tree.zoneB.id}`)).json()).toMatchObject({ data: [], total: 0 });
    expectError(await api(ctx.app, actors.volunteer.token).get(`/api/attendance/sessions/${s.a2}`), 404);
    expect((await api(ctx.app, actors.volunteer.token).get('/api/attendance/records')).json().total).toBe(7);
  });

  it('summaries and absentees cover visible rows only: a zone leader sums the zone subtree', async () => {
    const summary = async (u: TestUser, q = '') => (await api(ctx.app, u.token).get(`/api/attendance/summary?from=2026-03-01&to=2026-03-07${q}`)).json().totals;
    expect(await summary(actors.admin as TestUser)).toMatchObject({ sessions: 4, present: 10 });
    expect(await summary(actors.admin as TestUser, `&groupId=${tree.zoneA.id}`)).toMatchObject({ sessions: 2, present: 5 });
    expect(await summary(actors.zoneLeader, `&groupId=${tree.zoneA.id}`)).toMatchObject({ sessions: 2, present: 5 });
    expect(await summary(actors.zoneLeader)).toMatchObject({ sessions: 3, present: 9 });
    expect(await summary(actors.fellowshipLeader, `&groupId=${tree.fellowshipA2.id}`)).toMatchObject({ sessions: 1, present: 2 });
    expect(await summary(actors.fellowshipLeader, `&groupId=${tree.zoneB.id}`)).toMatchObject({ sessions: 0, present: 0 });
    expect(await summary(actors.volunteer)).toMatchObject({ sessions: 2, present: 7 });
    expectError(await api(ctx.app, actors.member.token).get('/api/attendance/summary'), 403);
    expect((await api(ctx.app, actors.zoneLeader.token).get(`/api/attendance/absentees?groupId=${tree.zoneB.id}`)).json()).toMatchObject({ data: [], total: 0 });
  });

  it('writes: inside a led subtree (or hierarchy:all); visible but not led 403, invisible 404', async () => {
    const post = (u: TestUser, id: number) => api(ctx.app, u.token).post(`/api/attendance/sessions/${id}/records`, { contactIds: [kids[0]] });
    const zone = actors.zoneLeader;
    expect((await post(zone, s.a1)).statusCode).toBe(201);
    expect((await post(zone, s.a2)).statusCode).toBe(201);
    expectError(await post(zone, s.church), 403);
    expectError(await post(zone, s.b1), 404);
    const fl = actors.fellowshipLeader;
    expectError(await post(fl, s.a1), 403);
    expect((await api(ctx.app, fl.token).put(`/api/attendance/sessions/${s.a2}/headcounts`, { counts: [{ type: 'Adults', count: 4 }] })).statusCode).toBe(200);
    expectError(await api(ctx.app, fl.token).put(`/api/attendance/sessions/${s.church}`, { notes: 'x' }), 403);
    expectError(await api(ctx.app, fl.token).post('/api/attendance/sessions', { groupId: tree.fellowshipA1.id, date: '2026-03-09' }), 403);
    expectError(await api(ctx.app, fl.token).post('/api/attendance/sessions', { groupId: tree.fellowshipB1.id, date: '2026-03-09' }), 404);
    expect((await api(ctx.app, fl.token).post('/api/attendance/sessions', { groupId: tree.fellowshipA2.id, date: '2026-03-09' })).statusCode).toBe(201);
    expectError(await api(ctx.app, zone.token).post('/api/attendance/services', { name: 'X', groupId: tree.church.id, dayOfWeek: 0, startTime: '10:00' }), 403);
    expect((await api(ctx.app, zone.token).post('/api/attendance/services', { name: 'Zone prayer', groupId: tree.zoneA.id, dayOfWeek: 2, startTime: '06:00' })).statusCode).toBe(201);
    expectError(await api(ctx.app, zone.token).put(`/api/attendance/services/${serviceB1}`, { isActive: false }), 404);
    for (const u of [actors.member, actors.loner, actors.volunteer]) expectError(await post(u, s.church), 403);
    expect((await post(actors.admin as TestUser, s.b1)).statusCode).toBe(201);
  });

  it('check-in needs only checkin:write and a visible session', async () => {
    const kiosk = api(ctx.app, actors.volunteer.token);
    const res = await kiosk.post('/api/attendance/checkins', { sessionId: s.church, contactIds: [kids[1], kids[2]] });
    expect(res.statusCode, res.body).toBe(201);
    expect((await kiosk.get(`/api/attendance/checkins/${res.json().checkIns[0].id}/label`)).statusCode).toBe(200);
    expect((await kiosk.post('/api/attendance/checkins/checkout', { sessionId: s.church, securityCode: res.json().securityCode })).statusCode).toBe(200);
    expectError(await kiosk.post('/api/attendance/checkins', { sessionId: s.b1, contactIds: [kids[3]] }), 404);
    expectError(await kiosk.post('/api/attendance/checkins', { sessionId: s.church, contactIds: [kids[3]], roomGroupId: tree.fellowshipB1.id }), 404);
    const hidden = (await api(ctx.app, t.admin.token).post('/api/attendance/checkins', { sessionId: s.b1, contactIds: [kids[4]] })).json();
    expectError(await kiosk.get(`/api/attendance/checkins/${hidden.checkIns[0].id}/label`), 404);
    expectError(await kiosk.post('/api/attendance/checkins/checkout', { sessionId: s.b1, securityCode: hidden.securityCode }), 404);
    expect((await kiosk.get(`/api/attendance/checkins?sessionId=${s.b1}`)).json()).toMatchObject({ data: [], total: 0 });
    // The Member role holds no checkin:write.
    expectError(await api(ctx.app, actors.member.token).post('/api/attendance/checkins', { sessionId: s.church, contactIds: [kids[5]] }), 403);
    expectError(await api(ctx.app, actors.member.token).get(`/api/attendance/checkins/${hidden.checkIns[0].id}/label`), 403);
    expectError(await kiosk.post('/api/attendance/sessions', { groupId: tree.church.id, date: '2026-03-20' }), 403);
  });
});
