import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { BadRequestError } from '../../lib/errors.js';
import { defaultWindow, periodSeriesSql, periodStartSql, periodStarts, todayIn, type Interval } from '../../lib/periods.js';
import { toPage, type PageResult } from '../../lib/pagination.js';
import type { Principal } from '../../plugins/auth.js';
import { loadTenantSettings } from '../../tenancy/settings.js';
import { loadAttendanceScope, type HierarchyQuery } from './attendance.scope.js';

/**
 * Attendance queries other modules reuse (search, reports, the dashboard): they call these rather
 * than read the attendance tables. Every function takes the caller's transaction (bound to the
 * tenant by withTenant) and answers in one or two statements.
 */

/** Rows of tx.execute on either driver. */
export function rowsOf<T>(result: unknown): T[] {
  return (result as { rows: T[] }).rows;
}

/**
 * SQL: the ids of the tenant's contacts with an attendance record (any source) on a session dated on
 * or after `sinceDate` (YYYY-MM-DD), as a subquery: `contacts.id in ${contactsAttendedSinceSql(t, d)}`.
 * Served by attendance_records_date_idx.
 */
export function contactsAttendedSinceSql(tenantId: number, sinceDate: string): SQL {
  return sql`(select ar.contact_id from attendance_records ar where ar.tenant_id = ${tenantId} and ar.date >= ${sinceDate}::date)`;
}

/**
 * SQL: a relation `(contact_id, first_visit_on date)`, one row per contact who ever attended: the
 * date of their first record (the one marked isFirstTime). Join it:
 * `left join ${firstVisitSql(t)} fv on fv.contact_id = contacts.id`.
 */
export function firstVisitSql(tenantId: number): SQL {
  return sql`(select fv.contact_id, fv.date as first_visit_on from contact_first_visits fv where fv.tenant_id = ${tenantId})`;
}

/**
 * SQL: a relation `(contact_id, first_visit_on date, group_id, visits, returned_on date)`, one row
 * per contact whose first record still exists: its date and group (null: an event without a
 * host), how many records the contact has, and the date of the first other record on or after the
 * first visit (null: none). Kept per contact by migration 0015's triggers, so a year of first
 * visitors is read without probing their records.
 */
export function firstVisitorsSql(tenantId: number): SQL {
  return sql`(select fv.contact_id, fv.date as first_visit_on, fv.group_id, fv.visits, fv.returned_on
    from contact_first_visits fv where fv.tenant_id = ${tenantId} and fv.first_kept)`;
}

export interface SummaryQuery extends HierarchyQuery {
  serviceId?: number;
  from?: string;
  to?: string;
  interval?: Interval;
}

export interface SummaryPeriod {
  period: string;
  sessions: number;
  present: number;
  guests: number;
  firstTime: number;
  headcount: number;
  averagePresent: number;
}

export interface Summary {
  from: string;
  to: string;
  interval: Interval;
  data: SummaryPeriod[];
  totals: { sessions: number; present: number; guests: number; firstTime: number; headcount: number };
}

export const MAX_PERIODS = 400;

