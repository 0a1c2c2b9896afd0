import { and, asc, count, desc, eq, inArray, sql, type AnyColumn, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import {
  companies, contactAddresses, contactEmails, contactIdentifications, contactOccasions, contactPhones, contactRequests, contacts,
  groupMemberships, groups, persons,
} from '../../db/schema/index.js';
import type { ContactCategory, ContactStatus } from '../../db/schema/enums.js';
import { listRelationshipRows } from './relationships.repository.js';

/** Reads of contacts: the list page and the single read, each in a fixed number of queries. */

export interface ContactFilter {
  category?: ContactCategory;
  status?: ContactStatus;
  q?: string;
}

/** `\`, `%` and `_` are LIKE metacharacters: user input must match them literally. */
export const escapeLike = (text: string) => text.replace(/[\\%_]/g, '\\$&');

const PHONE_SHAPED = /^[0-9\s+\-.()]+$/;

/**
 * api-contract §5: `q` is a case-insensitive substring of search_text; a phone-shaped `q` (only
 * digits, spaces, + - . ( ), at least 3 digits) also matches the digits-only phone form. Both go
 * through contact_search_ids (migration 0002), which can use the trigram GIN indexes under RLS.
 */
export function searchPredicate(q: string): SQL {
  const textPattern = `%${escapeLike(q.toLowerCase())}%`;
  const digits = q.replace(/\D/g, '');
  const digitsPattern = PHONE_SHAPED.test(q) && digits.length >= 3 ? `%${digits}%` : null;
  return sql`${contacts.id} IN (SELECT contact_search_ids(${textPattern}::text, ${digitsPattern}::text))`;
}

function listWhere(tenantId: number, filter: ContactFilter): SQL {
  const parts: SQL[] = [eq(contacts.tenantId, tenantId)];
  if (filter.category) parts.push(eq(contacts.category, filter.category));
  if (filter.status) parts.push(eq(contacts.status, filter.status));
  const q = filter.q?.trim();
  if (q) parts.push(searchPredicate(q));
  return and(...parts)!;
}

const joinPerson = and(eq(persons.tenantId, contacts.tenantId), eq(persons.contactId, contacts.id));
const joinCompany = and(eq(companies.tenantId, contacts.tenantId), eq(companies.contactId, contacts.id));

export async function listContactRows(tx: Db, tenantId: number, filter: ContactFilter, limit: number, offset: number) {
  const where = listWhere(tenantId, filter);
  const rows = await tx
    .select({
      id: contacts.id, category: contacts.category, status: contacts.status,
      firstName: persons.firstName, lastName: persons.lastName, gender: persons.gender, companyName: companies.name,
    })
    .from(contacts)
    .leftJoin(persons, joinPerson)
    .leftJoin(companies, joinCompany)
    .where(where)
    .orderBy(asc(contacts.sortLast), asc(contacts.sortFirst), asc(contacts.id))
    .limit(limit)
    .offset(offset);
  const [{ total }] = await tx.select({ total: count() }).from(contacts).where(where);
  return { rows, total };
}

/** Emails and phones of many contacts: two queries whatever the page size. */
export async function loadEmailsAndPhones(tx: Db, tenantId: number, ids: number[]) {
  if (ids.length === 0) return { emails: [], phones: [] };
  const emails = await tx
    .select({ contactId: contactEmails.contactId, value: contactEmails.value, isPrimary: contactEmails.isPrimary })
    .from(contactEmails)
    .where(and(eq(contactEmails.tenantId, tenantId), inArray(contactEmails.contactId, ids)))
    .orderBy(asc(contactEmails.position), asc(contactEmails.id));
  const phones = await tx
    .select({ contactId: contactPhones.contactId, value: contactPhones.value, isPrimary: contactPhones.isPrimary })
    .from(contactPhones)
    .where(and(eq(contactPhones.tenantId, tenantId), inArray(contactPhones.contactId, ids)))
    .orderBy(asc(contactPhones.position), asc(contactPhones.id));
  return { emails, phones };
}

export async function findContactWithProfile(tx: Db, tenantId: number, id: number) {
  const [row] = await tx
    .select({ contact: contacts, person: persons, company: companies })
    .from(contacts)
    .leftJoin(persons, joinPerson)
    .leftJoin(companies, joinCompany)
    .where(and(eq(contacts.tenantId, tenantId), eq(contacts.id, id)));
  return row;
}

/** Every nested array of the single read; group memberships only of groups passing `visibleGroups`. */
export async function loadContactArrays(tx: Db, tenantId: number, id: number, visibleGroups: SQL) {
  const owned = (t: { tenantId: AnyColumn; contactId: AnyColumn }) => and(eq(t.tenantId, tenantId), eq(t.contactId, id));
  const { emails, phones } = await loadEmailsAndPhones(tx, tenantId, [id]);
  const addresses = await tx
    .select({ street: contactAddresses.street, city: contactAddresses.city, country: contactAddresses.country, isPrimary: contactAddresses.isPrimary })
    .from(contactAddresses).where(owned(contactAddresses)).orderBy(asc(contactAddresses.position), asc(contactAddresses.id));
  const occasions = await tx
    .select({ id: contactOccasions.id, type: contactOccasions.type, date: contactOccasions.date, details: contactOccasions.details })
    .from(contactOccasions).where(owned(contactOccasions)).orderBy(asc(contactOccasions.date), asc(contactOccasions.id));
  const identifications = await tx
    .select({
      id: contactIdentifications.id, type: contactIdentifications.type, value: contactIdentifications.value,
      issuedBy: contactIdentifications.issuedBy, expiresOn: contactIdentifications.expiresOn,
    })
    .from(contactIdentifications).where(owned(contactIdentifications)).orderBy(asc(contactIdentifications.id));
  const relationships = await listRelationshipRows(tx, tenantId, { contactId: id }, 1000, 0);
  const requests = await tx.select().from(contactRequests).where(owned(contactRequests)).orderBy(desc(contactRequests.createdAt), desc(contactRequests.id));
  const memberships = await tx
    .select({ id: groupMemberships.id, groupId: groupMemberships.groupId, groupName: groups.name, role: groupMemberships.role, isActive: groupMemberships.isActive })
    .from(groupMemberships)
    .innerJoin(groups, and(eq(groups.tenantId, groupMemberships.tenantId), eq(groups.id, groupMemberships.groupId)))
    .where(and(owned(groupMemberships), visibleGroups))
    .orderBy(asc(groups.name), asc(groupMemberships.id));
  return { emails, phones, addresses, occasions, identifications, relationships, requests, memberships };
}
