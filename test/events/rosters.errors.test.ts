import { describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant } from '../helpers/factories.js';
import { countRows, newContacts, newEvent } from '../helpers/events.factories.js';

const ctx = setupTestApp();

describe.each([
  { path: 'registration', table: 'registrations' },
  { path: 'attendance', table: 'attendance' },
] as const)('$path errors', ({ path, table }) => {
  it('contactIds must be 1–1,000 unique positive integers', async () => {
    const t = await newTenant(ctx);
    const e = await newEvent(ctx, t);
    const [c] = await newContacts(ctx, t, 1);
    const post = (body: unknown) => api(ctx.app, t.admin.token).post(`/api/events/${e.id}/${path}`, body as object);
    expect(expectError(await post({}), 400)).toMatch(/body\/contactIds is required/);
    expect(expectError(await post({ contactIds: [] }), 400)).toMatch(/body\/contactIds/);
    expect(expectError(await post({ contactIds: [c, c] }), 400)).toMatch(/body\/contactIds.*duplicate/);
    expect(expectError(await post({ contactIds: Array.from({ length: 1001 }, (_, i) => i + 1) }), 400)).toMatch(/body\/contactIds/);
    for (const bad of ['abc', 1.5, -1, 0, '99999999999999999999', null, { id: 1 }]) {
      expect(expectError(await post({ contactIds: [c, bad] }), 400)).toMatch(/body\/contactIds/);
    }
    expect(expectError(await post({ contactIds: 'all' }), 400)).toMatch(/body\/contactIds/);
    expect(await countRows(ctx, t, table, e.id)).toBe(0);
  });

  it('unknown contacts are 404 naming them, and nothing is written', async () => {
    const t = await newTenant(ctx);
    const e = await newEvent(ctx, t);
    const ids = await newContacts(ctx, t, 2);
    const admin = api(ctx.app, t.admin.token);
    expect(expectError(await admin.post(`/api/events/${e.id}/${path}`, { contactIds: [ids[0], 999999, ids[1], 999998] }), 404)).toBe(
      'Contacts with id 999999, 999998 not found',
    );
    expect(expectError(await admin.post(`/api/events/${e.id}/${path}`, { contactIds: [999999] }), 404)).toBe('Contact with id 999999 not found');
    expect(await countRows(ctx, t, table, e.id)).toBe(0);
  });

  it('bad and unknown ids in the path', async () => {
    const t = await newTenant(ctx);
    const e = await newEvent(ctx, t);
    const [c] = await newContacts(ctx, t, 1);
    const admin = api(ctx.app, t.admin.token);
    for (const bad of ['abc', '1.5', '-1', '0', '99999999999999999999']) {
      expect(expectError(await admin.get(`/api/events/${bad}/${path}`), 400)).toMatch(/params\/id/);
      expect(expectError(await admin.post(`/api/events/${bad}/${path}`, { contactIds: [c] }), 400)).toMatch(/params\/id/);
      expect(expectError(await admin.delete(`/api/events/${e.id}/${path}/${bad}`), 400)).toMatch(/params\//);
    }
    expect(expectError(await admin.post(`/api/events/999999/${path}`, { contactIds: [c] }), 404)).toBe('Event with id 999999 not found');
    expect(expectError(await admin.get(`/api/events/999999/${path}`), 404)).toBe('Event with id 999999 not found');
    expect(expectError(await admin.delete(`/api/events/${e.id}/${path}/999999`), 404)).toMatch(/with id 999999 not found/);
    expect(expectError(await admin.get(`/api/events/${e.id}/${path}?limit=0`), 400)).toMatch(/querystring\/limit/);
  });
});
