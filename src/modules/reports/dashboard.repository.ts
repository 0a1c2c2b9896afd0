import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { CONTACT_STATUSES } from '../../db/schema/enums.js';
import { toMinor } from '../../lib/money.js';
import { donorInterval, givingAmountsSql, givingDonorsSql } from '../finance/giving.rollups.js';
import { addDays, periodStartSql } from '../../lib/periods.js';
import type { Principal } from '../../plugins/auth.js';
import { occasionsSql } from './reports.people.js';
import { num } from './report.types.js';
import { visibleGroupFilter } from '../groups/groups.visibility.js';
import { dayStartSql, g, groupsIn, rowsOf, type HierarchyScope, type Window } from './scope.js';

/**
 * The dashboard's sections, ONE query each (modules-contract §4), every one over an index: the
 * current window and the previous one of the same length are read together and split in SQL.
 * Each section hands its query to `q`; batchQueries sends all the sections asked for in the same
 * tick as ONE statement (one round trip), each as a json array of its rows (json_agg: text, not the
 * binary jsonb built and then printed again; the week's 963 birthdays on the large bench tenant
 * spent 5 ms in jsonb_agg under load).
 */

export type Query = <T>(query: SQL) => Promise<T[]>;

export function batchQueries(tx: Db, scope: GroupTest = WHOLE_TENANT): Query {
  let pending: { query: SQL; resolve: (rows: never[]) => void; reject: (err: unknown) => void }[] = [];
  async function flush() {
    const items = pending;
    pending = [];
    try {
      const columns = items.map((it, i) => sql`(select coalesce(json_agg(x), '[]'::json) from (${it.query}) x) as ${sql.identifier(`s${i}`)}`);
      const prelude = scope.with ? sql`with ${scope.with} ` : sql``;
      const [row] = rowsOf<Record<string, never[]>>(await tx.execute(sql`${prelude}select ${sql.join(columns, sql`, `)}`));
      items.forEach((it, i) => it.resolve(row[`s${i}`]));
    } catch (err) {
      for (const it of items) it.reject(err);
    }
  }
  return <T>(query: SQL) =>
    new Promise<T[]>((resolve, reject) => {
      if (pending.length === 0) queueMicrotask(() => void flush());
      pending.push({ query, resolve: resolve as (rows: never[]) => void, reject });
    });
}

/**
 * How the sections test a group against the caller's hierarchy scope, from ONE read of the groups
 * shared by the whole batch (a materialized CTE at the head of the statement; read only when a
 * section refers to it), instead of each section testing the visibility rule again:
 * - `all`: hierarchy:all and no groupId: nothing to test;
 * - `hidden`: no hierarchy:all, no groupId: the caller sees every group but the non-public ones
 *   outside their led subtrees and own memberships (visibleGroupFilter's complement). Every Public
 *   group is visible to all, so the batch reads the tenant's non-public groups only (through
 *   groups_private_path_idx; 1,019 on the large bench tenant, where a Zone leader sees 3,986 groups),
 *   each marked visible or not;
 * - `scoped`: a groupId: the visible groups of that subtree (or that group), by their path range.
 */
export interface GroupTest {
  kind: 'all' | 'hidden' | 'scoped';
  /** The CTE the batch statement starts with (null: none). */
  with: SQL | null;
  /** SQL: the group `id` (never null) is in scope. */
  has(id: SQL): SQL;
  /** SQL: the ids of the groups not in scope (`hidden`) or in scope (`scoped`). */
  ids: SQL;
  /** `hidden`: the ids of the non-public groups the caller does see. */
  shownPrivate: SQL;
}

const NONE = sql`select null::bigint as id where false`;
const WHOLE_TENANT: GroupTest = { kind: 'all', with: null, has: () => sql`true`, ids: NONE, shownPrivate: NONE };

export function groupTest(tenantId: number, h: HierarchyScope): GroupTest {
  if (h.wholeTenant) return WHOLE_TENANT;
  if (h.root) {
    return {
      kind: 'scoped',
      with: sql`dash_groups as materialized (select g.id from groups g where g.tenant_id = ${tenantId} and ${groupsIn(h)})`,
      has: (id) => sql`${id} in (select dg.id from dash_groups dg)`,
      ids: sql`select dg.id from dash_groups dg`,
      shownPrivate: NONE,
    };
  }
  return {
    kind: 'hidden',
    with: sql`dash_private as materialized (select g.id, ${visibleGroupFilter(h.scope, g)} as visible from groups g where g.tenant_id = ${tenantId} and g.privacy <> 'Public')`,
    has: (id) => sql`${id} not in (select dp.id from dash_private dp where not dp.visible)`,
    ids: sql`select dp.id from dash_private dp where not dp.visible`,
    shownPrivate: sql`select dp.id from dash_private dp where dp.visible`,
  };
}

