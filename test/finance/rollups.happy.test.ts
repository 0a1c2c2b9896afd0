import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { api, setupTestApp } from '../helpers/app.js';
import { newPerson } from '../helpers/contacts.factories.js';
import { newTenant } from '../helpers/factories.js';
import { newBatch, newFund, newGift } from '../helpers/finance.factories.js';

/**
 * The giving rollups (migration 0016) against the raw aggregate of contributions and lines, after
 * every kind of write: split, anonymous and imported gifts, partial and full refunds, an edit moving
 * date, contact and funds, a delete, a merge of contacts, a deleted donor, a closed batch.
 */
const ctx = setupTestApp();

const q = async <T>(query: ReturnType<typeof sql>) => ((await ctx.db.execute(query)) as unknown as { rows: T[] }).rows;

/** The rollup tables and what they must hold, recomputed from contributions (zero rows left out). */
async function rollupsAndRaw(tenantId: number) {
  const days = await q(sql`select date::text, fund_id::int, method, net::int, gifts, entries from giving_days
    where tenant_id = ${tenantId} and (net <> 0 or gifts <> 0 or entries <> 0) order by 1, 2, 3`);
  const rawDays = await q(sql`
    select c.date::text, coalesce(f.fund_id, 0)::int as fund_id, c.method, sum(f.net)::int as net, sum((c.status <> 'Refunded')::int)::int as gifts, count(*)::int as entries
    from (select contribution_id, fund_id, sum(amount - refunded_amount) as net from contribution_lines where tenant_id = ${tenantId} group by contribution_id, rollup (fund_id)) f
    join contributions c on c.tenant_id = ${tenantId} and c.id = f.contribution_id
    group by 1, 2, 3 order by 1, 2, 3`);
  const donors = await q(sql`select kind, year, fund_id::int, contact_id::int, i::int as idx, x::int as n
    from giving_donor_periods, unnest(n) with ordinality u(x, i) where tenant_id = ${tenantId} and x <> 0 order by 1, 2, 3, 4, 5`);
  const rawDonors = await q(sql`
    select k.kind, k.year, coalesce(f.fund_id, 0)::int as fund_id, c.contact_id::int, k.idx, count(*)::int as n
    from (select distinct contribution_id, fund_id from contribution_lines where tenant_id = ${tenantId}
          union all select distinct contribution_id, null::bigint from contribution_lines where tenant_id = ${tenantId}) f
    join contributions c on c.tenant_id = ${tenantId} and c.id = f.contribution_id
    cross join lateral (values ('month', extract(year from c.date)::int, extract(month from c.date)::int),
      ('week', extract(year from c.date - extract(dow from c.date)::int)::int, (extract(doy from c.date - extract(dow from c.date)::int)::int - 1) / 7 + 1)) k(kind, year, idx)
    where c.contact_id is not null and c.status <> 'Refunded'
    group by 1, 2, 3, 4, 5 order by 1, 2, 3, 4, 5`);
  // 0023: donors per set of periods given in (mask bit i-1 for period i), from the raw per-donor periods.
  const masks = await q(sql`select kind, year, fund_id::int, mask::text, donors from giving_donor_masks
    where tenant_id = ${tenantId} and donors <> 0 order by 1, 2, 3, 4`);
  const rawMasks = await q(sql`
    select kind, year, fund_id::int, mask::text, count(*)::int as donors from (
      select k.kind, k.year, coalesce(f.fund_id, 0) as fund_id, c.contact_id,
        bit_or(1::bigint << (k.idx - 1)) as mask
      from (select distinct contribution_id, fund_id from contribution_lines where tenant_id = ${tenantId}
            union all select distinct contribution_id, null::bigint from contribution_lines where tenant_id = ${tenantId}) f
      join contributions c on c.tenant_id = ${tenantId} and c.id = f.contribution_id
      cross join lateral (values ('month', extract(year from c.date)::int, extract(month from c.date)::int),
        ('week', extract(year from c.date - extract(dow from c.date)::int)::int, (extract(doy from c.date - extract(dow from c.date)::int)::int - 1) / 7 + 1)) k(kind, year, idx)
      where c.contact_id is not null and c.status <> 'Refunded'
      group by 1, 2, 3, 4) x
    group by 1, 2, 3, 4 order by 1, 2, 3, 4`);
  return { days, rawDays, donors, rawDonors, masks, rawMasks };
}

