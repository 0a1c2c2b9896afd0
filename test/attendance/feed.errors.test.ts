import { describe, expect, it } from 'vitest';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant } from '../helpers/factories.js';

const ctx = setupTestApp();

describe('feed, summary and absentees: bad input', () => {
  it('malformed filters are 400 with the error shape', async () => {
    const t = await newTenant(ctx);
    const admin = api(ctx.app, t.admin.token);
    for (const url of [
      '/api/attendance/records?from=2026-03-02&to=2026-03-01',
      '/api/attendance/records?kind=Visitor',
      '/api/attendance/records?contactId=abc',
      '/api/attendance/records?from=2026-13-01',
      '/api/attendance/records?includeDescendants=sometimes',
      '/api/attendance/sessions?from=2026-03-02&to=2026-03-01',
      '/api/attendance/summary?interval=year',
      '/api/attendance/summary?from=2026-03-02&to=2026-03-01',
      '/api/attendance/summary?from=2000-01-01&to=2026-01-01',
      '/api/attendance/summary?serviceId=0',
      '/api/attendance/absentees?missed=0',
      '/api/attendance/absentees?missed=53',
      '/api/attendance/absentees?missed=abc',
      '/api/attendance/checkins?status=Gone',
    ]) {
      expect(expectError(await admin.get(url), 400), url).toBeTruthy();
    }
    expect(expectError(await admin.get('/api/attendance/summary?from=2026-03-02&to=2026-03-01'), 400)).toMatch(/from must not be after to/);
  });
});