export interface Windows {
  current: Window;
  previous: Window;
}

/** Contacts are tenant-wide (api-contract §4): totals from contact_counts, new ones from the change feed. */
export async function peopleSection(q: Query, tenantId: number, timeZone: string, w: Windows) {
  const [r] = await q<{ by_status: Record<string, unknown> | null; cur: unknown; prev: unknown }>(sql`
      select (select jsonb_object_agg(status, n) from (select status, sum(n) as n from contact_counts where tenant_id = ${tenantId} group by status) s) as by_status,
        count(*) filter (where c.occurred_at >= ${dayStartSql(w.current.from, timeZone)}) as cur,
        count(*) filter (where c.occurred_at < ${dayStartSql(w.current.from, timeZone)}) as prev
      from changes c
      where c.tenant_id = ${tenantId} and c.occurred_at >= ${dayStartSql(w.previous.from, timeZone)} and c.occurred_at < ${dayStartSql(addDays(w.current.to, 1), timeZone)}
        and c.type = 'contact.created'`);
  const byStatus = Object.fromEntries(CONTACT_STATUSES.map((s) => [s, num(r.by_status?.[s])]));
  const newInPeriod = num(r.cur);
  return { total: Object.values(byStatus).reduce((a, n) => a + n, 0), byStatus, newInPeriod, previousNew: num(r.prev), changePct: changePct(newInPeriod, num(r.prev)) };
}

/** (current − previous) / previous in percent, two decimals; null when there is nothing to compare with. */
export function changePct(current: number, previous: number): number | null {
  return previous > 0 ? Math.round(((current - previous) / previous) * 10_000) / 100 : null;
}

/**
 * Sessions that met in both windows, per week, from the counters the database keeps at commit (as
 * the attendance module's summary reads them), never the records:
 * - the whole church: attendance_daily_counts (a row per day);
 * - a caller without hierarchy:all and no groupId (sessions without a group, Public groups, led
 *   subtrees, own groups): the whole church's days less those of the non-public groups
 *   (attendance_private_daily_counts, migration 0031) plus the sessions of the non-public groups they
 *   do see, read per such group (attendance_sessions_group_date_idx; `offset 0` keeps the lateral a
 *   probe per group). On the large bench tenant a Zone leader sees 5 of the 1,019 non-public groups:
 *   ~50 sessions read, where taking the 1,014 hidden ones off read 6,600;
 * - a groupId: the sessions of each group of that subtree, per group by the same index.
 * The attendance module's summary covers one window only, so the dashboard reads here.
 */
export async function attendanceSection(q: Query, tenantId: number, groups: GroupTest, w: Windows) {
  const window = sql`between ${w.previous.from}::date and ${w.current.to}::date`;
  const daily = sql`select d.date, d.sessions, d.present, d.first_time from attendance_daily_counts d
        where d.tenant_id = ${tenantId} and d.date ${window} and not d.did_not_meet`;
  const sessionsOf = (ids: SQL) => sql`select s.date, count(*) as sessions, sum(s.present_count) as present, sum(s.first_time_count) as first_time
        from (${ids}) sg cross join lateral (
          select s.date, s.present_count, s.first_time_count from attendance_sessions s
          where s.tenant_id = ${tenantId} and s.group_id = sg.id and s.date ${window} and not s.did_not_meet offset 0) s
        group by s.date`;
  const perDay = groups.kind === 'scoped'
    ? sessionsOf(groups.ids)
    : groups.kind === 'all'
      ? daily
      : sql`select d.date, d.sessions - coalesce(p.sessions, 0) + coalesce(x.sessions, 0) as sessions,
            d.present - coalesce(p.present, 0) + coalesce(x.present, 0) as present,
            d.first_time - coalesce(p.first_time, 0) + coalesce(x.first_time, 0) as first_time
          from (${daily}) d
          left join attendance_private_daily_counts p on p.tenant_id = ${tenantId} and p.date = d.date and not p.did_not_meet
          left join (${sessionsOf(groups.shownPrivate)}) x on x.date = d.date`;
  const rows = await q<{ period: string; cur: boolean; sessions: unknown; present: unknown; first_time: unknown }>(sql`
      select to_char(${periodStartSql(sql`x.date`, 'week')}, 'YYYY-MM-DD') as period, x.date >= ${w.current.from}::date as cur,
        sum(x.sessions) as sessions, sum(x.present) as present, sum(x.first_time) as first_time
      from (${perDay}) x group by 1, 2 order by 1`);
  const sum = (cur: boolean, k: 'sessions' | 'present' | 'first_time') => rows.filter((r) => r.cur === cur).reduce((a, r) => a + num(r[k]), 0);
  const avg = (cur: boolean) => (sum(cur, 'sessions') ? Math.round((sum(cur, 'present') / sum(cur, 'sessions')) * 100) / 100 : 0);
  const byPeriod = new Map(rows.filter((r) => r.cur).map((r) => [r.period, num(r.present)]));
  return { averagePresent: avg(true), previousAveragePresent: avg(false), changePct: changePct(avg(true), avg(false)), firstTimeGuests: sum(true, 'first_time'), byPeriod };
}

