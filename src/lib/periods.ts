import { sql, type SQL } from 'drizzle-orm';

/**
 * Calendar periods in a tenant's time zone (modules-contract §0): "today", weeks that start on
 * Sunday, months. Dates are `YYYY-MM-DD` strings throughout; arithmetic is done on UTC midnights so
 * the server's own zone never leaks in.
 */

export type Interval = 'week' | 'month';

export function isTimeZone(value: string): boolean {
  if (!value || value.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));

export function isCurrency(value: string): boolean {
  return /^[A-Za-z]{3}$/.test(value) && CURRENCIES.has(value.toUpperCase());
}

const minorDigits = new Map<string, number>();

/** Digits after the decimal point of a currency's minor unit (USD 2, UGX 0, KWD 3); cached (an Intl.NumberFormat costs ~0.1 ms). */
export function minorUnitDigits(currency: string): number {
  let digits = minorDigits.get(currency);
  if (digits === undefined) {
    digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
    minorDigits.set(currency, digits);
  }
  return digits;
}

/** One formatter per time zone: building an Intl.DateTimeFormat costs far more than formatting (bench r3). */
const dateFormats = new Map<string, Intl.DateTimeFormat>();

/** The calendar date of `at` in `timeZone`. */
export function dateIn(timeZone: string, at: Date = new Date()): string {
  let format = dateFormats.get(timeZone);
  if (!format) {
    // en-CA formats as YYYY-MM-DD.
    format = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    // Time zones are validated names (isTimeZone), a few hundred at most; the bound is a guard.
    if (dateFormats.size >= 1000) dateFormats.clear();
    dateFormats.set(timeZone, format);
  }
  return format.format(at);
}

/** Today in the tenant's time zone. */
export const todayIn = (timeZone: string, now: Date = new Date()) => dateIn(timeZone, now);

const toUtc = (date: string) => new Date(`${date}T00:00:00Z`);
/** Dates the API takes run from 0001-01-01 to 9999-12-31; arithmetic that leaves the range stops at its edge (no year 0, no year 10000). */
const FIRST_DAY = toUtc('0001-01-01').getTime();
const LAST_DATE = '9999-12-31';
const LAST_DAY = toUtc(LAST_DATE).getTime();
const fromUtc = (d: Date) => new Date(Math.min(Math.max(d.getTime(), FIRST_DAY), LAST_DAY)).toISOString().slice(0, 10);

export function addDays(date: string, days: number): string {
  const d = toUtc(date);
  d.setUTCDate(d.getUTCDate() + days);
  return fromUtc(d);
}

export function addMonths(date: string, months: number): string {
  const d = toUtc(date);
  d.setUTCMonth(d.getUTCMonth() + months, 1);
  return fromUtc(d);
}

/** 0 = Sunday … 6 = Saturday. */
export const dayOfWeek = (date: string) => toUtc(date).getUTCDay();

/** The first day of the period holding `date` (weeks start on Sunday). */
export function periodStart(date: string, interval: Interval): string {
  return interval === 'week' ? addDays(date, -dayOfWeek(date)) : `${date.slice(0, 7)}-01`;
}

export function nextPeriod(start: string, interval: Interval): string {
  return interval === 'week' ? addDays(start, 7) : addMonths(start, 1);
}

/** The first days of every period that overlaps [from, to], in order (bounded by `max`). */
export function periodStarts(from: string, to: string, interval: Interval, max = 400): string[] {
  const out: string[] = [];
  for (let p = periodStart(from, interval); p <= to && out.length < max; p = nextPeriod(p, interval)) {
    out.push(p);
    // The period holding 9999-12-31 has no next (arithmetic stops at that day, never a period start).
    if (nextPeriod(p, interval) === LAST_DATE) break;
  }
  return out;
}

/** Whole days from `from` to `to` (positive when to is later). */
export function daysBetween(from: string, to: string): number {
  return Math.round((toUtc(to).getTime() - toUtc(from).getTime()) / 86_400_000);
}

/** SQL: the first day of the period of a `date` expression (weeks start on Sunday). */
export function periodStartSql(dateExpr: SQL, interval: Interval): SQL {
  return interval === 'week'
    ? sql`(${dateExpr} - extract(dow from ${dateExpr})::int)`
    : sql`date_trunc('month', ${dateExpr})::date`;
}

/** SQL: the calendar date of a timestamptz expression in a time zone. */
export function localDateSql(instantExpr: SQL, timeZone: string): SQL {
  return sql`(${instantExpr} at time zone ${timeZone})::date`;
}

/** SQL: the period starts of [from, to] as a set (`generate_series`), column `period`. */
export function periodSeriesSql(from: string, to: string, interval: Interval): SQL {
  const first = periodStart(from, interval);
  const step = interval === 'week' ? sql`interval '7 days'` : sql`interval '1 month'`;
  return sql`(select gs::date as period from generate_series(${first}::date, ${to}::date, ${step}) gs)`;
}

/** The window `[from, to]` default: the `count` whole periods ending with the current one. */
export function defaultWindow(today: string, interval: Interval, count: number): { from: string; to: string } {
  let from = periodStart(today, interval);
  for (let i = 1; i < count; i++) from = interval === 'week' ? addDays(from, -7) : addMonths(from, -1);
  return { from, to: today };
}
