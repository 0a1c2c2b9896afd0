import { describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser } from '../helpers/factories.js';
import { newGroup } from '../helpers/groups.factories.js';
import { countRows, eventCategoryId, newContacts, newEvent } from '../helpers/events.factories.js';

const ctx = setupTestApp();

/** Every route of the module with a body that would otherwise be valid. */
function routes(eventId: number, contactId: number, recordId = 1) {
  return [
    ['GET', '/api/events', undefined, 'events:read'],
    ['POST', '/api/events', { name: 'X', startDate: '2026-01-01' }, 'events:write'],
    ['GET', `/api/events/${eventId}`, undefined, 'events:read'],
    ['PUT', `/api/events/${eventId}`, { name: 'X' }, 'events:write'],
    ['DELETE', `/api/events/${eventId}`, undefined, 'events:write'],
    ['GET', '/api/events/categories', undefined, 'events:read'],
    ['POST', '/api/events/categories', { name: 'New category' }, 'events:write'],
    ['GET', `/api/events/${eventId}/registration`, undefined, 'events:read'],
    ['POST', `/api/events/${eventId}/registration`, { contactIds: [contactId] }, 'events:write'],
    ['DELETE', `/api/events/${eventId}/registration/${recordId}`, undefined, 'events:write'],
    ['GET', `/api/events/${eventId}/attendance`, undefined, 'events:read'],
    ['POST', `/api/events/${eventId}/attendance`, { contactIds: [contactId] }, 'events:write'],
    ['DELETE', `/api/events/${eventId}/attendance/${recordId}`, undefined, 'events:write'],
    ['GET', `/api/events/${eventId}/activities`, undefined, 'events:read'],
    ['POST', `/api/events/${eventId}/activities`, { activityType: 'Other', contactIds: [contactId] }, 'events:write'],
  ] as const;
}

function send(token: string | undefined, method: string, url: string, body?: unknown) {
  return ctx.app.inject({ method: method as 'GET', url, payload: body as object, headers: token ? { authorization: `Bearer ${token}` } : {} });
}

