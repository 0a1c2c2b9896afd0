import { and, eq, inArray, sql, type AnyColumn, type Placeholder } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { companies, contacts, persons } from '../../db/schema/index.js';

export interface ContactRef {
  id: number;
  firstName: string;
  lastName: string;
}

/** `{firstName, lastName}` of a contact; a company's name stands in as firstName. */
export const contactNameColumns = {
  firstName: sql<string>`coalesce(${persons.firstName}, ${companies.name}, '')`,
  lastName: sql<string>`coalesce(${persons.lastName}, '')`,
};

export function personJoin(tenantId: number | Placeholder, contactId: AnyColumn) {
  return and(eq(persons.tenantId, tenantId), eq(persons.contactId, contactId));
}
export function companyJoin(tenantId: number | Placeholder, contactId: AnyColumn) {
  return and(eq(companies.tenantId, tenantId), eq(companies.contactId, contactId));
}

/** The contacts among `ids` that exist in the tenant, by id (one query). */
export async function findContactRefs(tx: Db, tenantId: number, ids: readonly number[]): Promise<Map<number, ContactRef>> {
  if (ids.length === 0) return new Map();
  const rows = await tx
    .select({ id: contacts.id, ...contactNameColumns })
    .from(contacts)
    .leftJoin(persons, personJoin(tenantId, contacts.id))
    .leftJoin(companies, companyJoin(tenantId, contacts.id))
    .where(and(eq(contacts.tenantId, tenantId), inArray(contacts.id, [...new Set(ids)])));
  return new Map(rows.map((r) => [r.id, r]));
}
