import { and, asc, count, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { attendanceRecords, companies, eventRegistrations, persons } from '../../db/schema/index.js';
import type { Page } from '../../lib/pagination.js';
import { companyJoin, contactRefColumns, epochMs, idArray, personJoin } from './contact-refs.repository.js';
import type { ContactRef } from './events.schemas.js';

/**
 * The two roster tables have one shape: (tenant, event, contact) plus the instant the record was
 * made (`created_at` of a registration, `attended_at` of an attendance record). Registrations read
 * in the order they were made, attendance in the order people arrived.
 */
const TABLES = {
  registrations: { table: eventRegistrations, at: eventRegistrations.createdAt, order: [asc(eventRegistrations.id)] },
  attendance: { table: attendanceRecords, at: attendanceRecords.attendedAt, order: [asc(attendanceRecords.attendedAt), asc(attendanceRecords.id)] },
};

export type RosterKind = keyof typeof TABLES;

/** A roster row: `at` is the record's instant in epoch milliseconds; an attendance record of an erased person has no contact. */
export interface RosterRow {
  id: number;
  contactId: number | null;
  at: number;
}

export async function pageRoster(tx: Db, kind: RosterKind, tenantId: number, eventId: number, page: Page) {
  const { table: t, at, order } = TABLES[kind];
  const where = and(eq(t.tenantId, tenantId), eq(t.eventId, eventId));
  const rows = await tx
    .select({ id: t.id, contactId: t.contactId, at: epochMs(at), ...contactRefColumns })
    .from(t)
    .leftJoin(persons, personJoin(tenantId, t.contactId))
    .leftJoin(companies, companyJoin(tenantId, t.contactId))
    .where(where)
    .orderBy(...order)
    .limit(page.limit)
    .offset(page.offset);
  const [{ total }] = await tx.select({ total: count() }).from(t).where(where);
  const items = rows.map(({ firstName, lastName, ...row }) => ({ row, contact: row.contactId === null ? null : ({ id: row.contactId, firstName, lastName } satisfies ContactRef) }));
  return { items, total: Number(total) };
}

/**
 * Registrations: one INSERT ... SELECT over the id array, ON CONFLICT DO NOTHING: contacts already there are
 * left out of the result. (Raw SQL: bigints come back as strings on pg, hence Number.)
 */
export async function insertRoster(tx: Db, kind: 'registrations', tenantId: number, eventId: number, contactIds: readonly number[]): Promise<RosterRow[]> {
  const { table, at } = TABLES[kind];
  const result = await tx.execute(sql`INSERT INTO ${table} (tenant_id, event_id, contact_id)
    SELECT ${tenantId}::bigint, ${eventId}::bigint, c FROM unnest(${idArray(contactIds)}) AS c
    ON CONFLICT DO NOTHING
    RETURNING id, contact_id, ${epochMs(sql`${sql.identifier(at.name)}`)} AS at`);
  const rows = (result as unknown as { rows: { id: string | number; contact_id: string | number; at: number }[] }).rows;
  return rows.map((r) => ({ id: Number(r.id), contactId: Number(r.contact_id), at: Number(r.at) }));
}

/** Deletes one row of the event's roster; returns it (id, contact), or undefined when there is none. */
export async function deleteRosterRow(tx: Db, kind: RosterKind, tenantId: number, eventId: number, id: number): Promise<{ id: number; contactId: number | null } | undefined> {
  const { table: t } = TABLES[kind];
  const [row] = await tx.delete(t).where(and(eq(t.tenantId, tenantId), eq(t.eventId, eventId), eq(t.id, id))).returning({ id: t.id, contactId: t.contactId });
  return row;
}
