import { and, asc, eq, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { contacts, householdMembers, households, persons, type HouseholdRole } from '../../db/schema/index.js';
import type { Page } from '../../lib/pagination.js';
import type { HouseholdItem } from './households.schemas.js';

/** Queries of households and their members; every one takes the transaction and the tenant. */

export type HouseholdRow = typeof households.$inferSelect;
export type NewHouseholdValues = Pick<HouseholdRow, 'name' | 'street' | 'city' | 'country' | 'givingTogether'> & { importKey?: string | null };

export interface MemberRow {
  contactId: number;
  role: HouseholdRole;
  position: number;
}

/** A contact as a household write sees it: its category, last name and current household. */
export interface CandidateRow {
  id: number;
  category: 'Person' | 'Company';
  lastName: string | null;
  householdId: number | null;
  role: HouseholdRole | null;
}

function idArray(ids: readonly number[]): SQL {
  if (!ids.every((id) => Number.isSafeInteger(id))) throw new TypeError('ids must be integers');
  return sql`${`{${ids.join(',')}}`}::bigint[]`;
}

const MEMBERS = sql`(SELECT coalesce(json_agg(json_build_object('id', m.contact_id, 'firstName', p.first_name, 'lastName', p.last_name,
    'dateOfBirth', p.date_of_birth, 'role', m.role) ORDER BY m.position, m.contact_id), '[]'::json)
  FROM household_members AS m JOIN persons AS p ON p.tenant_id = m.tenant_id AND p.contact_id = m.contact_id
  WHERE m.tenant_id = ${households.tenantId} AND m.household_id = ${households.id})`;

interface MemberJson {
  id: number;
  firstName: string;
  lastName: string;
  dateOfBirth: string | null;
  role: HouseholdRole;
}

function itemQuery(tx: Db) {
  return tx
    .select({ h: households, firstName: persons.firstName, lastName: persons.lastName, members: sql<MemberJson[] | string>`${MEMBERS}` })
    .from(households)
    .leftJoin(persons, and(eq(persons.tenantId, households.tenantId), eq(persons.contactId, households.primaryContactId)));
}

type ItemRow = Awaited<ReturnType<ReturnType<typeof itemQuery>['execute']>>[number];

function toItem(r: ItemRow): HouseholdItem {
  const h = r.h;
  const members = (typeof r.members === 'string' ? JSON.parse(r.members) : r.members) as MemberJson[];
  return {
    id: h.id,
    name: h.name,
    address: h.street === null && h.city === null && h.country === null ? null : { street: h.street, city: h.city, country: h.country },
    givingTogether: h.givingTogether,
    primaryContact: h.primaryContactId !== null && r.firstName !== null ? { id: h.primaryContactId, firstName: r.firstName, lastName: r.lastName ?? '' } : null,
    members: members.map((m) => ({ contact: { id: Number(m.id), firstName: m.firstName, lastName: m.lastName, dateOfBirth: m.dateOfBirth }, role: m.role })),
    createdAt: h.createdAt.toISOString(),
    updatedAt: h.updatedAt.toISOString(),
  };
}

/** Households with their members and primary contact, in the order of `ids` (missing ones left out). */
export async function loadHouseholds(tx: Db, tenantId: number, ids: readonly number[]): Promise<HouseholdItem[]> {
  if (ids.length === 0) return [];
  const rows = await itemQuery(tx).where(and(eq(households.tenantId, tenantId), sql`${households.id} = any(${idArray(ids)})`));
  const byId = new Map(rows.map((r) => [r.h.id, toItem(r)]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/** A page of households by name (then id); `pattern` (a LIKE pattern) matches the name or a member's name. */
export async function listHouseholds(tx: Db, tenantId: number, pattern: string | undefined, page: Page) {
  const where = and(eq(households.tenantId, tenantId), pattern === undefined ? undefined : sql`${households.id} IN (SELECT search_household_ids(${pattern}::text))`);
  const rows = await itemQuery(tx)
    .where(where)
    .orderBy(asc(households.name), asc(households.id))
    .limit(page.limit)
    .offset(page.offset);
  const [{ total }] = await tx.select({ total: sql<number>`count(*)::int` }).from(households).where(where);
  return { items: rows.map(toItem), total };
}

export async function findHousehold(tx: Db, tenantId: number, id: number, options: { lock?: boolean } = {}): Promise<HouseholdRow | undefined> {
  const query = tx.select().from(households).where(and(eq(households.tenantId, tenantId), eq(households.id, id)));
  const [row] = options.lock ? await query.for('update') : await query;
  return row;
}

export async function findHouseholdByKey(tx: Db, tenantId: number, importKey: string): Promise<HouseholdRow | undefined> {
  const [row] = await tx.select().from(households).where(and(eq(households.tenantId, tenantId), eq(households.importKey, importKey))).for('update');
  return row;
}

export async function insertHousehold(tx: Db, tenantId: number, values: NewHouseholdValues): Promise<HouseholdRow> {
  const [row] = await tx.insert(households).values({ ...values, tenantId }).returning();
  return row;
}

export async function updateHousehold(tx: Db, tenantId: number, id: number, values: Partial<Omit<HouseholdRow, 'tenantId' | 'id' | 'createdAt' | 'updatedAt'>>): Promise<void> {
  await tx.update(households).set({ ...values, updatedAt: sql`now()` }).where(and(eq(households.tenantId, tenantId), eq(households.id, id)));
}

export async function deleteHousehold(tx: Db, tenantId: number, id: number): Promise<void> {
  await tx.delete(households).where(and(eq(households.tenantId, tenantId), eq(households.id, id)));
}

/**
 * The contacts among `ids` with their category, last name and household, locked (FOR NO KEY UPDATE
 * of the contact rows, in id order): two writes adding the same person queue up, and the second
 * sees the first's membership instead of failing on the primary key.
 */
export async function findCandidates(tx: Db, tenantId: number, ids: readonly number[]): Promise<Map<number, CandidateRow>> {
  if (ids.length === 0) return new Map();
  const locked = await tx
    .select({ id: contacts.id, category: contacts.category })
    .from(contacts)
    .where(and(eq(contacts.tenantId, tenantId), sql`${contacts.id} = any(${idArray(ids)})`))
    .orderBy(asc(contacts.id))
    .for('no key update');
  if (locked.length === 0) return new Map();
  const rows = await tx
    .select({ id: contacts.id, lastName: persons.lastName, householdId: householdMembers.householdId, role: householdMembers.role })
    .from(contacts)
    .leftJoin(persons, and(eq(persons.tenantId, contacts.tenantId), eq(persons.contactId, contacts.id)))
    .leftJoin(householdMembers, and(eq(householdMembers.tenantId, contacts.tenantId), eq(householdMembers.contactId, contacts.id)))
    .where(and(eq(contacts.tenantId, tenantId), sql`${contacts.id} = any(${idArray(locked.map((l) => l.id))})`));
  const category = new Map(locked.map((l) => [l.id, l.category]));
  return new Map(rows.map((r) => [r.id, { ...r, category: category.get(r.id)! }]));
}

export async function membersOf(tx: Db, tenantId: number, householdId: number): Promise<MemberRow[]> {
  return tx
    .select({ contactId: householdMembers.contactId, role: householdMembers.role, position: householdMembers.position })
    .from(householdMembers)
    .where(and(eq(householdMembers.tenantId, tenantId), eq(householdMembers.householdId, householdId)))
    .orderBy(asc(householdMembers.position), asc(householdMembers.contactId));
}

/** Appends members after the household's current ones, in the given order. */
export async function insertMembers(tx: Db, tenantId: number, householdId: number, members: readonly { contactId: number; role: HouseholdRole }[]): Promise<void> {
  if (members.length === 0) return;
  const [{ last }] = await tx
    .select({ last: sql<number>`coalesce(max(${householdMembers.position}), 0)::int` })
    .from(householdMembers)
    .where(and(eq(householdMembers.tenantId, tenantId), eq(householdMembers.householdId, householdId)));
  await tx.insert(householdMembers).values(members.map((m, i) => ({ tenantId, householdId, contactId: m.contactId, role: m.role, position: last + 1 + i })));
}

export async function updateMemberRole(tx: Db, tenantId: number, contactId: number, role: HouseholdRole): Promise<void> {
  await tx.update(householdMembers).set({ role }).where(and(eq(householdMembers.tenantId, tenantId), eq(householdMembers.contactId, contactId)));
}

export async function deleteMember(tx: Db, tenantId: number, contactId: number): Promise<void> {
  await tx.delete(householdMembers).where(and(eq(householdMembers.tenantId, tenantId), eq(householdMembers.contactId, contactId)));
}

/** Moves a membership to another contact (merge): the survivor takes the source's place and role. */
export async function moveMember(tx: Db, tenantId: number, fromContactId: number, toContactId: number): Promise<void> {
  await tx.update(householdMembers).set({ contactId: toContactId }).where(and(eq(householdMembers.tenantId, tenantId), eq(householdMembers.contactId, fromContactId)));
}

/** The household of a contact and the contact's role in it. */
export async function householdOf(tx: Db, tenantId: number, contactId: number): Promise<{ id: number; name: string; role: HouseholdRole } | null> {
  const [row] = await tx
    .select({ id: households.id, name: households.name, role: householdMembers.role })
    .from(householdMembers)
    .innerJoin(households, and(eq(households.tenantId, householdMembers.tenantId), eq(households.id, householdMembers.householdId)))
    .where(and(eq(householdMembers.tenantId, tenantId), eq(householdMembers.contactId, contactId)));
  return row ?? null;
}

/** Last names of contacts (persons), for the default household name. */
export async function lastNames(tx: Db, tenantId: number, ids: readonly number[]): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const rows = await tx
    .select({ id: persons.contactId, lastName: persons.lastName })
    .from(persons)
    .where(and(eq(persons.tenantId, tenantId), sql`${persons.contactId} = any(${idArray(ids)})`));
  return new Map(rows.map((r) => [r.id, r.lastName]));
}

/** The members of every household whose givingTogether is true: `{contactId, householdId}`, by household then joining order. */
export async function givingTogetherMembers(tx: Db, tenantId: number): Promise<{ contactId: number; householdId: number }[]> {
  return tx
    .select({ contactId: householdMembers.contactId, householdId: householdMembers.householdId })
    .from(householdMembers)
    .innerJoin(households, and(eq(households.tenantId, householdMembers.tenantId), eq(households.id, householdMembers.householdId)))
    .where(and(eq(householdMembers.tenantId, tenantId), eq(households.givingTogether, true)))
    .orderBy(asc(householdMembers.householdId), asc(householdMembers.position), asc(householdMembers.contactId));
}

/* The contacts import (modules-contract §8 "Import"): set-based statements, a fixed number per batch. */

export interface KeyedHousehold {
  id: number;
  name: string;
  importKey: string;
  primaryContactId: number | null;
  members: number;
  lastPosition: number;
}

/** The households of `keys`, locked (FOR UPDATE, in id order), with their member count and last position. */
export async function lockHouseholdsByKeys(tx: Db, tenantId: number, keys: readonly string[]): Promise<Map<string, KeyedHousehold>> {
  if (keys.length === 0) return new Map();
  const rows = await tx
    .select({ id: households.id, name: households.name, importKey: households.importKey, primaryContactId: households.primaryContactId })
    .from(households)
    .where(and(eq(households.tenantId, tenantId), sql`${households.importKey} = any(${textArray(keys)})`))
    .orderBy(asc(households.id))
    .for('update');
  const stats = await memberStats(tx, tenantId, rows.map((r) => r.id));
  return new Map(rows.map((r) => [r.importKey!, { ...r, importKey: r.importKey!, members: stats.get(r.id)?.members ?? 0, lastPosition: stats.get(r.id)?.lastPosition ?? 0 }]));
}

async function memberStats(tx: Db, tenantId: number, ids: readonly number[]): Promise<Map<number, { members: number; lastPosition: number }>> {
  if (ids.length === 0) return new Map();
  const rows = await tx
    .select({ id: householdMembers.householdId, members: sql<number>`count(*)::int`, lastPosition: sql<number>`max(${householdMembers.position})::int` })
    .from(householdMembers)
    .where(and(eq(householdMembers.tenantId, tenantId), sql`${householdMembers.householdId} = any(${idArray(ids)})`))
    .groupBy(householdMembers.householdId);
  return new Map(rows.map((r) => [r.id, { members: Number(r.members), lastPosition: Number(r.lastPosition) }]));
}

/** The import keys of households (null for one made otherwise). */
export async function importKeysOf(tx: Db, tenantId: number, ids: readonly number[]): Promise<Map<number, string | null>> {
  if (ids.length === 0) return new Map();
  const rows = await tx
    .select({ id: households.id, importKey: households.importKey })
    .from(households)
    .where(and(eq(households.tenantId, tenantId), sql`${households.id} = any(${idArray(ids)})`));
  return new Map(rows.map((r) => [r.id, r.importKey]));
}

/** New households in one statement, returned in the order given. */
export async function insertHouseholds(tx: Db, tenantId: number, values: readonly (NewHouseholdValues & { primaryContactId: number | null })[]): Promise<HouseholdRow[]> {
  if (values.length === 0) return [];
  const rows = await tx.insert(households).values(values.map((v) => ({ ...v, tenantId }))).returning();
  const byKey = new Map(rows.map((r) => [r.importKey, r]));
  return values.map((v) => byKey.get(v.importKey ?? null)!);
}

/** Members with their positions, in one statement. */
export async function insertMemberRows(tx: Db, tenantId: number, rows: readonly { householdId: number; contactId: number; role: HouseholdRole; position: number }[]): Promise<void> {
  if (rows.length === 0) return;
  await tx.insert(householdMembers).values(rows.map((r) => ({ ...r, tenantId })));
}

/** Roles of members, in one statement. */
export async function updateMemberRoles(tx: Db, tenantId: number, rows: readonly { contactId: number; role: HouseholdRole }[]): Promise<void> {
  if (rows.length === 0) return;
  await tx.execute(sql`UPDATE household_members AS m SET role = v.role
    FROM unnest(${idArray(rows.map((r) => r.contactId))}, ${textArray(rows.map((r) => r.role))}) AS v(contact_id, role)
    WHERE m.tenant_id = ${tenantId} AND m.contact_id = v.contact_id`);
}

/** Sets the primary contact of households (null leaves it) and touches them, in one statement. */
export async function touchHouseholds(tx: Db, tenantId: number, rows: readonly { id: number; primaryContactId: number | null }[]): Promise<void> {
  if (rows.length === 0) return;
  await tx.execute(sql`UPDATE households AS h SET primary_contact_id = coalesce(v.primary_id, h.primary_contact_id), updated_at = now()
    FROM unnest(${idArray(rows.map((r) => r.id))}, ${`{${rows.map((r) => r.primaryContactId ?? 'NULL').join(',')}}`}::bigint[]) AS v(id, primary_id)
    WHERE h.tenant_id = ${tenantId} AND h.id = v.id`);
}

function textArray(values: readonly string[]): SQL {
  return sql`${`{${values.map((v) => `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`).join(',')}}`}::text[]`;
}
