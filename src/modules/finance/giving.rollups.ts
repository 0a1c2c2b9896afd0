import { sql, type SQL } from 'drizzle-orm';
import { addDays, daysBetween, nextPeriod, periodStarts, type Interval } from '../../lib/periods.js';

/**
 * THE reads of the giving rollups (migration 0016, kept by triggers at commit): the finance summary,
 * the giving-summary report (through the summary) and the dashboard read giving totals and donor
 * counts here, never by aggregating contributions. Net of refunds, fully refunded gifts not counted,
 * exactly as the raw aggregate would (test/finance/rollups.happy.test.ts compares them).
 *   giving_days: per date × fund (0 = all funds) × method: net, gifts, entries.
 *   giving_donor_periods: per kind (month, week) × year × fund × donor: gifts per period of the year.
 */

/**
 * SQL: net and gifts per `bucket` (an expression over `d.date`) and fund, in [from, to]: the all-funds
 * rows (fund_id 0) and one row per fund (with its name), or only the fund `fundId`.
 * Columns: bucket, fund_id, fund_name (null for 0), net, gifts.
 */
export function givingAmountsSql(tenantId: number, w: { from: string; to: string; fundId?: number }, bucket: (date: SQL) => SQL): SQL {
  const fund = w.fundId !== undefined ? sql`and d.fund_id = ${w.fundId}` : sql``;
  return sql`
    select x.bucket, x.fund_id, f.name as fund_name, x.net, x.gifts from (
      select ${bucket(sql`d.date`)} as bucket, d.fund_id, sum(d.net)::bigint as net, sum(d.gifts)::bigint as gifts
      from giving_days d where d.tenant_id = ${tenantId} and d.date between ${w.from}::date and ${w.to}::date ${fund}
      group by 1, 2
    ) x left join funds f on f.tenant_id = ${tenantId} and f.id = x.fund_id
    order by x.bucket, f.name, x.fund_id`;
}

/** A period's row and slot in giving_donor_periods (weeks: by the year of their Sunday). */
function slot(start: string, interval: Interval): { year: number; idx: number } {
  const year = Number(start.slice(0, 4));
  if (interval === 'month') return { year, idx: Number(start.slice(5, 7)) };
  const doy = Math.round((Date.parse(`${start}T00:00:00Z`) - Date.parse(`${start.slice(0, 4)}-01-01T00:00:00Z`)) / 86_400_000) + 1;
  return { year, idx: Math.floor((doy - 1) / 7) + 1 };
}

/**
 * SQL, one row: `periods` (int[]: distinct donors of each period of [from, to], in order) and `total`
 * (distinct donors of the whole window), for all funds or the fund `fundId`. A donor is counted in a
 * period when their gifts there are more than those of the first or last period that fall outside
 * [from, to]: those few are read from contributions (none when the window is whole periods, or
 * ends today with no gift dated later).
 * Inside one year the counts are sums over giving_donor_masks (migration 0023: donors per set of
 * periods given in, a few rows), less the donors whose gifts in a cut period all lie outside the
 * window (their rows of giving_donor_periods, by key); across years, one row per donor and year.
 */