/**
 * Net giving in both windows (totals and per fund) and the current window's distinct donors, from
 * the finance module's giving rollups (giving.rollups.ts): two reads sized by days and donors, not gifts.
 */
export async function givingSection(q: Query, tenantId: number, w: Windows) {
  const [rows, [donors]] = await Promise.all([
    q<{ bucket: boolean; fund_id: unknown; fund_name: string | null; net: unknown; gifts: unknown }>(
      givingAmountsSql(tenantId, { from: w.previous.from, to: w.current.to }, (date) => sql`${date} >= ${w.current.from}::date`),
    ),
    q<{ total: unknown }>(givingDonorsSql(tenantId, { ...w.current, interval: donorInterval(w.current.from, w.current.to) })),
  ]);
  const totalRow = (cur: boolean) => rows.find((r) => r.bucket === cur && num(r.fund_id) === 0);
  const total = toMinor(totalRow(true)?.net);
  const gifts = num(totalRow(true)?.gifts);
  const previousTotal = toMinor(totalRow(false)?.net);
  return {
    total,
    donors: num(donors.total),
    averageGift: gifts ? Math.floor(total / gifts) : 0,
    previousTotal,
    changePct: changePct(total, previousTotal),
    byFund: rows.filter((r) => r.bucket && num(r.fund_id) !== 0 && num(r.gifts) > 0).map((r) => ({ fund: { id: num(r.fund_id), name: r.fund_name ?? '' }, amount: toMinor(r.net) })),
  };
}

/**
 * Groups in scope, their active members (summed from group_member_counts, a row per group that
 * migration 0027 keeps at commit, not counted over every membership) and pending requests (the
 * membership requests' unique index). The whole tenant's groups come from group_counts (0006); a
 * caller without hierarchy:all and no groupId has the whole tenant's figures less those of the
 * groups hidden from them (GroupTest `hidden`: ~1,000 rows, not the ~4,000 visible ones).
 */
export async function groupsSection(q: Query, tenantId: number, groups: GroupTest) {
  const allGroups = sql`(select coalesce(sum(c.n), 0) from group_counts c where c.tenant_id = ${tenantId})`;
  const allMembers = sql`(select coalesce(sum(c.n), 0) from group_member_counts c where c.tenant_id = ${tenantId})`;
  const membersOf = sql`(select coalesce(sum(c.n), 0) from group_member_counts c where c.tenant_id = ${tenantId} and c.group_id in (${groups.ids}))`;
  const pending = (where: SQL) => sql`(select count(*) from group_membership_requests q where q.tenant_id = ${tenantId} and q.status = 'Pending' and ${where})`;
  const [r] = await q<{ count: unknown; members: unknown; pending: unknown }>(
    groups.kind === 'all'
      ? sql`select ${allGroups} as count, ${allMembers} as members, ${pending(sql`true`)} as pending`
      : groups.kind === 'hidden'
        ? sql`select ${allGroups} - (select count(*) from (${groups.ids}) x) as count, ${allMembers} - ${membersOf} as members,
            ${pending(groups.has(sql`q.group_id`))} as pending`
        : sql`select (select count(*) from (${groups.ids}) x) as count, ${membersOf} as members, ${pending(groups.has(sql`q.group_id`))} as pending`,
  );
  return { count: num(r.count), members: num(r.members), pendingRequests: num(r.pending) };
}

/**
 * The next 5 events from today (events_start_idx), visible and in scope, with their registration
 * counts. An event without a group is visible to all, and in no groupId's scope.
 */
