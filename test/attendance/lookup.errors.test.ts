import { describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser } from '../helpers/factories.js';

const ctx = setupTestApp();

describe('check-in family lookup: bad input', () => {
  it('400 unless q is a last name of at least 2 letters or at least 4 phone digits; 401 without a token; 403 without checkin:write', async () => {
    const t = await newTenant(ctx);
    const kiosk = api(ctx.app, (await newUser(ctx, t, 'Check-in')).token);
    const message = 'q must be a last name of at least 2 letters or at least 4 digits of a phone number';
    for (const q of ['a', ' b ', '123', '12-3', '+ ( )', 'ab1', '07 12 ab', "'-", '--', '%%', '__']) {
      expect(expectError(await kiosk.get(`/api/attendance/checkins/lookup?q=${encodeURIComponent(q)}`), 400), q).toBe(message);
    }
    expectError(await kiosk.get('/api/attendance/checkins/lookup'), 400);
    expectError(await kiosk.get('/api/attendance/checkins/lookup?q='), 400);
    expectError(await kiosk.get(`/api/attendance/checkins/lookup?q=${'a'.repeat(101)}`), 400);
    expectError(await api(ctx.app).get('/api/attendance/checkins/lookup?q=mwangi'), 401);
    expectError(await api(ctx.app, (await newUser(ctx, t, 'Member')).token).get('/api/attendance/checkins/lookup?q=mwangi'), 403);
    expectError(await api(ctx.app, (await newUser(ctx, t, ['contacts:read', 'attendance:read'])).token).get('/api/attendance/checkins/lookup?q=mwangi'), 403);
    // Pattern characters are plain text: a name with % or _ matches nothing, never everyone.
    expect((await kiosk.get(`/api/attendance/checkins/lookup?q=${encodeURIComponent('ad%_')}`)).json()).toEqual({ data: [] });
  });
});