describe('events security', () => {
  it('every route is 401 without a token or with a bad one', async () => {
    for (const [method, url, body] of routes(1, 1)) {
      expectError(await send(undefined, method, url, body), 401);
      expectError(await send('not-a-jwt', method, url, body), 401);
    }
  });

  it('every route is 403 without its permission, nothing written', async () => {
    const t = await newTenant(ctx);
    const e = await newEvent(ctx, t);
    const [contactId] = await newContacts(ctx, t, 1);
    const nobody = await newUser(ctx, t, ['contacts:read', 'groups:read']);
    const reader = await newUser(ctx, t, ['events:read', 'hierarchy:all']);
    for (const [method, url, body, permission] of routes(e.id, contactId)) {
      expectError(await send(nobody.token, method, url, body), 403);
      if (permission === 'events:write') expectError(await send(reader.token, method, url, body), 403);
      else expect((await send(reader.token, method, url, body)).statusCode).toBe(200);
    }
    expect(await countRows(ctx, t, 'registrations', e.id)).toBe(0);
    expect((await api(ctx.app, t.admin.token).get(`/api/events/${e.id}`)).json().name).toBe('Sunday Service');
  });

  it("another tenant's event, group, category and contact ids are 404 in paths and bodies", async () => {
    const a = await newTenant(ctx);
    const b = await newTenant(ctx);
    const groupA = await newGroup(ctx, a, { name: 'A group' });
    const eventA = await newEvent(ctx, a, { groupId: groupA.id });
    const [contactA] = await newContacts(ctx, a, 1);
    const categoryA = await eventCategoryId(ctx, a);
    const adminA = api(ctx.app, a.admin.token);
    const regA = (await adminA.post(`/api/events/${eventA.id}/registration`, { contactIds: [contactA] })).json().created[0].id;
    const attA = (await adminA.post(`/api/events/${eventA.id}/attendance`, { contactIds: [contactA] })).json().created[0].id;

    const adminB = api(ctx.app, b.admin.token);
    const missing = `Event with id ${eventA.id} not found`;
    expect(expectError(await adminB.get(`/api/events/${eventA.id}`), 404)).toBe(missing);
    expect(expectError(await adminB.put(`/api/events/${eventA.id}`, { name: 'Hijack' }), 404)).toBe(missing);
    expect(expectError(await adminB.delete(`/api/events/${eventA.id}`), 404)).toBe(missing);
    for (const sub of ['registration', 'attendance', 'activities']) expect(expectError(await adminB.get(`/api/events/${eventA.id}/${sub}`), 404)).toBe(missing);
    expect(expectError(await adminB.post(`/api/events/${eventA.id}/registration`, { contactIds: [contactA] }), 404)).toBe(missing);
    expect(expectError(await adminB.delete(`/api/events/${eventA.id}/registration/${regA}`), 404)).toBe(missing);
    expect(expectError(await adminB.delete(`/api/events/${eventA.id}/attendance/${attA}`), 404)).toBe(missing);

    expect(expectError(await adminB.post('/api/events', { name: 'X', startDate: '2026-01-01', groupId: groupA.id }), 404)).toBe(`Group with id ${groupA.id} not found`);
    expect(expectError(await adminB.post('/api/events', { name: 'X', startDate: '2026-01-01', categoryId: categoryA }), 404)).toBe(`Event category with id ${categoryA} not found`);
    const eventB = await newEvent(ctx, b);
    expect(expectError(await adminB.put(`/api/events/${eventB.id}`, { groupId: groupA.id }), 404)).toBe(`Group with id ${groupA.id} not found`);
    expect(expectError(await adminB.put(`/api/events/${eventB.id}`, { categoryId: categoryA }), 404)).toBe(`Event category with id ${categoryA} not found`);
    for (const sub of ['registration', 'attendance']) {
      expect(expectError(await adminB.post(`/api/events/${eventB.id}/${sub}`, { contactIds: [contactA] }), 404)).toBe(`Contact with id ${contactA} not found`);
    }
    expect(expectError(await adminB.post(`/api/events/${eventB.id}/activities`, { activityType: 'Other', contactIds: [contactA] }), 404)).toBe(`Contact with id ${contactA} not found`);
    expect(expectError(await adminB.delete(`/api/events/${eventB.id}/registration/${regA}`), 404)).toBe(`Registration with id ${regA} not found`);
    expect(expectError(await adminB.delete(`/api/events/${eventB.id}/attendance/${attA}`), 404)).toBe(`Attendance record with id ${attA} not found`);

    // B's filters naming A's records list nothing; A's data is untouched.
    expect((await adminB.get(`/api/events?groupId=${groupA.id}`)).json()).toMatchObject({ data: [], total: 0 });
    expect((await adminB.get(`/api/events?categoryId=${categoryA}`)).json()).toMatchObject({ data: [], total: 0 });
    expect((await adminB.get('/api/events')).json().data.map((e: { id: number }) => e.id)).toEqual([eventB.id]);
    const stillA = (await adminA.get(`/api/events/${eventA.id}`)).json();
    expect(stillA).toMatchObject({ name: 'Sunday Service', registrations: [{ id: regA }], attendance: [{ id: attA }] });
    expect(await countRows(ctx, b, 'registrations', eventB.id)).toBe(0);
  });

  it('hostile strings are stored as text, not interpreted', async () => {
    const t = await newTenant(ctx);
    const admin = api(ctx.app, t.admin.token);
    const name = "'); DROP TABLE events; --";
    const e = await newEvent(ctx, t, { name, metaData: { '<script>': "' OR 1=1 --" } });
    expect((await admin.get(`/api/events/${e.id}`)).json()).toMatchObject({ name, metaData: { '<script>': "' OR 1=1 --" } });
    expect((await admin.get(`/api/events?q=${encodeURIComponent("' OR 1=1 --")}`)).json().total).toBe(0);
    expectError(await admin.post('/api/events', { name: 'a\u0000b', startDate: '2026-01-01' }), 400);
  });
});
