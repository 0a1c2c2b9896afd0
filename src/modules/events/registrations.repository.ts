import { and, asc, count, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { companies, eventRegistrations as t, persons } from '../../db/schema/index.js';
import type { Page } from '../../lib/pagination.js';
import { companyJoin, contactRefColumns, epochMs, idArray, isoOf, personJoin } from './contact-refs.repository.js';
import type { RegistrationItem } from './events.schemas.js';

function selectRegistrations(tx: Db, tenantId: number, eventId: number) {
  return tx
    .select({ id: t.id, eventId: t.eventId, contactId: t.contactId, createdAt: epochMs(t.createdAt), ...contactRefColumns })
    .from(t)
    .leftJoin(persons, personJoin(tenantId, t.contactId))
    .leftJoin(companies, companyJoin(tenantId, t.contactId))
    .where(and(eq(t.tenantId, tenantId), eq(t.eventId, eventId)))
    .orderBy(asc(t.id));
}

type Row = Awaited<ReturnType<typeof selectRegistrations>>[number];

const toItem = (r: Row): RegistrationItem => ({
  id: r.id,
  eventId: r.eventId,
  contactId: r.contactId,
  contact: { id: r.contactId, firstName: r.firstName, lastName: r.lastName },
  createdAt: isoOf(r.createdAt),
});

export async function pageRegistrations(tx: Db, tenantId: number, eventId: number, page: Page) {
  const rows = await selectRegistrations(tx, tenantId, eventId).limit(page.limit).offset(page.offset);
  const [{ total }] = await tx.select({ total: count() }).from(t).where(and(eq(t.tenantId, tenantId), eq(t.eventId, eventId)));
  return { items: rows.map(toItem), total: Number(total) };
}

/**
 * One INSERT ... SELECT over the id array, ON CONFLICT DO NOTHING: contacts already there are
 * left out of the result. (Raw SQL: bigints come back as strings on pg, hence Number.)
 */
export async function insertRegistrations(tx: Db, tenantId: number, eventId: number, contactIds: readonly number[]) {
  const result = await tx.execute(sql`INSERT INTO event_registrations (tenant_id, event_id, contact_id)
    SELECT ${tenantId}::bigint, ${eventId}::bigint, c FROM unnest(${idArray(contactIds)}) AS c
    ON CONFLICT DO NOTHING
    RETURNING id, contact_id, floor(extract(epoch from created_at) * 1000)::float8 AS at`);
  const rows = (result as unknown as { rows: { id: string | number; contact_id: string | number; at: number }[] }).rows;
  return rows.map((r) => ({ id: Number(r.id), contactId: Number(r.contact_id), at: Number(r.at) }));
}

export async function deleteRegistration(tx: Db, tenantId: number, eventId: number, id: number): Promise<boolean> {
  const rows = await tx.delete(t).where(and(eq(t.tenantId, tenantId), eq(t.eventId, eventId), eq(t.id, id))).returning({ id: t.id });
  return rows.length > 0;
}
