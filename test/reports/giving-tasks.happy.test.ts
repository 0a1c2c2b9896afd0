import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../src/lib/periods.js';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant, newUser, type TestTenant } from '../helpers/factories.js';
import { newActors, newContact, newTree } from '../helpers/groups.factories.js';
import { tenantSql, today, weeksAgo } from './helpers.js';

const ctx = setupTestApp();
const idOf = (res: unknown) => Number((res as { rows: { id: unknown }[] }).rows[0].id);

describe('giving reports', () => {
  let t: TestTenant;
  let treasurer: string;
  const c: Record<string, number> = {};
  const f: Record<string, number> = {};

  async function gift(contactId: number | null, date: string, lines: [number, number][], refunded = 0) {
    const amount = lines.reduce((a, [, x]) => a + x, 0);
    const status = refunded === 0 ? 'Completed' : refunded === amount ? 'Refunded' : 'PartiallyRefunded';
    const id = idOf(await tenantSql(ctx, t, sql`insert into contributions (tenant_id, contact_id, date, amount, refunded_amount, method, status)
      values (${t.id}, ${contactId}, ${date}::date, ${amount}, ${refunded}, 'Cash', ${status}) returning id`));
    // Single-line gifts carry the refund on their line (the finance module apportions it so).
    for (const [fundId, x] of lines) {
      await tenantSql(ctx, t, sql`insert into contribution_lines (tenant_id, contribution_id, fund_id, amount, refunded_amount)
        values (${t.id}, ${id}, ${fundId}, ${x}, ${lines.length === 1 ? refunded : 0})`);
    }
  }

  beforeAll(async () => {
    t = await newTenant(ctx);
    treasurer = (await newUser(ctx, t, 'Treasurer')).token;
    c.d1 = await newContact(ctx, t, 'Ada', 'Alpha');
    c.d2 = await newContact(ctx, t, 'Bo', 'Beta');
    c.d3 = await newContact(ctx, t, 'Cy', 'Gamma');
    f.general = idOf(await tenantSql(ctx, t, sql`insert into funds (tenant_id, name) values (${t.id}, 'General') returning id`));
    f.building = idOf(await tenantSql(ctx, t, sql`insert into funds (tenant_id, name) values (${t.id}, 'Building') returning id`));
    await gift(c.d1, '2025-01-05', [[f.general, 10000]]);
    await gift(c.d1, '2025-02-10', [[f.general, 3000], [f.building, 2000]]);
    await gift(c.d2, '2025-02-15', [[f.building, 8000]], 3000);
    await gift(null, '2025-03-01', [[f.general, 1000]]);
    await gift(c.d3, '2024-12-20', [[f.general, 7000]]);
    await gift(c.d1, '2024-11-01', [[f.general, 2000]]);
    await gift(c.d2, '2025-03-10', [[f.general, 4000]], 4000);
    await tenantSql(ctx, t, sql`insert into pledges (tenant_id, contact_id, fund_id, amount, frequency, start_date, end_date, campaign) values
      (${t.id}, ${c.d1}, ${f.general}, 1000, 'Monthly', '2025-01-01', '2025-06-30', 'Vision'),
      (${t.id}, ${c.d2}, ${f.building}, 10000, 'OneTime', '2025-02-01', null, 'Build'),
      (${t.id}, ${c.d3}, ${f.general}, 500, 'Weekly', '2023-01-01', '2023-12-31', null)`);
  });

  const w = 'from=2025-01-01&to=2025-03-31';

  it('giving-summary per month, net of refunds, with byFund totals', async () => {
    const res = await api(ctx.app, treasurer).get(`/api/reports/giving-summary?${w}`);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.currency).toBe('USD');
    expect(body.parameters).toEqual({ from: '2025-01-01', to: '2025-03-31', interval: 'month', fundId: null });
    expect(body.rows).toEqual([
      { period: '2025-01-01', total: 10000, count: 1, donors: 1 },
      { period: '2025-02-01', total: 10000, count: 2, donors: 2 },
      { period: '2025-03-01', total: 1000, count: 1, donors: 0 },
    ]);
    expect(body.totals).toEqual({
      total: 21000, count: 4, donors: 2, averageGift: 5250,
      byFund: [{ fund: { id: f.building, name: 'Building' }, amount: 7000 }, { fund: { id: f.general, name: 'General' }, amount: 14000 }],
    });
    const building = (await api(ctx.app, treasurer).get(`/api/reports/giving-summary?${w}&fundId=${f.building}`)).json();
    expect(building.totals.total).toBe(7000);
  });

  it('giving-by-donor, anonymous gifts in one row', async () => {
    const body = (await api(ctx.app, treasurer).get(`/api/reports/giving-by-donor?${w}`)).json();
    expect(body.rows).toEqual([
      { contact: { id: c.d1, firstName: 'Ada', lastName: 'Alpha' }, total: 15000, count: 2, firstGiftOn: '2025-01-05', lastGiftOn: '2025-02-10' },
      { contact: { id: c.d2, firstName: 'Bo', lastName: 'Beta' }, total: 5000, count: 1, firstGiftOn: '2025-02-15', lastGiftOn: '2025-02-15' },
      { contact: null, total: 1000, count: 1, firstGiftOn: '2025-03-01', lastGiftOn: '2025-03-01' },
    ]);
    expect(body.totals).toEqual({ donors: 2, total: 21000, count: 4 });
    const csv = (await api(ctx.app, treasurer).get(`/api/reports/giving-by-donor?${w}&format=csv`)).body;
    expect(csv.split('\r\n')[3]).toBe(',,1000,1,2025-03-01,2025-03-01');
  });

  it('lapsed-givers: gave in the previous window of the same length, not in this one', async () => {
    const body = (await api(ctx.app, treasurer).get(`/api/reports/lapsed-givers?${w}`)).json();
    expect(body.rows).toEqual([{ contact: { id: c.d3, firstName: 'Cy', lastName: 'Gamma' }, previousTotal: 7000, previousCount: 1, lastGiftOn: '2024-12-20' }]);
    expect(body.totals).toEqual({ donors: 1, previousTotal: 7000, previousFrom: '2024-10-03', previousTo: '2024-12-31' });
  });

  it('pledge-progress: pledged, given, remaining, percent', async () => {
    const body = (await api(ctx.app, treasurer).get(`/api/reports/pledge-progress?${w}`)).json();
    expect(body.rows).toEqual([
      { contact: { id: c.d1, firstName: 'Ada', lastName: 'Alpha' }, fund: { id: f.general, name: 'General' }, campaign: 'Vision', frequency: 'Monthly', startDate: '2025-01-01', endDate: '2025-06-30', totalPledged: 6000, given: 13000, remaining: 0, percentComplete: 216.66 },
      { contact: { id: c.d2, firstName: 'Bo', lastName: 'Beta' }, fund: { id: f.building, name: 'Building' }, campaign: 'Build', frequency: 'OneTime', startDate: '2025-02-01', endDate: null, totalPledged: 10000, given: 5000, remaining: 5000, percentComplete: 50 },
    ]);
    expect(body.totals).toEqual({ pledges: 2, totalPledged: 16000, given: 18000, remaining: 5000, percentComplete: 112.5 });
    const vision = (await api(ctx.app, treasurer).get(`/api/reports/pledge-progress?${w}&campaign=Vision`)).json();
    expect(vision.rows).toHaveLength(1);
  });

  it('giving reports are tenant-wide: groupId is 400; without finance:read 403', async () => {
    expect(expectError(await api(ctx.app, treasurer).get(`/api/reports/giving-summary?groupId=1`), 400)).toMatch(/groupId/);
    expect(expectError(await api(ctx.app, treasurer).get(`/api/reports/giving-by-donor?includeDescendants=true`), 400)).toMatch(/includeDescendants/);
    const leader = await newUser(ctx, t, 'Leader');
    expect(expectError(await api(ctx.app, leader.token).get(`/api/reports/giving-summary`), 403)).toMatch(/finance:read/);
  });
});