export async function eventsSection(q: Query, tenantId: number, groups: GroupTest, today: string) {
  const where = groups.kind === 'scoped'
    ? sql`(e.group_id is not null and ${groups.has(sql`e.group_id`)})`
    : groups.kind === 'all'
      ? sql`true`
      : sql`(e.group_id is null or ${groups.has(sql`e.group_id`)})`;
  const rows = await q<{ id: unknown; name: string; start_date: string; registrations: unknown }>(sql`
      select e.id, e.name, e.start_date::text as start_date,
        (select count(*) from event_registrations r where r.tenant_id = ${tenantId} and r.event_id = e.id) as registrations
      from events e where e.tenant_id = ${tenantId} and e.start_date >= ${today}::date and ${where}
      order by e.start_date, e.id limit 5`);
  return { upcoming: rows.map((r) => ({ id: num(r.id), name: r.name, startDate: r.start_date, registrations: num(r.registrations) })) };
}

/**
 * The visibility rule of tasks (reports.tasks.ts taskVisibleSql, the tasks module's), over the
 * batch's GroupTest rather than a test of the groups table per section: a task in scope by its
 * group (with a groupId, only that subtree's tasks), or, without a groupId, the caller's own; a
 * confidential task needs care:read or to be one's own.
 */
export function taskVisibleDashSql(auth: Principal, groups: GroupTest): SQL {
  const own = sql`(t.assignee_user_id = ${auth.userId} or t.created_by_user_id = ${auth.userId})`;
  const inScope = sql`(t.group_id is not null and ${groups.has(sql`t.group_id`)})`;
  const care = auth.permissions.has('care:read') ? sql`true` : sql`(not t.confidential or ${own})`;
  if (groups.kind === 'scoped') return sql`(${inScope} and ${care})`;
  return groups.kind === 'all' ? care : sql`((${inScope} or ${own}) and ${care})`;
}

/**
 * The caller's own open and overdue tasks (tasks_open_due_idx), and the open unassigned tasks they may
 * see: summed from task_unassigned_counts (migration 0021 keeps it at commit, per group, confidential
 * flag and creator), through the same visibility rule as the tasks themselves (taskVisibleDashSql: an
 * unassigned task is "own" to its creator), so a few thousand counter rows are read, not every open task.
 */
export async function tasksSection(q: Query, auth: Principal, groups: GroupTest, today: string) {
  const t = auth.tenantId;
  const unassigned = auth.permissions.has('tasks:read')
    ? sql`(select coalesce(sum(t.n), 0) from (
        select nullif(c.group_id, 0) as group_id, c.confidential, nullif(c.created_by_user_id, 0) as created_by_user_id, null::bigint as assignee_user_id, c.n
        from task_unassigned_counts c where c.tenant_id = ${t} and c.n <> 0) t
      where ${taskVisibleDashSql(auth, groups)})`
    : sql`0`;
  const [r] = await q<{ my_open: unknown; my_overdue: unknown; unassigned: unknown }>(sql`
      select count(*) as my_open, count(*) filter (where t.due_date < ${today}::date) as my_overdue, ${unassigned} as unassigned
      from tasks t where t.tenant_id = ${t} and t.assignee_user_id = ${auth.userId} and t.status in ('Open', 'InProgress')`);
  return { myOpen: num(r.my_open), myOverdue: num(r.my_overdue), unassigned: num(r.unassigned) };
}

/** Open (Open or InProgress) Counseling and Welfare requests, tenant-wide (care:read). */
export async function careSection(q: Query, tenantId: number) {
  const [r] = await q<{ n: unknown }>(sql`select count(*) as n from contact_requests q
      where q.tenant_id = ${tenantId} and q.type in ('Counseling', 'Welfare') and q.status in ('Open', 'InProgress')`);
  return { openRequests: num(r.n) };
}

/** Birthdays and anniversaries of the next 7 days (today included), tenant-wide as contacts are. */
export async function occasionsSection(q: Query, tenantId: number, today: string) {
  const rows = await q<{ contact_id: unknown; first_name: string; last_name: string; type: string; next_on: string; years: unknown }>(sql`${occasionsSql(tenantId, today, addDays(today, 6))}
      select o.contact_id, o.first_name, o.last_name, o.type, to_char(o.next_on, 'YYYY-MM-DD') as next_on, o.years
      from occ o
      order by o.next_on, o.last_name, o.first_name, o.contact_id`);
  const item = (r: (typeof rows)[number]) => ({ contact: { id: num(r.contact_id), firstName: r.first_name, lastName: r.last_name }, nextOn: r.next_on, years: num(r.years) });
  return { birthdays: rows.filter((r) => r.type === 'Birthday').map(item), anniversaries: rows.filter((r) => r.type === 'Anniversary').map(item) };
}
