import { describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser } from '../helpers/factories.js';
import { newLeaderOf, newTree } from '../helpers/groups.factories.js';
import { countRows, newContacts, newEvent } from '../helpers/events.factories.js';

const ctx = setupTestApp();

describe.each([
  { path: 'registration', table: 'registrations' },
  { path: 'attendance', table: 'attendance' },
] as const)('$path security', ({ path, table }) => {
  it('a Fellowship leader manages records of their events only', async () => {
    const t = await newTenant(ctx);
    const tree = await newTree(ctx, t);
    const own = await newEvent(ctx, t, { groupId: tree.fellowshipA1.id });
    const above = await newEvent(ctx, t, { groupId: tree.zoneA.id });
    const hidden = await newEvent(ctx, t, { groupId: tree.fellowshipB1.id });
    const ids = await newContacts(ctx, t, 2);
    const admin = api(ctx.app, t.admin.token);
    const aboveRecord = (await admin.post(`/api/events/${above.id}/${path}`, { contactIds: ids })).json().created[0];
    const hiddenRecord = (await admin.post(`/api/events/${hidden.id}/${path}`, { contactIds: ids })).json().created[0];
    const leader = api(ctx.app, (await newLeaderOf(ctx, t, tree.fellowshipA1)).token);

    const mine = await leader.post(`/api/events/${own.id}/${path}`, { contactIds: ids });
    expect(mine.statusCode).toBe(201);
    expect((await leader.delete(`/api/events/${own.id}/${path}/${mine.json().created[0].id}`)).statusCode).toBe(204);
    expectError(await leader.delete(`/api/events/${above.id}/${path}/${aboveRecord.id}`), 403);
    expectError(await leader.delete(`/api/events/${hidden.id}/${path}/${hiddenRecord.id}`), 404);
    // A record of a foreign event addressed through the leader's own event is not found there.
    expect(expectError(await leader.delete(`/api/events/${own.id}/${path}/${aboveRecord.id}`), 404)).toMatch(`with id ${aboveRecord.id} not found`);
    expect((await leader.get(`/api/events/${above.id}/${path}`)).statusCode).toBe(200);
    expectError(await leader.get(`/api/events/${hidden.id}/${path}`), 404);
    expect(await countRows(ctx, t, table, above.id)).toBe(2);
    expect(await countRows(ctx, t, table, hidden.id)).toBe(2);
    expect(await countRows(ctx, t, table, own.id)).toBe(1);
  });

  it('events without a group are written only with hierarchy:all', async () => {
    const t = await newTenant(ctx);
    const e = await newEvent(ctx, t);
    const ids = await newContacts(ctx, t, 1);
    const leader = await newUser(ctx, t, 'Leader');
    expectError(await api(ctx.app, leader.token).post(`/api/events/${e.id}/${path}`, { contactIds: ids }), 403);
    const wide = await newUser(ctx, t, ['events:read', 'events:write', 'hierarchy:all']);
    expect((await api(ctx.app, wide.token).post(`/api/events/${e.id}/${path}`, { contactIds: ids })).statusCode).toBe(201);
  });
});