describe('task-throughput', () => {
  it('per assignee over the tasks the caller may see', async () => {
    const t = await newTenant(ctx);
    const tree = await newTree(ctx, t);
    const actors = await newActors(ctx, t, tree);
    const L = actors.zoneLeader;
    const task = (v: { title: string; assignee?: number | null; groupId?: number | null; status?: string; createdAgo: number; completedAgo?: number; due?: string; confidential?: boolean }) =>
      tenantSql(ctx, t, sql`insert into tasks (tenant_id, title, status, assignee_user_id, group_id, due_date, confidential, created_at, completed_at)
        values (${t.id}, ${v.title}, ${v.status ?? 'Open'}, ${v.assignee ?? null}, ${v.groupId ?? null}, ${v.due ?? null}::date, ${v.confidential ?? false},
          now() - make_interval(days => ${v.createdAgo}), ${v.completedAgo === undefined ? null : sql`now() - make_interval(days => ${v.completedAgo})`})`);
    await task({ title: 't1', assignee: L.id, groupId: tree.fellowshipA1.id, createdAgo: 3 });
    await task({ title: 't2', assignee: L.id, groupId: tree.fellowshipA1.id, status: 'Done', createdAgo: 4, completedAgo: 1 });
    await task({ title: 't3', assignee: L.id, groupId: tree.fellowshipA1.id, status: 'Done', createdAgo: 10, completedAgo: 2 });
    await task({ title: 't4', assignee: t.admin.id, groupId: tree.fellowshipB1.id, createdAgo: 0, due: addDays(today(), -1) });
    await task({ title: 't5', createdAgo: 0 });
    await task({ title: 't6', assignee: t.admin.id, groupId: tree.fellowshipA1.id, createdAgo: 0, confidential: true });
    await task({ title: 'old', assignee: L.id, groupId: tree.fellowshipA1.id, createdAgo: 400 });
    const url = `/api/reports/task-throughput?from=${weeksAgo(2)}`;
    const admin = (await api(ctx.app, t.admin.token).get(url)).json();
    expect(admin.rows).toEqual([
      { assignee: { id: t.admin.id, username: 'admin' }, opened: 2, completed: 0, overdue: 1, medianDaysToComplete: null },
      { assignee: { id: L.id, username: L.username }, opened: 3, completed: 2, overdue: 0, medianDaysToComplete: 5.5 },
      { assignee: null, opened: 1, completed: 0, overdue: 0, medianDaysToComplete: null },
    ]);
    expect(admin.totals).toEqual({ opened: 6, completed: 2, overdue: 1 });
    const zone = (await api(ctx.app, L.token).get(url)).json();
    expect(zone.rows).toEqual([{ assignee: { id: L.id, username: L.username }, opened: 3, completed: 2, overdue: 0, medianDaysToComplete: 5.5 }]);
    const b = (await api(ctx.app, t.admin.token).get(`${url}&groupId=${tree.zoneB.id}`)).json();
    expect(b.totals).toEqual({ opened: 1, completed: 0, overdue: 1 });
  });
});
