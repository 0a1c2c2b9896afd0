import { describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant } from '../helpers/factories.js';
import { countRows, newContacts, newEvent } from '../helpers/events.factories.js';

const ctx = setupTestApp();

describe('activities errors', () => {
  it('validates activityType, contactIds and notes', async () => {
    const t = await newTenant(ctx);
    const e = await newEvent(ctx, t);
    const [c] = await newContacts(ctx, t, 1);
    const post = (body: unknown) => api(ctx.app, t.admin.token).post(`/api/events/${e.id}/activities`, body as object);
    expect(expectError(await post({ contactIds: [c] }), 400)).toMatch(/body\/activityType is required/);
    expect(expectError(await post({ activityType: 'Miracle', contactIds: [c] }), 400)).toMatch(/body\/activityType must be one of: Salvation/);
    expect(expectError(await post({ activityType: 'salvation', contactIds: [c] }), 400)).toMatch(/body\/activityType/);
    expect(expectError(await post({ activityType: 'Other' }), 400)).toMatch(/body\/contactIds is required/);
    expect(expectError(await post({ activityType: 'Other', contactIds: [] }), 400)).toMatch(/body\/contactIds/);
    expect(expectError(await post({ activityType: 'Other', contactIds: [c, c] }), 400)).toMatch(/body\/contactIds/);
    expect(expectError(await post({ activityType: 'Other', contactIds: ['abc'] }), 400)).toMatch(/body\/contactIds/);
    expect(expectError(await post({ activityType: 'Other', contactIds: [c], notes: 'x'.repeat(5001) }), 400)).toMatch(/body\/notes/);
    expect(await countRows(ctx, t, 'activities', e.id)).toBe(0);
  });

  it('unknown contacts are 404 naming them, nothing written; unknown event 404', async () => {
    const t = await newTenant(ctx);
    const e = await newEvent(ctx, t);
    const [c] = await newContacts(ctx, t, 1);
    const admin = api(ctx.app, t.admin.token);
    expect(expectError(await admin.post(`/api/events/${e.id}/activities`, { activityType: 'Healing', contactIds: [c, 999999] }), 404)).toBe('Contact with id 999999 not found');
    expect(await countRows(ctx, t, 'activities', e.id)).toBe(0);
    expect(expectError(await admin.post('/api/events/999999/activities', { activityType: 'Healing', contactIds: [c] }), 404)).toBe('Event with id 999999 not found');
    expect(expectError(await admin.get('/api/events/abc/activities'), 400)).toMatch(/params\/id/);
    expect(expectError(await admin.get('/api/events/999999/activities'), 404)).toBe('Event with id 999999 not found');
  });
});
