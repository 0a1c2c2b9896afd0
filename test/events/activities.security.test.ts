import { describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant } from '../helpers/factories.js';
import { newLeaderOf, newMemberOf, newTree } from '../helpers/groups.factories.js';
import { countRows, newContacts, newEvent } from '../helpers/events.factories.js';

const ctx = setupTestApp();

describe('activities security', () => {
  it('a Zone leader records activities in the zone; others are 403/404; members read only', async () => {
    const t = await newTenant(ctx);
    const tree = await newTree(ctx, t);
    const inZone = await newEvent(ctx, t, { groupId: tree.fellowshipA2.id });
    const outside = await newEvent(ctx, t, { groupId: tree.church.id });
    const hidden = await newEvent(ctx, t, { groupId: tree.clusterB.id });
    const ids = await newContacts(ctx, t, 1);
    const body = { activityType: 'Salvation', contactIds: ids };
    const zone = api(ctx.app, (await newLeaderOf(ctx, t, tree.zoneA)).token);
    expect((await zone.post(`/api/events/${inZone.id}/activities`, body)).statusCode).toBe(201);
    expectError(await zone.post(`/api/events/${outside.id}/activities`, body), 403);
    expectError(await zone.post(`/api/events/${hidden.id}/activities`, body), 404);
    expectError(await zone.get(`/api/events/${hidden.id}/activities`), 404);
    const member = api(ctx.app, (await newMemberOf(ctx, t, tree.fellowshipA1)).token);
    expect((await member.get(`/api/events/${outside.id}/activities`)).statusCode).toBe(200);
    expectError(await member.get(`/api/events/${inZone.id}/activities`), 404);
    expectError(await member.post(`/api/events/${outside.id}/activities`, body), 403);
    expect(await countRows(ctx, t, 'activities', outside.id)).toBe(0);
    expect(await countRows(ctx, t, 'activities', hidden.id)).toBe(0);
  });

  it("another tenant's event and contacts are 404", async () => {
    const a = await newTenant(ctx);
    const b = await newTenant(ctx);
    const eventA = await newEvent(ctx, a);
    const [contactA] = await newContacts(ctx, a, 1);
    const eventB = await newEvent(ctx, b);
    const adminB = api(ctx.app, b.admin.token);
    expectError(await adminB.get(`/api/events/${eventA.id}/activities`), 404);
    expectError(await adminB.post(`/api/events/${eventA.id}/activities`, { activityType: 'Other', contactIds: [contactA] }), 404);
    expect(expectError(await adminB.post(`/api/events/${eventB.id}/activities`, { activityType: 'Other', contactIds: [contactA] }), 404)).toBe(`Contact with id ${contactA} not found`);
    expectError(await api(ctx.app).get(`/api/events/${eventA.id}/activities`), 401);
  });
});