/** The window: default the 12 weeks (or months) ending with the current one, in the tenant's zone. */
export function summaryWindow(timeZone: string, query: { from?: string; to?: string; interval?: Interval }) {
  const interval: Interval = query.interval ?? 'week';
  const fallback = defaultWindow(todayIn(timeZone), interval, 12);
  const from = query.from ?? (query.to && query.to < fallback.from ? query.to : fallback.from);
  const to = query.to ?? (query.from && query.from > fallback.to ? query.from : fallback.to);
  if (to < from) throw new BadRequestError('querystring/from must not be after to');
  if (periodStarts(from, to, interval, MAX_PERIODS + 1).length > MAX_PERIODS) throw new BadRequestError(`A summary covers at most ${MAX_PERIODS} periods`);
  return { from, to, interval };
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/**
 * GET /api/attendance/summary in the caller's transaction. ONE statement over the counters that
 * migration 0015's triggers keep at commit: with nothing narrowing the scope (hierarchy:all, no
 * groupId, no serviceId) the tenant's daily rollup (a few hundred rows a year: the whole church's
 * 52 weeks no longer count 1M records), else the sessions in scope with their own counters (a
 * Zone's year: ~1,500 sessions). Per period of a generate_series left join, every period present,
 * empty ones zero. present counts every record (regular, guest, volunteer, check-in); sessions
 * marked didNotMeet are left out.
 */
export async function attendanceSummary(tx: Db, auth: Pick<Principal, 'tenantId' | 'permissions' | 'contactId'>, query: SummaryQuery): Promise<Summary> {
  const t = auth.tenantId;
  // The time zone only places the default window: a caller that gives both dates (the attendance-trend
  // report, whose service has read the settings already) costs no second read of the tenant.
  const timeZone = query.from !== undefined && query.to !== undefined ? 'UTC' : (await loadTenantSettings(tx, t)).timeZone;
  const { from, to, interval } = summaryWindow(timeZone, query);
  const scope = await loadAttendanceScope(tx, auth, query);
  const perPeriod = scope.whole && query.serviceId === undefined
    ? sql`
        select ${periodStartSql(sql`d.date`, interval)} as period, sum(d.sessions) as sessions, sum(d.present) as present, sum(d.guests) as guests,
          sum(d.first_time) as first_time, sum(d.headcount) as headcount
        from attendance_daily_counts d
        where d.tenant_id = ${t} and d.date between ${from}::date and ${to}::date and not d.did_not_meet
        group by 1`
    : sql`
        select ${periodStartSql(sql`s.date`, interval)} as period, count(*) as sessions, sum(s.present_count) as present, sum(s.guest_count) as guests,
          sum(s.first_time_count) as first_time, sum(s.headcount_total) as headcount
        from attendance_sessions s
        where s.tenant_id = ${t} and s.date between ${from}::date and ${to}::date and not s.did_not_meet
          and ${scope.on(sql`s.group_id`)} ${query.serviceId !== undefined ? sql`and s.source = 'Service' and s.service_id = ${query.serviceId}` : sql``}
        group by 1`;
  const rows = rowsOf<{ period: string; sessions: string | number; present: string; guests: string; first_time: string; headcount: string }>(
    await tx.execute(sql`
      with x as (${perPeriod})
      select to_char(p.period, 'YYYY-MM-DD') as period, coalesce(x.sessions, 0)::bigint as sessions, coalesce(x.present, 0)::bigint as present,
        coalesce(x.guests, 0)::bigint as guests, coalesce(x.first_time, 0)::bigint as first_time, coalesce(x.headcount, 0)::bigint as headcount
      from ${periodSeriesSql(from, to, interval)} p left join x on x.period = p.period
      order by p.period`),
  );
  const data = rows.map((r) => {
    const sessions = Number(r.sessions);
    const present = Number(r.present);
    return {
      period: r.period, sessions, present, guests: Number(r.guests), firstTime: Number(r.first_time), headcount: Number(r.headcount),
      averagePresent: sessions ? round2(present / sessions) : 0,
    };
  });
  const sum = (key: 'sessions' | 'present' | 'guests' | 'firstTime' | 'headcount') => data.reduce((acc, p) => acc + p[key], 0);
  return {
    from, to, interval, data,
    totals: { sessions: sum('sessions'), present: sum('present'), guests: sum('guests'), firstTime: sum('firstTime'), headcount: sum('headcount') },
  };
}

export interface AbsenteesQuery extends HierarchyQuery {
  missed?: number;
  page?: number;
  limit?: number;
}

export interface Absentee {
  contact: { id: number; firstName: string; lastName: string };
  group: { id: number; name: string };
  missedSessions: number;
  lastAttendedOn: string | null;
  /** The most recent of the missed sessions (the schedule dedupes on it). */
  lastSessionId: number;
}

/**
 * The absentees rule of modules-contract §1 as ONE statement: for each group in scope, its last
 * `missed` sessions that met, up to today in the tenant's zone (a lateral top-N on
 * attendance_sessions_group_date_idx; a group with fewer lists nobody); its active members with no
 * record at any of them (one probe of attendance_records_session_contact_uq per missed session of the
 * member's own group, `unnest(ids)`: the `last` rows of every group scanned per member made the whole
 * church of the large bench tenant take 22.7 s, 1.0–1.3 s now, and a 20,000-group tenant minutes); the
 * page and the total (a window count) together. lastAttendedOn is the member's latest record at that group's sessions.
 */
export async function attendanceAbsentees(
  tx: Db,
  auth: Pick<Principal, 'tenantId' | 'permissions' | 'contactId'>,
  query: AbsenteesQuery,
  options: { today?: string; paginate?: boolean } = {},
): Promise<PageResult<Absentee>> {
  const t = auth.tenantId;
  const missed = query.missed ?? 3;
  if (!Number.isInteger(missed) || missed < 1 || missed > 52) throw new BadRequestError('querystring/missed must be between 1 and 52');
  const page = toPage(query);
  const today = options.today ?? todayIn((await loadTenantSettings(tx, t)).timeZone);
  const scope = await loadAttendanceScope(tx, auth, query);
  if (scope.empty) return { data: [], total: 0, page: page.page, limit: page.limit };
  const paging = options.paginate === false ? sql`` : sql`limit ${page.limit} offset ${page.offset}`;
  const rows = rowsOf<{
    contact_id: string | number; first_name: string; last_name: string; group_id: string | number; group_name: string;
    last_session_id: string | number; last_attended_on: string | null; total: string | number;
  }>(
    await tx.execute(sql`
      with sg as (
        select g.id, g.name from groups g where g.tenant_id = ${t} and ${scope.on(sql`g.id`)}
      ), last as (
        select sg.id as group_id, sg.name as group_name, x.id as session_id, x.date
        from sg cross join lateral (
          select s.id, s.date from attendance_sessions s
          where s.tenant_id = ${t} and s.group_id = sg.id and not s.did_not_meet and s.date <= ${today}::date
          order by s.date desc, s.id desc limit ${missed}
        ) x
      ), full_groups as (
        select group_id, group_name, array_agg(session_id order by date desc, session_id desc) as ids
        from last group by group_id, group_name having count(*) = ${missed}
      ), absent as (
        select m.contact_id, f.group_id, f.group_name, f.ids[1] as last_session_id
        from full_groups f join group_memberships m on m.tenant_id = ${t} and m.group_id = f.group_id and m.is_active
        where not exists (
          select 1 from unnest(f.ids) as u(session_id)
          join attendance_records r on r.tenant_id = ${t} and r.session_id = u.session_id and r.contact_id = m.contact_id)
      )
      select a.contact_id, coalesce(p.first_name, c.name, '') as first_name, coalesce(p.last_name, '') as last_name,
        a.group_id, a.group_name, a.last_session_id,
        (select to_char(max(r.date), 'YYYY-MM-DD') from attendance_records r
          where r.tenant_id = ${t} and r.contact_id = a.contact_id and r.group_id = a.group_id) as last_attended_on,
        count(*) over () as total
      from absent a
        left join persons p on p.tenant_id = ${t} and p.contact_id = a.contact_id
        left join companies c on c.tenant_id = ${t} and c.contact_id = a.contact_id
      order by a.group_name, a.group_id, last_name, first_name, a.contact_id
      ${paging}`),
  );
  const data = rows.map((r) => ({
    contact: { id: Number(r.contact_id), firstName: r.first_name, lastName: r.last_name },
    group: { id: Number(r.group_id), name: r.group_name },
    missedSessions: missed,
    lastAttendedOn: r.last_attended_on,
    lastSessionId: Number(r.last_session_id),
  }));
  let total = rows.length ? Number(rows[0].total) : 0;
  if (!rows.length && page.offset > 0 && options.paginate !== false) {
    // A page past the end still reports the true total.
    total = (await attendanceAbsentees(tx, auth, { ...query, page: 1, limit: 1 }, { today })).total;
  }
  return { data, total, page: page.page, limit: page.limit };
}
