import { sql } from 'drizzle-orm';
import { ACTIVITY_TYPES } from '../../db/schema/enums.js';
import { addDays, defaultWindow } from '../../lib/periods.js';
import { num, type ReportDefinition } from './report.types.js';
import { dayStartSql, groupsIn, rowsOf } from './scope.js';

export const groupHealthReport: ReportDefinition = {
  key: 'group-health',
  name: 'Group health',
  description:
    'Per visible group in scope: active members and leaders (Leader or Assistant) now; memberships created (joined) and ended (deleted, or deactivated: from the change feed) in the window; pending membership requests; the date of its last session that met (up to `to`).',
  permissions: ['groups:read'],
  hierarchy: true,
  params: [],
  defaultWindow: (today) => defaultWindow(today, 'week', 12),
  columns: [
    { key: 'group', label: 'Group', type: 'group' },
    { key: 'members', label: 'Members', type: 'integer' },
    { key: 'leaders', label: 'Leaders', type: 'integer' },
    { key: 'joined', label: 'Joined', type: 'integer' },
    { key: 'left', label: 'Left', type: 'integer' },
    { key: 'pendingRequests', label: 'Pending requests', type: 'integer' },
    { key: 'lastSessionOn', label: 'Last session on', type: 'date' },
  ],
  async run({ tx, tenantId, timeZone, window, scope }) {
    const start = dayStartSql(window.from, timeZone);
    const end = dayStartSql(addDays(window.to, 1), timeZone);
    // lastSessionOn reads attendance_sessions directly: the attendance module exports no per-group last-session query.
    const rows = rowsOf<Record<string, unknown>>(
      await tx.execute(sql`
        with sg as (select g.id, g.name from groups g where g.tenant_id = ${tenantId} and ${groupsIn(scope!)}),
        m as (
          select m.group_id, count(*) filter (where m.is_active) as members,
            count(*) filter (where m.is_active and m.role in ('Leader', 'Assistant')) as leaders,
            count(*) filter (where m.created_at >= ${start} and m.created_at < ${end}) as joined
          from group_memberships m where m.tenant_id = ${tenantId} and m.group_id in (select id from sg) group by m.group_id
        ), l as (
          select (c.data ->> 'groupId')::bigint as group_id, count(*) as left_count from changes c
          where c.tenant_id = ${tenantId} and c.type in ('membership.deleted', 'membership.updated')
            and c.occurred_at >= ${start} and c.occurred_at < ${end}
            and (c.type = 'membership.deleted' or c.changes -> 'isActive' ->> 'to' = 'false')
          group by 1
        ), r as (
          select q.group_id, count(*) as pending from group_membership_requests q
          where q.tenant_id = ${tenantId} and q.status = 'Pending' and q.group_id in (select id from sg) group by q.group_id
        )
        select sg.id, sg.name, coalesce(m.members, 0) as members, coalesce(m.leaders, 0) as leaders, coalesce(m.joined, 0) as joined,
          coalesce(l.left_count, 0) as left_count, coalesce(r.pending, 0) as pending,
          (select to_char(max(s.date), 'YYYY-MM-DD') from attendance_sessions s
            where s.tenant_id = ${tenantId} and s.group_id = sg.id and not s.did_not_meet and s.date <= ${window.to}::date) as last_session_on
        from sg left join m on m.group_id = sg.id left join l on l.group_id = sg.id left join r on r.group_id = sg.id
        order by sg.name, sg.id`),
    );
    const out = rows.map((r) => ({
      group: { id: num(r.id), name: r.name as string },
      members: num(r.members), leaders: num(r.leaders), joined: num(r.joined), left: num(r.left_count),
      pendingRequests: num(r.pending), lastSessionOn: (r.last_session_on as string | null) ?? null,
    }));
    const sum = (k: 'members' | 'leaders' | 'joined' | 'left' | 'pendingRequests') => out.reduce((a, r) => a + r[k], 0);
    return { rows: out, totals: { groups: out.length, members: sum('members'), leaders: sum('leaders'), joined: sum('joined'), left: sum('left'), pendingRequests: sum('pendingRequests') } };
  },
};

export const eventActivitiesReport: ReportDefinition = {
  key: 'event-activities',
  name: 'Event activities',
  description:
    'Activities recorded at events starting in the window (salvations, baptisms …), per hosting group and activity type: how many activities and how many distinct contacts. Events without a group count only when no groupId is given.',
  permissions: ['events:read'],
  hierarchy: true,
  params: [],
  defaultWindow: (today) => defaultWindow(today, 'week', 12),
  columns: [
    { key: 'group', label: 'Group', type: 'group' },
    { key: 'activityType', label: 'Activity', type: 'string' },
    { key: 'count', label: 'Activities', type: 'integer' },
    { key: 'contacts', label: 'Contacts', type: 'integer' },
  ],
  async run({ tx, tenantId, window, scope }) {
    const inScope = scope!.root ? groupsIn(scope!) : sql`(g.id is null or ${groupsIn(scope!)})`;
    const rows = rowsOf<Record<string, unknown>>(
      await tx.execute(sql`
        select grouping(g.id, a.activity_type) as total_row, g.id, g.name, a.activity_type,
          count(distinct a.id) as count, count(distinct ac.contact_id) as contacts
        from event_activities a
        join events e on e.tenant_id = a.tenant_id and e.id = a.event_id
        left join groups g on g.tenant_id = e.tenant_id and g.id = e.group_id
        left join event_activity_contacts ac on ac.tenant_id = a.tenant_id and ac.activity_id = a.id
        where a.tenant_id = ${tenantId} and e.start_date between ${window.from}::date and ${window.to}::date and ${inScope}
        group by grouping sets ((g.id, g.name, a.activity_type), (a.activity_type), ())
        order by g.name nulls last, g.id nulls last, a.activity_type`),
    );
    const detail = rows.filter((r) => num(r.total_row) === 0);
    const byType = rows.filter((r) => num(r.total_row) === 2);
    const grand = rows.find((r) => num(r.total_row) === 3);
    return {
      rows: detail.map((r) => ({
        group: r.id === null ? null : { id: num(r.id), name: r.name as string },
        activityType: r.activity_type as string,
        count: num(r.count),
        contacts: num(r.contacts),
      })),
      totals: {
        count: num(grand?.count),
        contacts: num(grand?.contacts),
        byType: Object.fromEntries(ACTIVITY_TYPES.map((t) => [t, num(byType.find((r) => r.activity_type === t)?.count)])),
      },
    };
  },
};
