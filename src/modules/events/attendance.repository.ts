import { and, asc, count, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { companies, attendanceRecords as t, persons } from '../../db/schema/index.js';
import type { Page } from '../../lib/pagination.js';
import { companyJoin, contactRefColumns, epochMs, idArray, isoOf, personJoin } from './contact-refs.repository.js';
import type { AttendanceItem } from './events.schemas.js';

function selectAttendance(tx: Db, tenantId: number, eventId: number) {
  return tx
    .select({ id: t.id, eventId: t.eventId, contactId: t.contactId, attendedAt: epochMs(t.attendedAt), ...contactRefColumns })
    .from(t)
    .leftJoin(persons, personJoin(tenantId, t.contactId))
    .leftJoin(companies, companyJoin(tenantId, t.contactId))
    .where(and(eq(t.tenantId, tenantId), eq(t.eventId, eventId)))
    .orderBy(asc(t.attendedAt), asc(t.id));
}

type Row = Awaited<ReturnType<typeof selectAttendance>>[number];

const toItem = (r: Row): AttendanceItem => ({
  id: r.id,
  eventId: r.eventId as number,
  contactId: r.contactId,
  contact: { id: r.contactId, firstName: r.firstName, lastName: r.lastName },
  attendedAt: isoOf(r.attendedAt),
});

export async function pageAttendance(tx: Db, tenantId: number, eventId: number, page: Page) {
  const rows = await selectAttendance(tx, tenantId, eventId).limit(page.limit).offset(page.offset);
  const [{ total }] = await tx.select({ total: count() }).from(t).where(and(eq(t.tenantId, tenantId), eq(t.eventId, eventId)));
  return { items: rows.map(toItem), total: Number(total) };
}

/**
 * One INSERT ... SELECT over the id array, ON CONFLICT DO NOTHING: contacts already there are
 * left out of the result. (Raw SQL: bigints come back as strings on pg, hence Number.)
 */
export async function insertAttendance(tx: Db, tenantId: number, eventId: number, contactIds: readonly number[]) {
  const result = await tx.execute(sql`INSERT INTO attendance_records (tenant_id, event_id, contact_id)
    SELECT ${tenantId}::bigint, ${eventId}::bigint, c FROM unnest(${idArray(contactIds)}) AS c
    ON CONFLICT DO NOTHING
    RETURNING id, contact_id, floor(extract(epoch from attended_at) * 1000)::float8 AS at`);
  const rows = (result as unknown as { rows: { id: string | number; contact_id: string | number; at: number }[] }).rows;
  return rows.map((r) => ({ id: Number(r.id), contactId: Number(r.contact_id), at: Number(r.at) }));
}

export async function deleteAttendance(tx: Db, tenantId: number, eventId: number, id: number): Promise<boolean> {
  const rows = await tx.delete(t).where(and(eq(t.tenantId, tenantId), eq(t.eventId, eventId), eq(t.id, id))).returning({ id: t.id });
  return rows.length > 0;
}
