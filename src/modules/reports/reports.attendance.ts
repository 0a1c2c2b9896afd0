import { sql, type SQL } from 'drizzle-orm';
import { defaultWindow } from '../../lib/periods.js';
import { attendanceAbsentees, attendanceSummary, firstVisitSql } from '../attendance/attendance.service.js';
import { contactNames, joinNames } from './reports.people.js';
import { num, param, pct, type ReportDefinition } from './report.types.js';
import { groupsIn, rowsOf, type HierarchyScope } from './scope.js';

const twelveWeeks = (today: string) => defaultWindow(today, 'week', 12);
const round2 = (n: number) => Math.round(n * 100) / 100;

/**
 * A session's group in scope. Sessions without a group (an event without a host) are visible to
 * every attendance reader, as in the attendance module, and count only when no groupId is given.
 * With nothing to narrow (hierarchy:all, no groupId) every session is in scope. A semi-join on the
 * scope's groups (not a probe per row): the planner may hash them once.
 */
function sessionGroupInScope(tenantId: number, h: HierarchyScope, groupIdExpr: SQL): SQL {
  if (h.wholeTenant) return sql`true`;
  const inScope = sql`${groupIdExpr} in (select g.id from groups g where g.tenant_id = ${tenantId} and ${groupsIn(h)})`;
  return h.root ? inScope : sql`(${groupIdExpr} is null or ${inScope})`;
}

export const attendanceTrendReport: ReportDefinition = {
  key: 'attendance-trend',
  name: 'Attendance trend',
  description: 'Per week or month: sessions that met, people present, guests, first-time visitors and headcounts (the attendance summary of /api/attendance/summary).',
  permissions: ['attendance:read'],
  hierarchy: true,
  params: [param('interval', 'string', { default: 'week', options: ['week', 'month'] })],
  defaultWindow: twelveWeeks,
  columns: [
    { key: 'period', label: 'Period', type: 'date' },
    { key: 'sessions', label: 'Sessions', type: 'integer' },
    { key: 'present', label: 'Present', type: 'integer' },
    { key: 'guests', label: 'Guests', type: 'integer' },
    { key: 'firstTime', label: 'First time', type: 'integer' },
    { key: 'headcount', label: 'Headcount', type: 'integer' },
  ],
  async run({ tx, auth, window, params, groupId, includeDescendants }) {
    const s = await attendanceSummary(tx, auth, { groupId, includeDescendants, from: window.from, to: window.to, interval: params.interval as 'week' | 'month' });
    return {
      rows: s.data.map((p) => ({ period: p.period, sessions: p.sessions, present: p.present, guests: p.guests, firstTime: p.firstTime, headcount: p.headcount })),
      totals: s.totals,
    };
  },
};

export const attendanceByGroupReport: ReportDefinition = {
  key: 'attendance-by-group',
  name: 'Attendance by group',
  description:
    'Per visible group in scope that met in the window: sessions, average present per session, active members now, and the average as a percentage of the members.',
  permissions: ['attendance:read'],
  hierarchy: true,
  params: [],
  defaultWindow: twelveWeeks,
  columns: [
    { key: 'group', label: 'Group', type: 'group' },
    { key: 'sessions', label: 'Sessions', type: 'integer' },
    { key: 'averagePresent', label: 'Average present', type: 'number' },
    { key: 'members', label: 'Members', type: 'integer' },
    { key: 'percentOfMembers', label: '% of members', type: 'percent' },
  ],
  async run({ tx, tenantId, window, scope }) {
    // The attendance module exports no per-group aggregate: read its tables here (one statement).
    const rows = rowsOf<Record<string, unknown>>(
      await tx.execute(sql`
        with sg as (select g.id, g.name from groups g where g.tenant_id = ${tenantId} and ${groupsIn(scope!)}),
        s as (
          select s.id, s.group_id from attendance_sessions s
          where s.tenant_id = ${tenantId} and s.group_id in (select id from sg) and s.date between ${window.from}::date and ${window.to}::date and not s.did_not_meet
        ), sc as (
          select s.group_id, count(*) as sessions from s group by s.group_id
        ), rc as (
          select s.group_id, count(*) as present from attendance_records r join s on r.session_id = s.id
          where r.tenant_id = ${tenantId} group by s.group_id
        ), m as (
          select m.group_id, count(*) as members from group_memberships m
          where m.tenant_id = ${tenantId} and m.is_active and m.group_id in (select group_id from sc) group by m.group_id
        )
        select sg.id, sg.name, sc.sessions, coalesce(rc.present, 0) as present, coalesce(m.members, 0) as members
        from sc join sg on sg.id = sc.group_id left join rc on rc.group_id = sc.group_id left join m on m.group_id = sc.group_id
        order by sg.name, sg.id`),
    );
    const out = rows.map((r) => {
      const sessions = num(r.sessions);
      const average = sessions ? round2(num(r.present) / sessions) : 0;
      const members = num(r.members);
      return { group: { id: num(r.id), name: r.name as string }, sessions, averagePresent: average, members, percentOfMembers: members ? round2((average / members) * 100) : 0, present: num(r.present) };
    });
    const sessions = out.reduce((a, r) => a + r.sessions, 0);
    const present = out.reduce((a, r) => a + r.present, 0);
    return {
      rows: out.map(({ present: _p, ...r }) => r),
      totals: { groups: out.length, sessions, present, averagePresent: sessions ? round2(present / sessions) : 0, members: out.reduce((a, r) => a + r.members, 0) },
    };
  },
};

