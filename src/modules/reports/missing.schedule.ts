import { sql } from 'drizzle-orm';
import { recordChanges } from '../../changes/recorder.js';
import { withTenant, type Db } from '../../db/client.js';
import type { JobContext, Schedule } from '../../jobs/queue.js';
import { addDays, periodStart, todayIn } from '../../lib/periods.js';
import { rowsOf } from './scope.js';

export const MISSING_SCHEDULE = 'reports.missing';

/**
 * The last week whose report is due: a weekly report for the week starting Sunday S is due by the
 * Monday after (S + 8). On a Sunday that is the week before last (already handled on the Monday
 * before; the dedupe table keeps it at once).
 */
export function dueWeek(today: string): string {
  return addDays(periodStart(addDays(today, -1), 'week'), -7);
}

/**
 * For one tenant: every (active weekly template, group of its category) without a submission for
 * the due week gets ONE report.missing (deduplicated by report_missing_notices), in one transaction.
 */
export async function emitMissingFor(db: Db, tenantId: number): Promise<number> {
  return withTenant(db, tenantId, async (tx) => {
    const [tenant] = rowsOf<{ time_zone: string }>(await tx.execute(sql`select time_zone from tenants where id = ${tenantId}`));
    if (!tenant) return 0;
    const period = dueWeek(todayIn(tenant.time_zone));
    const rows = rowsOf<{ template_id: string | number; group_id: string | number; template_name: string; group_name: string }>(
      await tx.execute(sql`
        with due as (
          select t.id as template_id, g.id as group_id from report_templates t
          join groups g on g.tenant_id = t.tenant_id and g.category_id = t.group_category_id
          where t.tenant_id = ${tenantId} and t.is_active and t.frequency = 'Weekly'
            and not exists (select 1 from report_submissions s where s.tenant_id = t.tenant_id and s.template_id = t.id and s.period = ${period}::date and s.group_id = g.id)
        ), fresh as (
          insert into report_missing_notices (tenant_id, template_id, group_id, period)
          select ${tenantId}, template_id, group_id, ${period}::date from due
          on conflict do nothing
          returning template_id, group_id
        )
        select f.template_id, f.group_id, t.name as template_name, g.name as group_name from fresh f
        join report_templates t on t.tenant_id = ${tenantId} and t.id = f.template_id
        join groups g on g.tenant_id = ${tenantId} and g.id = f.group_id
        order by f.template_id, f.group_id`),
    );
    await recordChanges(
      tx,
      { tenantId, userId: null },
      rows.map((r) => ({
        type: 'report.missing' as const,
        entityId: Number(r.template_id),
        data: { groupId: Number(r.group_id), templateId: Number(r.template_id), period, groupName: r.group_name, templateName: r.template_name },
      })),
    );
    return rows.length;
  });
}

/**
 * Runs hourly so that Monday in every tenant's time zone is caught within the hour of its start
 * (a daily run would come up to a day late for zones far from the server's); the dedupe table
 * makes the extra runs free of repeats.
 */
export const missingReportsSchedule: Schedule = {
  name: MISSING_SCHEDULE,
  everySeconds: 3600,
  async run(ctx: JobContext) {
    // Across tenants (the worker's connection is not bound to one): only tenants with an active weekly template.
    const tenants = rowsOf<{ tenant_id: string | number }>(
      await ctx.db.execute(sql`select distinct tenant_id from report_templates where is_active and frequency = 'Weekly' order by tenant_id`),
    );
    for (const t of tenants) {
      try {
        await emitMissingFor(ctx.db, Number(t.tenant_id));
      } catch (err) {
        ctx.log.error({ err, tenantId: t.tenant_id }, 'report.missing schedule failed for a tenant');
      }
    }
  },
};
