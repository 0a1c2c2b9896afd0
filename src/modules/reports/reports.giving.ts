import { sql } from 'drizzle-orm';
import { toMinor } from '../../lib/money.js';
import { addDays, daysBetween, defaultWindow } from '../../lib/periods.js';
import { financeSummary, PLEDGE_OCCURRENCES } from '../finance/finance.queries.js';
import { contactNames, joinNames } from './reports.people.js';
import { num, param, type ReportDefinition } from './report.types.js';
import { rowsOf } from './scope.js';

/**
 * Giving reports: tenant-wide (finance:read; never hierarchy-scoped), net of refunds as the finance
 * module counts it (a line's amount minus its refunded part; fully refunded gifts count nothing).
 * giving-summary is the finance module's summary; the others read the finance tables here (the
 * finance module exports no per-donor or pledge aggregate), one statement each.
 */

const twelveMonths = (today: string) => defaultWindow(today, 'month', 12);

/** SQL: the net gifts (one row per contribution) dated in [from, to]. */
const netGifts = (tenantId: number, from: string, to: string) => sql`
  select c.id, c.contact_id, c.date, (c.amount - c.refunded_amount) as net from contributions c
  where c.tenant_id = ${tenantId} and c.date between ${from}::date and ${to}::date and c.status <> 'Refunded'`;

export const givingSummaryReport: ReportDefinition = {
  key: 'giving-summary',
  name: 'Giving summary',
  description: 'Per week or month: total given (net of refunds, minor units), gifts and donors; totals with the average gift and the split by fund.',
  permissions: ['finance:read'],
  hierarchy: false,
  params: [param('interval', 'string', { default: 'month', options: ['week', 'month'] }), param('fundId', 'id')],
  defaultWindow: twelveMonths,
  columns: [
    { key: 'period', label: 'Period', type: 'date' },
    { key: 'total', label: 'Total', type: 'money' },
    { key: 'count', label: 'Gifts', type: 'integer' },
    { key: 'donors', label: 'Donors', type: 'integer' },
  ],
  async run({ tx, auth, window, params }) {
    const s = await financeSummary(tx, auth, {
      from: window.from, to: window.to, interval: params.interval as 'week' | 'month', ...(params.fundId !== null ? { fundId: params.fundId as number } : {}),
    });
    // byFund of the whole window: the per-period splits summed (they are already SQL sums).
    const byFund = new Map<number, { fund: { id: number; name: string }; amount: number }>();
    for (const p of s.data) for (const f of p.byFund) {
      const entry = byFund.get(f.fund.id) ?? { fund: f.fund, amount: 0 };
      entry.amount += f.amount;
      byFund.set(f.fund.id, entry);
    }
    return {
      rows: s.data.map((p) => ({ period: p.period, total: p.total, count: p.count, donors: p.donors })),
      totals: { ...s.totals, byFund: [...byFund.values()].sort((a, b) => a.fund.name.localeCompare(b.fund.name) || a.fund.id - b.fund.id) },
    };
  },
};

export const givingByDonorReport: ReportDefinition = {
  key: 'giving-by-donor',
  name: 'Giving by donor',
  description: 'Per donor (anonymous gifts together as one row with no contact): total given in the window, gifts, first and last gift, largest first.',
  permissions: ['finance:read'],
  hierarchy: false,
  params: [],
  defaultWindow: twelveMonths,
  columns: [
    { key: 'contact', label: 'Donor', type: 'contact' },
    { key: 'total', label: 'Total', type: 'money' },
    { key: 'count', label: 'Gifts', type: 'integer' },
    { key: 'firstGiftOn', label: 'First gift', type: 'date' },
    { key: 'lastGiftOn', label: 'Last gift', type: 'date' },
  ],
  async run({ tx, tenantId, window }) {
    const rows = rowsOf<Record<string, unknown>>(
      await tx.execute(sql`
        with g as (${netGifts(tenantId, window.from, window.to)}),
        d as (
          select g.contact_id, sum(g.net)::bigint as total, count(*) as count, min(g.date) as first_on, max(g.date) as last_on
          from g group by g.contact_id
        )
        select d.contact_id, ${contactNames}, d.total, d.count, to_char(d.first_on, 'YYYY-MM-DD') as first_on, to_char(d.last_on, 'YYYY-MM-DD') as last_on
        from d ${joinNames(tenantId, sql`d.contact_id`)}
        order by d.total desc, d.contact_id is null, last_name, first_name, d.contact_id`),
    );
    const out = rows.map((r) => ({
      contact: r.contact_id === null ? null : { id: num(r.contact_id), firstName: r.first_name as string, lastName: r.last_name as string },
      total: toMinor(r.total), count: num(r.count), firstGiftOn: r.first_on as string, lastGiftOn: r.last_on as string,
    }));
    return {
      rows: out,
      totals: { donors: out.filter((r) => r.contact !== null).length, total: out.reduce((a, r) => a + r.total, 0), count: out.reduce((a, r) => a + r.count, 0) },
    };
  },
};

