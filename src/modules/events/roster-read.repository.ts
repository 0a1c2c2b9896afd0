import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import type { AttendanceItem, RegistrationItem } from './events.schemas.js';

/** How many registrations, attendance records and activities an event's single read carries; the rest through their list routes. */
export const ROSTER_IN_READ = 100;

type Raw = {
  kind: 'r' | 'a';
  id: string | number;
  event_id: string | number;
  contact_id: string | number | null;
  at: string | number;
  first_name: string;
  last_name: string;
  registration_count: string | number;
  attendance_count: string | number;
};

/**
 * The first ROSTER_IN_READ registrations and attendance records of one event for the single read, and
 * how many it holds of each, in ONE query (the counts are uncorrelated sub-selects on the event's index). An event may hold
 * thousands of records: this path skips the query builder's per-column mapping and the driver's
 * Date per row, which together cost more than the query (bench/events-smoke.ts). Raw rows carry
 * bigints as strings on pg, hence Number().
 */
export async function eventRosters(tx: Db, tenantId: number, eventId: number) {
  const result = await tx.execute(sql`
    SELECT r.kind, r.id, r.event_id, r.contact_id, floor(extract(epoch from r.at) * 1000)::float8 AS at,
           coalesce(p.first_name, c.name, '') AS first_name, coalesce(p.last_name, '') AS last_name,
           (SELECT count(*) FROM event_registrations WHERE tenant_id = ${tenantId} AND event_id = ${eventId}) AS registration_count,
           (SELECT count(*) FROM attendance_records WHERE tenant_id = ${tenantId} AND event_id = ${eventId}) AS attendance_count
    FROM (
      (SELECT 'r' AS kind, id, tenant_id, event_id, contact_id, created_at AS at, NULL::timestamptz AS sort_at
        FROM event_registrations WHERE tenant_id = ${tenantId} AND event_id = ${eventId} ORDER BY id LIMIT ${ROSTER_IN_READ})
      UNION ALL
      (SELECT 'a', id, tenant_id, event_id, contact_id, attended_at, attended_at
        FROM attendance_records WHERE tenant_id = ${tenantId} AND event_id = ${eventId} ORDER BY attended_at, id LIMIT ${ROSTER_IN_READ})
    ) r
    LEFT JOIN persons p ON p.tenant_id = r.tenant_id AND p.contact_id = r.contact_id
    LEFT JOIN companies c ON c.tenant_id = r.tenant_id AND c.contact_id = r.contact_id
    ORDER BY r.kind DESC, r.sort_at, r.id`);
  const registrations: RegistrationItem[] = [];
  const attendance: AttendanceItem[] = [];
  // Records added together share one instant: format each distinct one once.
  const isoCache = new Map<number, string>();
  const rows = (result as unknown as { rows: Raw[] }).rows;
  for (const r of rows) {
    const ms = Number(r.at);
    let iso = isoCache.get(ms);
    if (iso === undefined) isoCache.set(ms, (iso = new Date(ms).toISOString()));
    // An attendance record of an erased person has no contact (a registration always has one).
    const contactId = r.contact_id === null ? null : Number(r.contact_id);
    const base = { id: Number(r.id), eventId: Number(r.event_id), contactId, contact: contactId === null ? null : { id: contactId, firstName: r.first_name, lastName: r.last_name } };
    if (r.kind === 'r') registrations.push({ ...base, contactId: contactId!, contact: base.contact!, createdAt: iso });
    else attendance.push({ ...base, attendedAt: iso });
  }
  return {
    registrations,
    attendance,
    registrationCount: rows.length ? Number(rows[0].registration_count) : 0,
    attendanceCount: rows.length ? Number(rows[0].attendance_count) : 0,
  };
}
