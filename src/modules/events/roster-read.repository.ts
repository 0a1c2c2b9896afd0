import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import type { ContactRef } from './events.schemas.js';

export interface RosterRow {
  id: number;
  eventId: number;
  contactId: number;
  contact: ContactRef;
  /** created_at of a registration, attended_at of an attendance record, as epoch ms. */
  at: number;
}

const ROSTERS = {
  registrations: { table: sql.raw('event_registrations'), at: sql.raw('r.created_at'), order: sql.raw('r.id') },
  attendance: { table: sql.raw('attendance_records'), at: sql.raw('r.attended_at'), order: sql.raw('r.attended_at, r.id') },
};

/**
 * Every record of one event's roster, for the single event read. An event may hold thousands:
 * this one path skips the query builder's per-column mapping and the driver's Date per row, which
 * together cost more than the query (bench/events-smoke.ts). Raw rows carry bigints as strings
 * on pg, hence Number().
 */
export async function rosterRows(tx: Db, kind: keyof typeof ROSTERS, tenantId: number, eventId: number): Promise<RosterRow[]> {
  const { table, at, order } = ROSTERS[kind];
  const result = await tx.execute(sql`SELECT r.id, r.event_id, r.contact_id,
      floor(extract(epoch from ${at}) * 1000)::float8 AS at,
      coalesce(p.first_name, c.name, '') AS first_name, coalesce(p.last_name, '') AS last_name
    FROM ${table} r
    LEFT JOIN persons p ON p.tenant_id = r.tenant_id AND p.contact_id = r.contact_id
    LEFT JOIN companies c ON c.tenant_id = r.tenant_id AND c.contact_id = r.contact_id
    WHERE r.tenant_id = ${tenantId} AND r.event_id = ${eventId}
    ORDER BY ${order}`);
  type Raw = { id: string | number; event_id: string | number; contact_id: string | number; at: number; first_name: string; last_name: string };
  return (result as unknown as { rows: Raw[] }).rows.map((r) => {
    const contactId = Number(r.contact_id);
    return { id: Number(r.id), eventId: Number(r.event_id), contactId, contact: { id: contactId, firstName: r.first_name, lastName: r.last_name }, at: Number(r.at) };
  });
}
