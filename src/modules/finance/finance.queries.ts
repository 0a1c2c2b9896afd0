import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { BadRequestError, ForbiddenError } from '../../lib/errors.js';
import { toMinor } from '../../lib/money.js';
import { defaultWindow, periodSeriesSql, periodStartSql, periodStarts, todayIn, type Interval } from '../../lib/periods.js';
import type { Principal } from '../../plugins/auth.js';
import { loadTenantSettings } from '../tenants/tenants.service.js';
import type { ByFund, Summary, SummaryQuery } from './finance.schemas.js';

/**
 * Finance queries other modules reuse (search, reports, the dashboard): they call these rather than
 * read the finance tables. Giving is counted net of refunds: a line's amount minus the part of the
 * refunds apportioned to it; fully refunded gifts count for nothing.
 */

/** Rows: the result of tx.execute on either driver. */
export function rowsOf<T>(result: unknown): T[] {
  return (result as { rows: T[] }).rows;
}

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
 * when nothing was given), totals, donors and byFund, all summed in SQL as bigint.
 */
export async function financeSummary(tx: Db, auth: Pick<Principal, 'tenantId' | 'permissions'>, query: SummaryQuery): Promise<Summary> {
  if (!auth.permissions.has('finance:read')) throw new ForbiddenError('Missing permission finance:read');
  const t = auth.tenantId;
  const settings = await loadTenantSettings(tx, t);
  const { from, to, interval } = summaryWindow(settings.timeZone, query);
  const fund = query.fundId !== undefined ? sql`and l.fund_id = ${query.fundId}` : sql``;
  const gifts = sql`
    select c.id as cid, c.contact_id, ${periodStartSql(sql`c.date`, interval)} as period, l.fund_id, (l.amount - l.refunded_amount) as net
    from contributions c join contribution_lines l on l.tenant_id = c.tenant_id and l.contribution_id = c.id
    where c.tenant_id = ${t} and c.date between ${from}::date and ${to}::date and c.status <> 'Refunded' ${fund}`;
  const periods = await tx.execute(sql`
      with g as (${gifts})
      select to_char(s.period, 'YYYY-MM-DD') as period, coalesce(sum(g.net), 0)::bigint as total,
        count(distinct g.cid)::int as count, count(distinct g.contact_id)::int as donors
      from ${periodSeriesSql(from, to, interval)} s left join g on g.period = s.period
      group by s.period order by s.period`);
  const funds = await tx.execute(sql`
      with g as (${gifts})
      select to_char(g.period, 'YYYY-MM-DD') as period, f.id, f.name, sum(g.net)::bigint as amount
      from g join funds f on f.tenant_id = ${t} and f.id = g.fund_id
      group by g.period, f.id, f.name order by g.period, f.name, f.id`);
  const totals = await tx.execute(sql`
      with g as (${gifts})
      select coalesce(sum(net), 0)::bigint as total, count(distinct cid)::int as count, count(distinct contact_id)::int as donors,
        coalesce(div(sum(net), nullif(count(distinct cid), 0)), 0)::bigint as average
      from g`);
  const byPeriod = new Map<string, ByFund>();
  for (const r of rowsOf<{ period: string; id: unknown; name: string; amount: unknown }>(funds)) {
    const list = byPeriod.get(r.period) ?? [];
    list.push({ fund: { id: Number(r.id), name: r.name }, amount: toMinor(r.amount) });
    byPeriod.set(r.period, list);
  }
  const sum = rowsOf<{ total: unknown; count: unknown; donors: unknown; average: unknown }>(totals)[0];
  return {
    from,
    to,
    interval,
    currency: settings.currency,
    data: rowsOf<{ period: string; total: unknown; count: unknown; donors: unknown }>(periods).map((r) => ({
      period: r.period,
      total: toMinor(r.total),
      count: Number(r.count),
      donors: Number(r.donors),
      byFund: byPeriod.get(r.period) ?? [],
    })),
    totals: { total: toMinor(sum.total), count: Number(sum.count), donors: Number(sum.donors), averageGift: toMinor(sum.average) },
  };
}
