import { sql, type SQL } from 'drizzle-orm';
import type { Principal } from '../../plugins/auth.js';
import { addDays, defaultWindow } from '../../lib/periods.js';
import { num, type ReportDefinition } from './report.types.js';
import { dayStartSql, groupsIn, rowsOf, type HierarchyScope } from './scope.js';

/**
 * The tasks the caller may see (modules-contract §2) as SQL over `t`: with a group in scope (tasks
 * without a group need hierarchy:all and no groupId), or created by or assigned to the caller;
 * confidential ones only to their assignee, creator and holders of care:read. The tasks module
 * exports no such predicate, so it is written here over its table.
 */
export function taskVisibleSql(tenantId: number, auth: Principal, h: HierarchyScope): SQL {
  const inScope = sql`exists (select 1 from groups g where g.tenant_id = ${tenantId} and g.id = t.group_id and ${groupsIn(h)})`;
  const own = sql`(t.assignee_user_id = ${auth.userId} or t.created_by_user_id = ${auth.userId})`;
  const byGroup = h.root ? inScope : h.scope.all ? sql`true` : sql`(t.group_id is not null and ${inScope})`;
  const care = auth.permissions.has('care:read') ? sql`true` : sql`(not t.confidential or ${own})`;
  // With groupId, only the tasks of that subtree (own tasks elsewhere are not "in scope").
  return h.root ? sql`(${byGroup} and ${care})` : sql`((${byGroup} or ${own}) and ${care})`;
}

export const taskThroughputReport: ReportDefinition = {
  key: 'task-throughput',
  name: 'Task throughput',
  description:
    'Per assignee (unassigned tasks as one row with no user), over the tasks the caller may see: tasks created in the window (opened), completed in the window, overdue now (due before today, Open or InProgress), and the median days from creation to completion of those completed in the window.',
  permissions: ['tasks:read'],
  hierarchy: true,
  params: [],
  defaultWindow: (today) => defaultWindow(today, 'week', 12),
  columns: [
    { key: 'assignee', label: 'Assignee', type: 'user' },
    { key: 'opened', label: 'Opened', type: 'integer' },
    { key: 'completed', label: 'Completed', type: 'integer' },
    { key: 'overdue', label: 'Overdue', type: 'integer' },
    { key: 'medianDaysToComplete', label: 'Median days to complete', type: 'number' },
  ],
  async run({ tx, auth, tenantId, timeZone, today, window, scope }) {
    const start = dayStartSql(window.from, timeZone);
    const end = dayStartSql(addDays(window.to, 1), timeZone);
    const rows = rowsOf<Record<string, unknown>>(
      await tx.execute(sql`
        with t as (
          select t.* from tasks t where t.tenant_id = ${tenantId} and ${taskVisibleSql(tenantId, auth, scope!)}
        ), a as (
          select t.assignee_user_id,
            count(*) filter (where t.created_at >= ${start} and t.created_at < ${end}) as opened,
            count(*) filter (where t.status = 'Done' and t.completed_at >= ${start} and t.completed_at < ${end}) as completed,
            count(*) filter (where t.status in ('Open', 'InProgress') and t.due_date < ${today}::date) as overdue,
            percentile_cont(0.5) within group (order by extract(epoch from t.completed_at - t.created_at) / 86400)
              filter (where t.status = 'Done' and t.completed_at >= ${start} and t.completed_at < ${end}) as median_days
          from t group by t.assignee_user_id
        )
        select a.*, u.username from a left join users u on u.tenant_id = ${tenantId} and u.id = a.assignee_user_id
        where a.opened > 0 or a.completed > 0 or a.overdue > 0
        order by a.assignee_user_id is null, u.username, a.assignee_user_id`),
    );
    const out = rows.map((r) => ({
      assignee: r.assignee_user_id === null ? null : { id: num(r.assignee_user_id), username: (r.username as string | null) ?? '' },
      opened: num(r.opened), completed: num(r.completed), overdue: num(r.overdue),
      medianDaysToComplete: r.median_days === null ? null : Math.round(num(r.median_days) * 10) / 10,
    }));
    return {
      rows: out,
      totals: { opened: out.reduce((a, r) => a + r.opened, 0), completed: out.reduce((a, r) => a + r.completed, 0), overdue: out.reduce((a, r) => a + r.overdue, 0) },
    };
  },
};