/** The summary as the raw aggregate computes it (the statements the service ran before the rollups). */
async function rawSummary(tenantId: number, from: string, to: string, interval: 'week' | 'month', fundId?: number) {
  const period = interval === 'week' ? sql`(c.date - extract(dow from c.date)::int)` : sql`date_trunc('month', c.date)::date`;
  const fund = fundId !== undefined ? sql`and l.fund_id = ${fundId}` : sql``;
  const g = sql`select c.id as cid, c.contact_id, to_char(${period}, 'YYYY-MM-DD') as period, l.fund_id, (l.amount - l.refunded_amount) as net
    from contributions c join contribution_lines l on l.tenant_id = c.tenant_id and l.contribution_id = c.id
    where c.tenant_id = ${tenantId} and c.date between ${from}::date and ${to}::date and c.status <> 'Refunded' ${fund}`;
  const periods = await q<{ period: string; total: number; count: number; donors: number }>(sql`with g as (${g})
    select period, sum(net)::int as total, count(distinct cid)::int as count, count(distinct contact_id)::int as donors from g group by 1 order by 1`);
  const byFund = await q<{ period: string; id: number; amount: number }>(sql`with g as (${g})
    select period, fund_id::int as id, sum(net)::int as amount from g group by 1, 2 order by 1, 2`);
  const [totals] = await q<{ total: number; count: number; donors: number }>(sql`with g as (${g})
    select coalesce(sum(net), 0)::int as total, count(distinct cid)::int as count, count(distinct contact_id)::int as donors from g`);
  return { periods, byFund, totals };
}

