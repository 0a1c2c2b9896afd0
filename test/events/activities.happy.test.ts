import { describe, expect, it } from 'vitest';
import { api, setupTestApp } from '../helpers/app.js';
import { newTenant } from '../helpers/factories.js';
import { countRows, newContacts, newEvent } from '../helpers/events.factories.js';

const ctx = setupTestApp();

describe('activities', () => {
  it('records an activity for contacts and lists it', async () => {
    const t = await newTenant(ctx);
    const e = await newEvent(ctx, t);
    const ids = await newContacts(ctx, t, 2, 'Smith');
    const admin = api(ctx.app, t.admin.token);
    const res = await admin.post(`/api/events/${e.id}/activities`, { activityType: 'FirstTimeGuest', contactIds: ids, notes: 'Came with family' });
    expect(res.statusCode, res.body).toBe(201);
    const item = res.json();
    expect(item).toMatchObject({
      eventId: e.id, activityType: 'FirstTimeGuest', notes: 'Came with family', contactIds: ids,
      contacts: [{ id: ids[0], firstName: 'First0', lastName: 'Smith0' }, { id: ids[1], firstName: 'First1', lastName: 'Smith1' }],
    });
    expect(Object.keys(item).sort()).toEqual(['activityType', 'contactIds', 'contacts', 'createdAt', 'eventId', 'id', 'notes']);
    const list = await admin.get(`/api/events/${e.id}/activities`);
    expect(list.statusCode).toBe(200);
    expect(list.json()).toEqual({ data: [item], total: 1, page: 1, limit: 20 });
    expect(await countRows(ctx, t, 'activities', e.id)).toBe(1);
  });

  it('accepts every activity type, paginates by id', async () => {
    const t = await newTenant(ctx);
    const e = await newEvent(ctx, t);
    const [c] = await newContacts(ctx, t, 1);
    const admin = api(ctx.app, t.admin.token);
    const types = ['Salvation', 'Rededication', 'Baptism', 'Healing', 'Testimony', 'FirstTimeGuest', 'Other'];
    for (const activityType of types) expect((await admin.post(`/api/events/${e.id}/activities`, { activityType, contactIds: [c] })).statusCode).toBe(201);
    const page = await admin.get(`/api/events/${e.id}/activities?page=2&limit=3`);
    expect(page.json()).toMatchObject({ total: 7, page: 2, limit: 3 });
    expect(page.json().data.map((a: { activityType: string }) => a.activityType)).toEqual(types.slice(3, 6));
    expect(page.json().data.every((a: { contactIds: number[] }) => a.contactIds[0] === c)).toBe(true);
  });
});
