import { and, asc, count, eq, or, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Db } from '../../db/client.js';
import { companies, contactRelationships, contacts, persons } from '../../db/schema/index.js';
import type { RelationshipType } from '../../db/schema/enums.js';

export interface RelationshipFilter {
  id?: number;
  contactId?: number;
  type?: RelationshipType;
}

const related = alias(contacts, 'related');
const relatedPerson = alias(persons, 'related_person');
const relatedCompany = alias(companies, 'related_company');

function where(tenantId: number, filter: RelationshipFilter): SQL {
  const parts: SQL[] = [eq(contactRelationships.tenantId, tenantId)];
  if (filter.id !== undefined) parts.push(eq(contactRelationships.id, filter.id));
  if (filter.contactId !== undefined) parts.push(eq(contactRelationships.contactId, filter.contactId));
  if (filter.type) parts.push(eq(contactRelationships.type, filter.type));
  return and(...parts)!;
}

/** Relationship items with the related contact's names (one query). */
export async function listRelationshipRows(tx: Db, tenantId: number, filter: RelationshipFilter, limit: number, offset: number) {
  const rows = await tx
    .select({
      id: contactRelationships.id,
      contactId: contactRelationships.contactId,
      relatedContactId: contactRelationships.relatedContactId,
      type: contactRelationships.type,
      category: related.category,
      firstName: relatedPerson.firstName,
      lastName: relatedPerson.lastName,
      companyName: relatedCompany.name,
    })
    .from(contactRelationships)
    .innerJoin(related, and(eq(related.tenantId, contactRelationships.tenantId), eq(related.id, contactRelationships.relatedContactId)))
    .leftJoin(relatedPerson, and(eq(relatedPerson.tenantId, related.tenantId), eq(relatedPerson.contactId, related.id)))
    .leftJoin(relatedCompany, and(eq(relatedCompany.tenantId, related.tenantId), eq(relatedCompany.contactId, related.id)))
    .where(where(tenantId, filter))
    .orderBy(asc(contactRelationships.contactId), asc(contactRelationships.id))
    .limit(limit)
    .offset(offset);
  return rows.map((r) => ({
    id: r.id,
    contactId: r.contactId,
    relatedContactId: r.relatedContactId,
    type: r.type as RelationshipType,
    relatedContact: {
      id: r.relatedContactId,
      firstName: r.firstName,
      lastName: r.lastName,
      name: r.companyName ?? [r.firstName, r.lastName].filter(Boolean).join(' '),
      category: r.category,
    },
  }));
}

export type RelationshipItem = Awaited<ReturnType<typeof listRelationshipRows>>[number];

export async function countRelationships(tx: Db, tenantId: number, filter: RelationshipFilter): Promise<number> {
  const [{ total }] = await tx.select({ total: count() }).from(contactRelationships).where(where(tenantId, filter));
  return total;
}

export async function findRelationship(tx: Db, tenantId: number, id: number) {
  const [row] = await tx
    .select()
    .from(contactRelationships)
    .where(and(eq(contactRelationships.tenantId, tenantId), eq(contactRelationships.id, id)));
  return row;
}

export async function relationshipExists(tx: Db, tenantId: number, contactId: number, relatedContactId: number, type: RelationshipType) {
  const [row] = await tx
    .select({ id: contactRelationships.id })
    .from(contactRelationships)
    .where(
      and(
        eq(contactRelationships.tenantId, tenantId),
        eq(contactRelationships.contactId, contactId),
        eq(contactRelationships.relatedContactId, relatedContactId),
        eq(contactRelationships.type, type),
      ),
    );
  return row !== undefined;
}

/** Stores "B is A's type" and its inverse "A is B's inverse" together; returns A's row id. */
export async function insertRelationshipPair(
  tx: Db,
  tenantId: number,
  a: number,
  b: number,
  type: RelationshipType,
  inverse: RelationshipType,
): Promise<PairRow[]> {
  const rows = await tx
    .insert(contactRelationships)
    .values([
      { tenantId, contactId: a, relatedContactId: b, type },
      { tenantId, contactId: b, relatedContactId: a, type: inverse },
    ])
    .returning(pairColumns);
  // The row asked for first, then its inverse.
  return rows.sort((x, y) => (x.contactId === a ? -1 : y.contactId === a ? 1 : 0));
}

const pairColumns = {
  id: contactRelationships.id,
  contactId: contactRelationships.contactId,
  relatedContactId: contactRelationships.relatedContactId,
  type: contactRelationships.type,
};
export interface PairRow {
  id: number;
  contactId: number;
  relatedContactId: number;
  type: string;
}

/** Deletes a row and its inverse (both directions of the pair with the matching types). */
export async function deleteRelationshipPair(
  tx: Db,
  tenantId: number,
  row: { contactId: number; relatedContactId: number; type: string },
  inverse: string,
): Promise<PairRow[]> {
  const r = contactRelationships;
  return tx
    .delete(r)
    .where(
      and(
        eq(r.tenantId, tenantId),
        or(
          and(eq(r.contactId, row.contactId), eq(r.relatedContactId, row.relatedContactId), eq(r.type, row.type)),
          and(eq(r.contactId, row.relatedContactId), eq(r.relatedContactId, row.contactId), eq(r.type, inverse)),
        ),
      ),
    )
    .returning(pairColumns);
}