describe('giving rollups', () => {
  it('equal the raw aggregate after a mix of writes, and the summary, the report, the dashboard and the list total read them', async () => {
    const t = await newTenant(ctx);
    const other = await newTenant(ctx);
    const token = t.admin.token;
    const a = await newFund(ctx, token, { name: 'General' });
    const b = await newFund(ctx, token, { name: 'Building' });
    const [p1, p2, p3, p4] = await Promise.all(['Ann', 'Ben', 'Cy', 'Di'].map((n) => newPerson(ctx, t, n, 'Giver')));
    const split = (amount: number, first: number) => [{ fundId: a.id, amount: first }, { fundId: b.id, amount: amount - first }];
    const batch = await newBatch(ctx, token, { controlAmount: 3000, controlCount: 1 });
    await newGift(ctx, token, { contactId: p1.id, date: '2025-12-31', amount: 3000, lines: split(3000, 1000), batchId: batch.id });
    const g2 = await newGift(ctx, token, { contactId: p1.id, date: '2026-01-04', amount: 500, fundId: a.id, method: 'Card' });
    const g3 = await newGift(ctx, token, { contactId: p2.id, date: '2026-01-15', amount: 800, fundId: b.id });
    await newGift(ctx, token, { contactId: null, date: '2026-02-01', amount: 700, fundId: a.id });
    const g5 = await newGift(ctx, token, { contactId: p3.id, date: '2026-02-10', amount: 900, lines: split(900, 450) });
    const g6 = await newGift(ctx, token, { contactId: p2.id, date: '2026-03-05', amount: 1200, fundId: a.id });
    await newGift(ctx, token, { contactId: p3.id, date: '2026-03-07', amount: 400, lines: split(400, 100) });
    await newGift(ctx, other.admin.token, { contactId: null, date: '2026-01-15', amount: 999, fundId: (await newFund(ctx, other.admin.token)).id });
    const imported = await api(ctx.app, token).post('/api/finance/contributions/import', {
      rows: [
        { date: '2026-01-20', amount: 650, fund: 'General', contactId: p4.id },
        { date: '2026-02-20', amount: 350, fund: 'Building', name: 'Nobody Known' },
        { date: '2026-02-21', amount: 250, fund: 'General', contactId: p4.id },
      ],
    });
    expect(imported.json()).toMatchObject({ total: 3, failed: 0, unmatched: 1 });
    for (const [id, amount] of [[g3.id, 300], [g6.id, 1200]]) {
      const refund = await api(ctx.app, token).post(`/api/finance/contributions/${id}/refund`, { amount });
      expect(refund.statusCode, refund.body).toBe(200);
    }
    const moved = await api(ctx.app, token).put(`/api/finance/contributions/${g2.id}`, { date: '2026-02-02', contactId: p3.id, lines: [{ fundId: b.id, amount: 500 }] });
    expect(moved.statusCode, moved.body).toBe(200);
    expect((await api(ctx.app, token).delete(`/api/finance/contributions/${g5.id}`)).statusCode).toBe(204);
    expect((await api(ctx.app, token).post(`/api/crm/contacts/${p1.id}/merge`, { sourceIds: [p4.id] })).statusCode).toBe(200);
    expect((await api(ctx.app, token).delete(`/api/crm/contacts/${p3.id}`)).statusCode).toBe(204);
    expect((await api(ctx.app, token).put(`/api/finance/batches/${batch.id}/close`, {})).statusCode).toBe(200);

    const r = await rollupsAndRaw(t.id);
    expect(r.days.length).toBeGreaterThan(10);
    expect(r.days).toEqual(r.rawDays);
    expect(r.donors).toEqual(r.rawDonors);
    expect(r.masks.length).toBeGreaterThan(5);
    expect(r.masks).toEqual(r.rawMasks);

    // Whole months, a week window not aligned on either side, one partial month, and one fund.
    for (const [from, to, interval, fundId] of [
      ['2025-12-01', '2026-03-31', 'month', undefined],
      ['2026-01-02', '2026-02-20', 'week', undefined],
      ['2026-01-10', '2026-02-20', 'month', undefined],
      ['2026-02-21', '2026-02-21', 'month', undefined],
      ['2025-12-01', '2026-03-31', 'month', b.id],
      ['2025-12-29', '2026-03-10', 'week', a.id],
      // Inside one year (read from the donor masks of 0023): whole periods, cut periods, one fund, one day.
      ['2026-01-01', '2026-03-31', 'month', undefined],
      ['2026-01-16', '2026-02-20', 'month', undefined],
      ['2026-01-04', '2026-03-07', 'week', undefined],
      ['2026-01-06', '2026-02-20', 'week', undefined],
      ['2026-01-16', '2026-03-05', 'month', a.id],
      ['2026-02-02', '2026-02-02', 'week', b.id],
      ['2026-02-21', '2026-03-31', 'month', undefined],
    ] as const) {
      const query = new URLSearchParams({ from, to, interval, ...(fundId ? { fundId: String(fundId) } : {}) });
      const res = await api(ctx.app, token).get(`/api/finance/summary?${query}`);
      expect(res.statusCode, res.body).toBe(200);
      const s = res.json();
      expect(s.currency).toBe('USD');
      const raw = await rawSummary(t.id, from, to, interval, fundId);
      const label = `${from}..${to} ${interval} ${fundId ?? ''}`;
      expect(s.data.filter((p: { count: number }) => p.count > 0).map((p: { period: string; total: number; count: number; donors: number }) => ({ period: p.period, total: p.total, count: p.count, donors: p.donors })), label).toEqual(raw.periods);
      expect(s.data.flatMap((p: { period: string; byFund: { fund: { id: number }; amount: number }[] }) => p.byFund.map((f) => ({ period: p.period, id: f.fund.id, amount: f.amount }))).sort((x: { period: string; id: number }, y: { period: string; id: number }) => x.period.localeCompare(y.period) || x.id - y.id), label).toEqual(raw.byFund);
      expect(s.totals, label).toMatchObject(raw.totals);
    }

    const report = await api(ctx.app, token).get('/api/reports/giving-summary?from=2025-12-01&to=2026-03-31');
    const raw = await rawSummary(t.id, '2025-12-01', '2026-03-31', 'month');
    expect(report.json().totals).toMatchObject(raw.totals);

    const dash = (await api(ctx.app, token).get('/api/dashboard?from=2026-01-18&to=2026-02-21')).json();
    const cur = await rawSummary(t.id, '2026-01-18', '2026-02-21', 'month');
    const prev = await rawSummary(t.id, '2025-12-14', '2026-01-17', 'month');
    expect(dash.giving).toMatchObject({ total: cur.totals.total, donors: cur.totals.donors, averageGift: Math.floor(cur.totals.total / cur.totals.count) });
    expect(dash.giving.changePct).toBe(Math.round(((cur.totals.total - prev.totals.total) / prev.totals.total) * 10_000) / 100);

    for (const filter of ['', 'method=Card', `fundId=${b.id}`, 'from=2026-01-16&to=2026-03-01', 'limit=2&page=3', `contactId=${p1.id}&limit=1`]) {
      const list = (await api(ctx.app, token).get(`/api/finance/contributions?${filter}`)).json();
      const where = new URLSearchParams(filter);
      const [{ n }] = await q<{ n: number }>(sql`select count(*)::int as n from contributions c where c.tenant_id = ${t.id}
        ${where.get('method') ? sql`and c.method = ${where.get('method')}` : sql``}
        ${where.get('fundId') ? sql`and exists (select 1 from contribution_lines l where l.contribution_id = c.id and l.fund_id = ${Number(where.get('fundId'))})` : sql``}
        ${where.get('from') ? sql`and c.date between ${where.get('from')}::date and ${where.get('to')}::date` : sql``}
        ${where.get('contactId') ? sql`and c.contact_id = ${Number(where.get('contactId'))}` : sql``}`);
      expect(list.total, filter).toBe(n);
    }
  });
});
