import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import type { AttendanceItem, RegistrationItem } from './events.schemas.js';

/**
 * The registrations and attendance of one event for the single read, in ONE round trip, built
 * as JSON by the database. An event may carry thousands of records: row-by-row decoding (a Date
 * per timestamp, then an ISO string again) cost more than the query itself. Instants are
 * formatted exactly as Date.toISOString() does, so both paths give the same strings.
 */
const iso = (column: string) => sql.raw(`to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`);

const contactJson = sql.raw(
  `json_build_object('id', r.contact_id, 'firstName', coalesce(p.first_name, c.name, ''), 'lastName', coalesce(p.last_name, ''))`,
);

function recordsJoin(table: 'event_registrations' | 'attendance_records', tenantId: number, eventId: number) {
  return sql`FROM ${sql.raw(table)} r
    LEFT JOIN persons p ON p.tenant_id = r.tenant_id AND p.contact_id = r.contact_id
    LEFT JOIN companies c ON c.tenant_id = r.tenant_id AND c.contact_id = r.contact_id
    WHERE r.tenant_id = ${tenantId} AND r.event_id = ${eventId}`;
}

export async function eventRosters(tx: Db, tenantId: number, eventId: number): Promise<{ registrations: RegistrationItem[]; attendance: AttendanceItem[] }> {
  const result = await tx.execute(sql`SELECT
    (SELECT coalesce(json_agg(json_build_object(
        'id', r.id, 'eventId', r.event_id, 'contactId', r.contact_id, 'contact', ${contactJson}, 'createdAt', ${iso('r.created_at')}
      ) ORDER BY r.id), '[]'::json)
      ${recordsJoin('event_registrations', tenantId, eventId)}) AS registrations,
    (SELECT coalesce(json_agg(json_build_object(
        'id', r.id, 'eventId', r.event_id, 'contactId', r.contact_id, 'contact', ${contactJson}, 'attendedAt', ${iso('r.attended_at')}
      ) ORDER BY r.attended_at, r.id), '[]'::json)
      ${recordsJoin('attendance_records', tenantId, eventId)}) AS attendance`);
  const [row] = (result as unknown as { rows: { registrations: RegistrationItem[] | string; attendance: AttendanceItem[] | string }[] }).rows;
  // Both drivers decode json columns; a string would mean a driver that does not.
  const decode = <T>(v: T[] | string): T[] => (typeof v === 'string' ? (JSON.parse(v) as T[]) : v);
  return { registrations: decode(row.registrations), attendance: decode(row.attendance) };
}