export const firstTimeGuestsReport: ReportDefinition = {
  key: 'first-time-guests',
  name: 'First-time guests',
  description:
    'Contacts whose first attendance ever falls in the window, at a session in scope: when, at which session and group, and whether they were followed up (a task about them or a pipeline card).',
  permissions: ['attendance:read'],
  hierarchy: true,
  params: [],
  defaultWindow: twelveWeeks,
  columns: [
    { key: 'contact', label: 'Contact', type: 'contact' },
    { key: 'date', label: 'Date', type: 'date' },
    { key: 'session', label: 'Session', type: 'ref' },
    { key: 'group', label: 'Group', type: 'group' },
    { key: 'followedUp', label: 'Followed up', type: 'boolean' },
  ],
  async run({ tx, tenantId, window, scope }) {
    // tasks and pipeline_cards are read for followedUp: the tasks module exports no "has follow-up" predicate.
    const rows = rowsOf<Record<string, unknown>>(
      await tx.execute(sql`
        select fv.contact_id, ${contactNames}, to_char(fv.first_visit_on, 'YYYY-MM-DD') as date, s.id as session_id,
          coalesce(sv.name, e.name, g.name, 'Session') as session_name, g.id as group_id, g.name as group_name,
          (exists (select 1 from tasks t where t.tenant_id = ${tenantId} and t.contact_id = fv.contact_id)
            or exists (select 1 from pipeline_cards pc where pc.tenant_id = ${tenantId} and pc.contact_id = fv.contact_id)) as followed_up
        from ${firstVisitSql(tenantId)} fv
        join lateral (
          select r.session_id from attendance_records r
          where r.tenant_id = ${tenantId} and r.contact_id = fv.contact_id and r.is_first_time limit 1
        ) fr on true
        join attendance_sessions s on s.tenant_id = ${tenantId} and s.id = fr.session_id
        left join attendance_services sv on sv.tenant_id = ${tenantId} and sv.id = s.service_id
        left join events e on e.tenant_id = ${tenantId} and e.id = s.event_id
        left join groups g on g.tenant_id = ${tenantId} and g.id = s.group_id
        ${joinNames(tenantId, sql`fv.contact_id`)}
        where fv.first_visit_on between ${window.from}::date and ${window.to}::date and ${sessionGroupInScope(tenantId, scope!, sql`s.group_id`)}
        order by fv.first_visit_on, last_name, first_name, fv.contact_id`),
    );
    const out = rows.map((r) => ({
      contact: { id: num(r.contact_id), firstName: r.first_name as string, lastName: r.last_name as string },
      date: r.date as string,
      session: { id: num(r.session_id), name: r.session_name as string },
      group: r.group_id === null ? null : { id: num(r.group_id), name: r.group_name as string },
      followedUp: Boolean(r.followed_up),
    }));
    const followedUp = out.filter((r) => r.followedUp).length;
    return { rows: out, totals: { guests: out.length, followedUp, percentFollowedUp: pct(followedUp, out.length) } };
  },
};