export const lapsedGiversReport: ReportDefinition = {
  key: 'lapsed-givers',
  name: 'Lapsed givers',
  description: 'Donors who gave in the window of the same length just before `from`, and not in [from, to]: what they gave then and their last gift.',
  permissions: ['finance:read'],
  hierarchy: false,
  params: [],
  defaultWindow: (today) => defaultWindow(today, 'month', 3),
  columns: [
    { key: 'contact', label: 'Donor', type: 'contact' },
    { key: 'previousTotal', label: 'Given before', type: 'money' },
    { key: 'previousCount', label: 'Gifts before', type: 'integer' },
    { key: 'lastGiftOn', label: 'Last gift', type: 'date' },
  ],
  async run({ tx, tenantId, window }) {
    const days = daysBetween(window.from, window.to) + 1;
    const prevFrom = addDays(window.from, -days);
    const prevTo = addDays(window.from, -1);
    const rows = rowsOf<Record<string, unknown>>(
      await tx.execute(sql`
        with prev as (
          select g.contact_id, sum(g.net)::bigint as total, count(*) as count, max(g.date) as last_on
          from (${netGifts(tenantId, prevFrom, prevTo)}) g where g.contact_id is not null group by g.contact_id
        )
        select prev.contact_id, ${contactNames}, prev.total, prev.count, to_char(prev.last_on, 'YYYY-MM-DD') as last_on
        from prev ${joinNames(tenantId, sql`prev.contact_id`)}
        where not exists (select 1 from (${netGifts(tenantId, window.from, window.to)}) now where now.contact_id = prev.contact_id)
        order by prev.total desc, last_name, first_name, prev.contact_id`),
    );
    const out = rows.map((r) => ({
      contact: { id: num(r.contact_id), firstName: r.first_name as string, lastName: r.last_name as string },
      previousTotal: toMinor(r.total), previousCount: num(r.count), lastGiftOn: r.last_on as string,
    }));
    return { rows: out, totals: { donors: out.length, previousTotal: out.reduce((a, r) => a + r.previousTotal, 0), previousFrom: prevFrom, previousTo: prevTo } };
  },
};

/** Occurrences of a pledge's frequency from start to end: the finance module's rule. */
const OCCURRENCES = PLEDGE_OCCURRENCES;

export const pledgeProgressReport: ReportDefinition = {
  key: 'pledge-progress',
  name: 'Pledge progress',
  description:
    'Pledges running during the window (started by `to`, not ended before `from`): pledged in total (amount × occurrences), given to the fund between the pledge\'s dates (net of refunds), remaining and percent complete.',
  permissions: ['finance:read'],
  hierarchy: false,
  params: [param('campaign', 'string'), param('fundId', 'id')],
  defaultWindow: (today) => defaultWindow(today, 'month', 12),
  columns: [
    { key: 'contact', label: 'Donor', type: 'contact' },
    { key: 'fund', label: 'Fund', type: 'fund' },
    { key: 'campaign', label: 'Campaign', type: 'string' },
    { key: 'frequency', label: 'Frequency', type: 'string' },
    { key: 'startDate', label: 'Start', type: 'date' },
    { key: 'endDate', label: 'End', type: 'date' },
    { key: 'totalPledged', label: 'Pledged', type: 'money' },
    { key: 'given', label: 'Given', type: 'money' },
    { key: 'remaining', label: 'Remaining', type: 'money' },
    { key: 'percentComplete', label: '% complete', type: 'percent' },
  ],
  async run({ tx, tenantId, window, params }) {
    const campaign = params.campaign !== null ? sql`and pl.campaign = ${params.campaign as string}` : sql``;
    const fund = params.fundId !== null ? sql`and pl.fund_id = ${params.fundId as number}` : sql``;
    const rows = rowsOf<Record<string, unknown>>(
      await tx.execute(sql`
        select pl.id, pl.contact_id, ${contactNames}, f.id as fund_id, f.name as fund_name, pl.campaign, pl.frequency,
          pl.start_date::text as start_date, pl.end_date::text as end_date, (pl.amount * ${OCCURRENCES})::bigint as total_pledged,
          (select coalesce(sum(l.amount - l.refunded_amount), 0)::bigint from contributions c
            join contribution_lines l on l.tenant_id = c.tenant_id and l.contribution_id = c.id and l.fund_id = pl.fund_id
            where c.tenant_id = pl.tenant_id and c.contact_id = pl.contact_id and c.date >= pl.start_date
              and (pl.end_date is null or c.date <= pl.end_date)) as given
        from pledges pl
        join funds f on f.tenant_id = pl.tenant_id and f.id = pl.fund_id
        ${joinNames(tenantId, sql`pl.contact_id`)}
        where pl.tenant_id = ${tenantId} and pl.start_date <= ${window.to}::date and (pl.end_date is null or pl.end_date >= ${window.from}::date)
          ${campaign} ${fund}
        order by last_name, first_name, pl.contact_id, pl.start_date, pl.id`),
    );
    const out = rows.map((r) => {
      const totalPledged = toMinor(r.total_pledged);
      const given = toMinor(r.given);
      return {
        contact: { id: num(r.contact_id), firstName: r.first_name as string, lastName: r.last_name as string },
        fund: { id: num(r.fund_id), name: r.fund_name as string },
        campaign: (r.campaign as string | null) ?? null,
        frequency: r.frequency as string,
        startDate: r.start_date as string,
        endDate: (r.end_date as string | null) ?? null,
        totalPledged, given, remaining: Math.max(totalPledged - given, 0),
        percentComplete: totalPledged > 0 ? Number((BigInt(given) * 10_000n) / BigInt(totalPledged)) / 100 : 0,
      };
    });
    const pledged = out.reduce((a, r) => a + r.totalPledged, 0);
    const given = out.reduce((a, r) => a + r.given, 0);
    return {
      rows: out,
      totals: { pledges: out.length, totalPledged: pledged, given, remaining: out.reduce((a, r) => a + r.remaining, 0), percentComplete: pledged > 0 ? Number((BigInt(given) * 10_000n) / BigInt(pledged)) / 100 : 0 },
    };
  },
};
