import { expect, it } from 'vitest';
import { seedDemoTenant } from '../../src/provisioning/demo-seed.js';
import { api, setupTestApp } from '../helpers/app.js';
import { tokenFor } from '../helpers/factories.js';

const ctx = setupTestApp();

it('the demo tenant has funds, a closed and an open batch, 30 gifts and a pledge', async () => {
  const { tenant, admin } = await seedDemoTenant(ctx.db, 'demo-password-123');
  const http = api(ctx.app, tokenFor(ctx, tenant.id, admin.id));
  expect((await http.get('/api/finance/funds')).json().data.map((f: { name: string }) => f.name)).toEqual(['Building', 'General', 'Missions']);
  const batches = (await http.get('/api/finance/batches')).json().data;
  expect(batches.map((b: { status: string }) => b.status).sort()).toEqual(['Closed', 'Open']);
  expect(batches.every((b: { variance: number }) => b.variance === 0)).toBe(true);
  expect((await http.get('/api/finance/contributions')).json().total).toBe(30);
  const [pledge] = (await http.get('/api/finance/pledges')).json().data;
  expect(pledge).toMatchObject({ frequency: 'Monthly', occurrences: 12, totalPledged: 60000 });
  const summary = (await http.get('/api/finance/summary?interval=week')).json();
  expect(summary.totals.count).toBe(30);
});
