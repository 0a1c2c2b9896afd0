import { and, asc, count, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { companies, eventRegistrations as t, persons } from '../../db/schema/index.js';
import type { Page } from '../../lib/pagination.js';
import { companyJoin, contactRefColumns, epochMs, isoOf, personJoin } from './contact-refs.repository.js';
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

/** Every registration of the event (single event read). */
export async function allRegistrations(tx: Db, tenantId: number, eventId: number): Promise<RegistrationItem[]> {
  return (await selectRegistrations(tx, tenantId, eventId)).map(toItem);
}

export async function pageRegistrations(tx: Db, tenantId: number, eventId: number, page: Page) {
  const rows = await selectRegistrations(tx, tenantId, eventId).limit(page.limit).offset(page.offset);
  const [{ total }] = await tx.select({ total: count() }).from(t).where(and(eq(t.tenantId, tenantId), eq(t.eventId, eventId)));
  return { items: rows.map(toItem), total: Number(total) };
}

/** One multi-row insert; contacts already registered are left out of the result. */
export async function insertRegistrations(tx: Db, tenantId: number, eventId: number, contactIds: readonly number[]) {
  const rows = await tx
    .insert(t)
    .values(contactIds.map((contactId) => ({ tenantId, eventId, contactId })))
    .onConflictDoNothing()
    .returning({ id: t.id, contactId: t.contactId, at: t.createdAt });
  return rows;
}

export async function deleteRegistration(tx: Db, tenantId: number, eventId: number, id: number): Promise<boolean> {
  const rows = await tx.delete(t).where(and(eq(t.tenantId, tenantId), eq(t.eventId, eventId), eq(t.id, id))).returning({ id: t.id });
  return rows.length > 0;
}
