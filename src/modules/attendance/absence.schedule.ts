import { sql } from 'drizzle-orm';
import { recordChanges } from '../../changes/recorder.js';
import { withTenant, type Db } from '../../db/client.js';
import type { Schedule } from '../../jobs/queue.js';
import type { Permission } from '../../lib/permissions.js';
import { attendanceAbsentees, rowsOf } from './attendance.queries.js';

export const ABSENCE_SCHEDULE = 'attendance.absentees';
export const ABSENCE_MISSED = 3;

/** The worker sees the whole tree of each tenant. */
const systemActor = (tenantId: number) => ({ tenantId, contactId: 0, permissions: new Set<Permission>(['hierarchy:all']) });

/**
 * Daily: every member who missed their group's last 3 sessions gets ONE `attendance.absent`
 * change per (contact, group, last missed session). attendance_absence_alerts is keyed on that
 * triple and inserted ON CONFLICT DO NOTHING, so a rerun (or a second process) emits nothing new,
 * and a member who keeps missing is reported again only once a further session is missed.
 */
export async function emitAbsences(db: Db, tenantId: number): Promise<number> {
  return withTenant(db, tenantId, async (tx) => {
    const actor = systemActor(tenantId);
    const { data } = await attendanceAbsentees(tx, actor, { missed: ABSENCE_MISSED }, { paginate: false });
    if (!data.length) return 0;
    const rows = data.map((a) => ({ contact_id: a.contact.id, group_id: a.group.id, last_session_id: a.lastSessionId }));
    const inserted = rowsOf<{ id: string | number; contact_id: string | number; group_id: string | number; last_session_id: string | number }>(
      await tx.execute(sql`
        insert into attendance_absence_alerts (tenant_id, contact_id, group_id, last_session_id)
        select ${tenantId}::bigint, x.contact_id, x.group_id, x.last_session_id
        from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as x(contact_id bigint, group_id bigint, last_session_id bigint)
        on conflict do nothing returning id, contact_id, group_id, last_session_id`),
    );
    await recordChanges(tx, { tenantId, userId: null }, inserted.map((r) => ({
      type: 'attendance.absent' as const,
      entityId: Number(r.id),
      data: { contactId: Number(r.contact_id), groupId: Number(r.group_id), missedSessions: ABSENCE_MISSED, lastSessionId: Number(r.last_session_id) },
    })));
    return inserted.length;
  });
}

export const absenceSchedule: Schedule = {
  name: ABSENCE_SCHEDULE,
  everySeconds: 24 * 60 * 60,
  async run(ctx) {
    const tenants = rowsOf<{ id: string | number }>(await ctx.db.execute(sql`select id from tenants order by id`));
    for (const t of tenants) await emitAbsences(ctx.db, Number(t.id));
  },
};