export const absenteesReport: ReportDefinition = {
  key: 'absentees',
  name: 'Absentees',
  description:
    'Active members of groups in scope who attended none of their group\'s last `missed` sessions, as of `to` (the rule of /api/attendance/absentees; the window\'s from is not used).',
  permissions: ['attendance:read'],
  hierarchy: true,
  params: [param('missed', 'integer', { default: 3, min: 1, max: 52 })],
  defaultWindow: twelveWeeks,
  columns: [
    { key: 'contact', label: 'Contact', type: 'contact' },
    { key: 'group', label: 'Group', type: 'group' },
    { key: 'missedSessions', label: 'Missed sessions', type: 'integer' },
    { key: 'lastAttendedOn', label: 'Last attended on', type: 'date' },
  ],
  async run({ tx, auth, window, params, groupId, includeDescendants }) {
    const page = await attendanceAbsentees(tx, auth, { groupId, includeDescendants, missed: params.missed as number }, { today: window.to, paginate: false });
    return {
      rows: page.data.map((a) => ({ contact: a.contact, group: a.group, missedSessions: a.missedSessions, lastAttendedOn: a.lastAttendedOn })),
      totals: { absentees: page.data.length, contacts: new Set(page.data.map((a) => a.contact.id)).size },
    };
  },
};

const FUNNEL = [
  ['firstVisit', 'First visit'],
  ['secondVisit', 'Came back within 30 days'],
  ['threePlusVisits', 'Three or more visits'],
  ['joinedGroup', 'Joined a group'],
  ['serving', 'Serving'],
  ['baptised', 'Baptised'],
] as const;

export const retentionFunnelReport: ReportDefinition = {
  key: 'retention-funnel',
  name: 'Retention funnel',
  description:
    'Of the contacts whose first visit falls in the window (at a session in scope): how many came back within 30 days, attended three or more times (up to today), hold an active membership in any group, serve (an active membership in a group whose category purpose is Serving), and are baptised (a Baptism occasion or event activity). Counts and percentages of the first visitors.',
  permissions: ['attendance:read'],
  hierarchy: true,
  params: [],
  defaultWindow: (today) => defaultWindow(today, 'month', 12),
  columns: [
    { key: 'stage', label: 'Stage', type: 'string' },
    { key: 'label', label: 'Label', type: 'string' },
    { key: 'contacts', label: 'Contacts', type: 'integer' },
    { key: 'percent', label: '% of first visits', type: 'percent' },
  ],
  async run({ tx, tenantId, window, scope }) {
    // One index range of retention_visitors (migration 0027: a row per first visitor whose first
    // record still exists, with every fact below, kept at commit by the database from the records,
    // first visits, memberships, categories, occasions and event activities), not a hash of every
    // membership and baptism of the tenant (24,000 first visitors of a year on the large bench tenant).
    const [r] = rowsOf<Record<string, unknown>>(
      await tx.execute(sql`
        select count(*) as first_visit, count(*) filter (where v.returned_30) as second_visit, count(*) filter (where v.three_plus) as three_plus,
          count(*) filter (where v.joined) as joined_group, count(*) filter (where v.serving) as serving, count(*) filter (where v.baptised) as baptised
        from retention_visitors v
        where v.tenant_id = ${tenantId} and v.first_visit_on between ${window.from}::date and ${window.to}::date
          and ${sessionGroupInScope(tenantId, scope!, sql`v.group_id`)}`),
    );
    const counts: Record<string, number> = {
      firstVisit: num(r.first_visit), secondVisit: num(r.second_visit), threePlusVisits: num(r.three_plus),
      joinedGroup: num(r.joined_group), serving: num(r.serving), baptised: num(r.baptised),
    };
    return {
      rows: FUNNEL.map(([stage, label]) => ({ stage, label, contacts: counts[stage], percent: pct(counts[stage], counts.firstVisit) })),
      totals: counts,
    };
  },
};
