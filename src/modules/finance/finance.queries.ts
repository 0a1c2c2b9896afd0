import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { BadRequestError, ForbiddenError, NotFoundError } from '../../lib/errors.js';
import { toMinor } from '../../lib/money.js';
import { defaultWindow, periodStartSql, periodStarts, todayIn, type Interval } from '../../lib/periods.js';
import type { Principal } from '../../plugins/auth.js';
import { loadTenantSettings } from '../../tenancy/settings.js';
import { parseIntArray } from './contributions.repository.js';
import { rowsOf } from './finance.common.js';
import type { ByFund, Summary, SummaryQuery } from './finance.schemas.js';
import { givingAmountsSql, givingDonorsSql } from './giving.rollups.js';

/**
 * Finance queries other modules reuse (search, reports, the dashboard): they call these rather than
 * read the finance tables. Giving is counted net of refunds: a line's amount minus the part of the
 * refunds apportioned to it; fully refunded gifts count for nothing.
 */

/**
 * SQL: the ids of the tenant's contacts with a (not fully refunded) gift dated on or after
 * `sinceDate` (YYYY-MM-DD), as a subquery: `contacts.id in ${contactsGaveSinceSql(t, d)}`.
 * Only for callers holding finance:read (giving is never shown without it).
 */
/**
 * SQL over a pledge aliased `pl`: how many times its frequency falls between its start and end dates,
 * both included (OneTime, or no end date: once; a month counts once its day of month is reached).
 */
const PLEDGE_MONTHS = sql`(extract(year from age(pl.end_date, pl.start_date)) * 12 + extract(month from age(pl.end_date, pl.start_date)))::int`;
export const PLEDGE_OCCURRENCES = sql`(case
  when pl.frequency = 'OneTime' or pl.end_date is null then 1
  when pl.frequency = 'Weekly' then (pl.end_date - pl.start_date) / 7 + 1
  when pl.frequency = 'Monthly' then ${PLEDGE_MONTHS} + 1
  when pl.frequency = 'Quarterly' then ${PLEDGE_MONTHS} / 3 + 1
  else ${PLEDGE_MONTHS} / 12 + 1 end)`;

export function contactsGaveSinceSql(tenantId: number, sinceDate: string): SQL {
  return sql`(select fc.contact_id from contributions fc where fc.tenant_id = ${tenantId} and fc.date >= ${sinceDate}::date and fc.contact_id is not null and fc.status <> 'Refunded')`;
}

/** The default summary window: the 12 months (or 12 weeks) ending with the current one. */
export function summaryWindow(timeZone: string, query: SummaryQuery): { from: string; to: string; interval: Interval } {
  const interval: Interval = query.interval ?? 'month';
  const fallback = defaultWindow(todayIn(timeZone), interval, 12);
  const from = query.from ?? (query.to && query.to < fallback.from ? query.to : fallback.from);
  const to = query.to ?? (query.from && query.from > fallback.to ? query.from : fallback.to);
  if (to < from) throw new BadRequestError('querystring/to must not precede from');
  if (periodStarts(from, to, interval, 401).length > 400) throw new BadRequestError('A summary covers at most 400 periods');
  return { from, to, interval };
}

/**
 * GET /api/finance/summary in the caller's transaction: every period of [from, to] present (zero
 * when nothing was given), totals, donors and byFund, read from the giving rollups (giving.rollups.ts):
 * two statements over a few hundred rollup rows and one row per donor, whatever the number of gifts.
 */
export async function financeSummary(tx: Db, auth: Pick<Principal, 'tenantId' | 'permissions'>, query: SummaryQuery): Promise<Summary> {
  if (!auth.permissions.has('finance:read')) throw new ForbiddenError('Missing permission finance:read');
  const t = auth.tenantId;
  // The time zone only places the default window: with both dates the statement reads the currency itself.
  const timeZone = query.from !== undefined && query.to !== undefined ? 'UTC' : (await loadTenantSettings(tx, t)).timeZone;
  const { from, to, interval } = summaryWindow(timeZone, query);
  // One statement: the donor counts (one row) beside the amounts (a row per period and fund, if any).
  const amounts = givingAmountsSql(t, { from, to, fundId: query.fundId }, (date) => sql`to_char(${periodStartSql(date, interval)}, 'YYYY-MM-DD')`);
  const rows = rowsOf<{ bucket: string | null; fund_id: unknown; fund_name: string | null; net: unknown; gifts: unknown; donor_periods: unknown; donor_total: unknown; currency: string }>(
    await tx.execute(sql`
      select a.bucket, a.fund_id, a.fund_name, a.net, a.gifts, d.periods as donor_periods, d.total as donor_total, tn.currency
      from tenants tn cross join (${givingDonorsSql(t, { from, to, interval, fundId: query.fundId })}) d
      left join (${amounts}) a on true
      where tn.id = ${t}
      order by a.bucket, a.fund_name, a.fund_id`),
  );
  if (!rows[0]) throw new NotFoundError('Tenant', t);
  const periods = new Map(periodStarts(from, to, interval).map((p) => [p, { period: p, total: 0, count: 0, byFund: [] as ByFund }]));
  for (const r of rows) {
    if (r.bucket === null) continue;
    const p = periods.get(r.bucket)!;
    const fundId = Number(r.fund_id);
    if (fundId === (query.fundId ?? 0)) Object.assign(p, { total: toMinor(r.net), count: Number(r.gifts) });
    // A fund appears in a period when a gift not fully refunded has a line in it (its net may be 0).
    if (fundId !== 0 && Number(r.gifts) > 0) p.byFund.push({ fund: { id: fundId, name: r.fund_name ?? '' }, amount: toMinor(r.net) });
  }
  const d = { periods: rows[0].donor_periods, total: rows[0].donor_total };
  const perPeriod = parseIntArray(d.periods);
  const data = [...periods.values()].map((p, i) => ({ period: p.period, total: p.total, count: p.count, donors: perPeriod[i] ?? 0, byFund: p.byFund }));
  const total = data.reduce((a, p) => a + p.total, 0);
  const count = data.reduce((a, p) => a + p.count, 0);
  return {
    from,
    to,
    interval,
    currency: rows[0].currency,
    data,
    totals: { total, count, donors: Number(d.total), averageGift: count ? Math.floor(total / count) : 0 },
  };
}
