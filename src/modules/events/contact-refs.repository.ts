import { and, eq, sql, type AnyColumn, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { companies, contacts, persons } from '../../db/schema/index.js';
import type { ContactRef } from './events.schemas.js';

/**
 * `{id, firstName, lastName}` of contacts as event records show them. A company has no person
 * names: its name stands in as firstName so that every record still names someone.
 */
export const contactRefColumns = {
  firstName: sql<string>`coalesce(${persons.firstName}, ${companies.name}, '')`,
  lastName: sql<string>`coalesce(${persons.lastName}, '')`,
};

/**
 * An instant as epoch milliseconds. Records come by the thousand in one read, and letting the
 * driver build a Date per row (then an ISO string again) cost more than the query itself.
 */
export function epochMs(column: AnyColumn | SQL) {
  return sql<number>`floor(extract(epoch from ${column}) * 1000)::float8`;
}

export const isoOf = (ms: number) => new Date(ms).toISOString();

/** Join conditions from a `contact_id` column to the person and company rows. */
export function personJoin(tenantId: number, contactId: AnyColumn) {
  return and(eq(persons.tenantId, tenantId), eq(persons.contactId, contactId));
}
export function companyJoin(tenantId: number, contactId: AnyColumn) {
  return and(eq(companies.tenantId, tenantId), eq(companies.contactId, contactId));
}

/**
 * A list of ids as ONE bigint[] parameter. Drizzle spreads a JS array into one parameter per
 * element, and building and binding 1,000 of them cost several times the query itself.
 */
export function idArray(ids: readonly number[]): SQL {
  if (!ids.every((id) => Number.isSafeInteger(id))) throw new TypeError('ids must be integers');
  return sql`${`{${ids.join(',')}}`}::bigint[]`;
}

/** The contacts among `ids` that exist in the tenant, by id (one query). */
export async function findContactRefs(tx: Db, tenantId: number, ids: readonly number[]): Promise<Map<number, ContactRef>> {
  if (ids.length === 0) return new Map();
  const rows = await tx
    .select({ id: contacts.id, ...contactRefColumns })
    .from(contacts)
    .leftJoin(persons, personJoin(tenantId, contacts.id))
    .leftJoin(companies, companyJoin(tenantId, contacts.id))
    .where(and(eq(contacts.tenantId, tenantId), sql`${contacts.id} = ANY(${idArray(ids)})`));
  return new Map(rows.map((r) => [r.id, r]));
}