export function givingDonorsSql(tenantId: number, w: { from: string; to: string; interval: Interval; fundId?: number }): SQL {
  const starts = periodStarts(w.from, w.to, w.interval);
  const first = starts[0];
  const lastEnd = addDays(nextPeriod(starts[starts.length - 1], w.interval), -1);
  const slots = starts.map((s) => slot(s, w.interval));
  const single = starts.length === 1;
  const fund = w.fundId ?? 0;
  const outside = (i: number) => (single ? sql`r.ef + r.el` : i === 0 ? sql`r.ef` : i === slots.length - 1 ? sql`r.el` : sql`0`);
  const cond = slots.map((s, i) => sql`(r.year = ${s.year} and r.n[${s.idx}] > ${outside(i)})`);
  // Every contribution has lines (1–20, written in its transaction): only a fund needs checking.
  const lineFund = w.fundId !== undefined
    ? sql`and exists (select 1 from contribution_lines l where l.tenant_id = c.tenant_id and l.contribution_id = c.id and l.fund_id = ${w.fundId})`
    : sql``;
  const edges = first < w.from || w.to < lastEnd;
  // Gifts of the first and last period outside [from, to], per donor (contributions_date_idx).
  const exSql = sql`
        select c.contact_id, count(*) filter (where c.date < ${w.from}::date) as ef, count(*) filter (where c.date > ${w.to}::date) as el
        from contributions c
        where c.tenant_id = ${tenantId} and c.contact_id is not null and c.status <> 'Refunded'
          and ((c.date >= ${first}::date and c.date < ${w.from}::date) or (c.date > ${w.to}::date and c.date <= ${lastEnd}::date))
          ${lineFund}
        group by c.contact_id`;
  if (slots[0].year === slots[slots.length - 1].year) {
    const year = slots[0].year;
    const bit = (idx: number) => sql`${String(1n << BigInt(idx - 1))}::bigint`;
    const windowBits = sql`${String(slots.reduce((m, s) => m | (1n << BigInt(s.idx - 1)), 0n))}::bigint`;
    const masks = sql`
      select ${sql.join(slots.map((s) => sql`coalesce(sum(m.donors) filter (where m.mask & ${bit(s.idx)} <> 0), 0)`), sql`, `)},
        coalesce(sum(m.donors) filter (where m.mask & ${windowBits} <> 0), 0)
      from giving_donor_masks m where m.tenant_id = ${tenantId} and m.kind = ${w.interval} and m.fund_id = ${fund} and m.year = ${year}`;
    if (!edges) {
      return sql`select array[${sql.join(slots.map((_, i) => sql`x.${sql.identifier(`c${i}`)}`), sql`, `)}]::int[] as periods, x.total
        from (${masks}) as x(${sql.join([...slots.map((_, i) => sql.identifier(`c${i}`)), sql.identifier('total')], sql`, `)})`;
    }
    // Donors counted by their masks in a cut period (or the window) without a gift inside it.
    const edgeIdx = [...new Set([0, slots.length - 1])];
    const given = sql.join(slots.map((s) => sql`r.n[${s.idx}] > 0`), sql` or `);
    const fix = sql`
      select ${sql.join(edgeIdx.map((i) => sql`count(*) filter (where r.n[${slots[i].idx}] > 0 and not ${cond[i]})`), sql`, `)},
        count(*) filter (where (${given}) and not (${sql.join(cond, sql` or `)}))
      from (select p.year, p.n, ex.ef, ex.el from (${exSql}) ex
        join giving_donor_periods p on p.tenant_id = ${tenantId} and p.kind = ${w.interval} and p.fund_id = ${fund} and p.year = ${year}
          and p.contact_id = ex.contact_id) r`;
    const col = (name: string) => sql.identifier(name);
    const period = (i: number) => {
      const e = edgeIdx.indexOf(i);
      return e < 0 ? sql`x.${col(`c${i}`)}` : sql`x.${col(`c${i}`)} - y.${col(`e${e}`)}`;
    };
    return sql`select array[${sql.join(slots.map((_, i) => period(i)), sql`, `)}]::int[] as periods, x.total - y.total as total
      from (${masks}) as x(${sql.join([...slots.map((_, i) => col(`c${i}`)), col('total')], sql`, `)}),
        (${fix}) as y(${sql.join([...edgeIdx.map((_, e) => col(`e${e}`)), col('total')], sql`, `)})`;
  }
  const ex = edges ? sql`left join (${exSql}) ex on ex.contact_id = p.contact_id` : sql``;
  const r = sql`
    select p.contact_id, p.year, p.n, ${edges ? sql`coalesce(ex.ef, 0) as ef, coalesce(ex.el, 0) as el` : sql`0 as ef, 0 as el`}
    from giving_donor_periods p ${ex}
    where p.tenant_id = ${tenantId} and p.kind = ${w.interval} and p.fund_id = ${fund} and p.year between ${slots[0].year} and ${slots[slots.length - 1].year}`;
  const counts = (col: (i: number) => SQL) => sql`
    select array[${sql.join(cond.map((_, i) => sql`count(*) filter (where ${col(i)})`), sql`, `)}]::int[] as periods,
      count(*) filter (where ${sql.join(cond.map((_, i) => col(i)), sql` or `)}) as total`;
  // One row per donor and year, across years: per donor first.
  return sql`
    with d as (select ${sql.join(cond.map((c, i) => sql`bool_or(${c}) as ${sql.identifier(`p${i}`)}`), sql`, `)} from (${r}) r group by r.contact_id)
    ${counts((i) => sql`${sql.identifier(`p${i}`)}`)} from d`;
}

/** Days of [from, to]'s first and last periods that lie outside it. */
function edgeDays(from: string, to: string, interval: Interval): number {
  const starts = periodStarts(from, to, interval);
  return daysBetween(starts[0], from) + daysBetween(to, addDays(nextPeriod(starts[starts.length - 1], interval), -1));
}

/** The interval whose periods leave the fewest days of [from, to]'s edges to read from contributions. */
export function donorInterval(from: string, to: string): Interval {
  return edgeDays(from, to, 'month') <= edgeDays(from, to, 'week') ? 'month' : 'week';
}
