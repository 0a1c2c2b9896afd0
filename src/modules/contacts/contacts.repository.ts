import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import {
  companies, contactAddresses, contactEmails, contactIdentifications, contactOccasions, contactPhones, contacts, persons, users,
} from '../../db/schema/index.js';
import type { ContactCategory, ContactStatus } from '../../db/schema/enums.js';
import type {
  AddressInput, CompanyInput, CompanyPatch, EmailInput, IdentificationInput, OccasionInput, PersonInput, PersonPatch, PhoneInput,
} from './contacts.schemas.js';

/** Writes of contacts and their owned rows. A create computes the search columns in its insert (searchColumns); every update ends with refreshSearchColumns. */

export interface ContactArrays {
  emails?: EmailInput[];
  phones?: PhoneInput[];
  addresses?: AddressInput[];
  occasions?: OccasionInput[];
  identifications?: IdentificationInput[];
}

export interface NewContact extends ContactArrays {
  category: ContactCategory;
  status?: ContactStatus;
  emailOptOut?: boolean;
  person?: PersonInput;
  company?: CompanyInput;
}

export type ContactRow = typeof contacts.$inferSelect;

/** Digits-only phone form, used for `q` and for import matching. */
export const phoneDigits = (value: string) => value.replace(/\D/g, '');

const MATCH_LOCK = 0x6d617463; // 'matc'
/** Buckets per tenant: a guest locks one or two, an import batch at most all 64 (a bounded number of locks). */
const MATCH_BUCKETS = 64;

/** FNV-1a, for spreading match keys over the buckets (any stable hash would do). */
function bucketOf(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return (h >>> 0) % MATCH_BUCKETS;
}

/**
 * Serialises match-or-create (a quick guest, the contacts import) on the same person: transaction-scoped
 * advisory locks on the buckets of the tenant's match keys (lower-cased email, phone digits), taken in
 * bucket order so two writers never deadlock. Held to commit, so a second writer matches the first's new
 * contact instead of creating another. Two keys in one bucket only wait for each other, never mismatch.
 */
export async function lockMatchKeys(tx: Db, tenantId: number, keys: { emails?: readonly (string | null | undefined)[]; digits?: readonly (string | null | undefined)[] }): Promise<void> {
  const named = [...(keys.emails ?? []).filter((e): e is string => !!e).map((e) => `e:${e.toLowerCase()}`), ...(keys.digits ?? []).filter((d): d is string => !!d).map((d) => `p:${d}`)];
  const buckets = [...new Set(named.map(bucketOf))].sort((a, b) => a - b);
  if (buckets.length === 0) return;
  const base = (tenantId % 33_554_431) * MATCH_BUCKETS;
  await tx.execute(sql`select count(pg_advisory_xact_lock(${MATCH_LOCK}::int, k)) from (select k from unnest(${`{${buckets.map((b) => base + b).join(',')}}`}::int[]) k order by k offset 0) s`);
}

/** api-contract §5: when no entry is marked primary, the first one is. */
export function withPrimary<T extends { isPrimary?: boolean }>(items: T[]): (T & { isPrimary: boolean })[] {
  const anyPrimary = items.some((i) => i.isPrimary);
  return items.map((item, index) => ({ ...item, isPrimary: anyPrimary ? item.isPrimary === true : index === 0 }));
}

/** What the list/search columns of a new contact are computed from: the values its rows will hold. */
export interface SearchSource {
  firstName?: string | null;
  middleName?: string | null;
  lastName?: string | null;
  companyName?: string | null;
  /** In position order, as stored. */
  emails: string[];
  phones: string[];
}

/**
 * The list/search columns of a NEW contact, for its INSERT: the same SQL expressions as
 * refreshSearchColumns applied to the values about to be stored (lower() runs in the database, so
 * case folding is exactly the stored rows' one). A contact is thus written once, never inserted and
 * then updated (which left one dead row per created contact until vacuum).
 */
export function searchColumns(s: SearchSource) {
  const text = (v: string | null | undefined) => sql`${v ?? null}::text`;
  const emails = s.emails.length ? s.emails.join(' ') : null;
  const phones = s.phones.length ? s.phones.join(' ') : null;
  return {
    sortLast: sql`lower(coalesce(${text(s.lastName)}, ${text(s.companyName)}, ''))`,
    sortFirst: sql`lower(coalesce(${text(s.firstName)}, ''))`,
    searchText: sql`lower(concat_ws(' ', ${text(s.firstName)}, ${text(s.middleName)}, ${text(s.lastName)}, ${text(s.companyName)}, ${text(emails)}, ${text(phones)}))`,
    phoneDigits: s.phones.map(phoneDigits).join(' '),
  };
}

/** The one create path: the HTTP create, tenant seeding, registration and users all come through here. */
export async function insertContact(tx: Db, tenantId: number, input: NewContact): Promise<number> {
  const search = searchColumns({
    firstName: input.person?.firstName,
    middleName: input.person?.middleName,
    lastName: input.person?.lastName,
    companyName: input.company?.name,
    // Stored in input order (replaceArrays' positions).
    emails: (input.emails ?? []).map((e) => e.value),
    phones: (input.phones ?? []).map((p) => p.value),
  });
  const [row] = await tx
    .insert(contacts)
    .values({ tenantId, category: input.category, status: input.status ?? 'Active', emailOptOut: input.emailOptOut ?? false, ...search })
    .returning({ id: contacts.id });
  if (input.person) await tx.insert(persons).values({ tenantId, contactId: row.id, ...input.person });
  if (input.company) await tx.insert(companies).values({ tenantId, contactId: row.id, ...input.company });
  await replaceArrays(tx, tenantId, row.id, input);
  return row.id;
}

/**
 * Minimal person creation used by tenant seeding, registration and users; the same path as
 * POST /api/crm/contacts, so list order and search columns stay consistent.
 */
export async function insertPersonContact(
  tx: Db,
  tenantId: number,
  input: { firstName: string; lastName: string; email?: string | null },
): Promise<number> {
  return insertContact(tx, tenantId, {
    category: 'Person',
    person: { firstName: input.firstName, lastName: input.lastName },
    emails: input.email ? [{ value: input.email, isPrimary: true }] : [],
  });
}

export async function findContactRow(tx: Db, tenantId: number, id: number): Promise<ContactRow | undefined> {
  const [row] = await tx.select().from(contacts).where(and(eq(contacts.tenantId, tenantId), eq(contacts.id, id)));
  return row;
}

/** Which of `ids` exist in the tenant. */
export async function existingContactIds(tx: Db, tenantId: number, ids: number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const rows = await tx.select({ id: contacts.id }).from(contacts).where(and(eq(contacts.tenantId, tenantId), inArray(contacts.id, ids)));
  return new Set(rows.map((r) => r.id));
}

export async function updateContactScalars(tx: Db, tenantId: number, id: number, values: { status?: ContactStatus; emailOptOut?: boolean }) {
  await tx.update(contacts).set({ ...values, updatedAt: new Date() }).where(and(eq(contacts.tenantId, tenantId), eq(contacts.id, id)));
}

export async function updatePerson(tx: Db, tenantId: number, contactId: number, patch: PersonPatch) {
  if (Object.keys(patch).length === 0) return;
  await tx.update(persons).set(patch).where(and(eq(persons.tenantId, tenantId), eq(persons.contactId, contactId)));
}

export async function updateCompany(tx: Db, tenantId: number, contactId: number, patch: CompanyPatch) {
  if (Object.keys(patch).length === 0) return;
  await tx.update(companies).set(patch).where(and(eq(companies.tenantId, tenantId), eq(companies.contactId, contactId)));
}

/** Replaces every array that is present in `input` (absent arrays are left alone). */
export async function replaceArrays(tx: Db, tenantId: number, contactId: number, input: ContactArrays): Promise<void> {
  const owned = { tenantId, contactId };
  if (input.emails) {
    await tx.delete(contactEmails).where(and(eq(contactEmails.tenantId, tenantId), eq(contactEmails.contactId, contactId)));
    const rows = withPrimary(input.emails).map((e, position) => ({ ...owned, value: e.value, isPrimary: e.isPrimary, position }));
    if (rows.length) await tx.insert(contactEmails).values(rows);
  }
  if (input.phones) {
    await tx.delete(contactPhones).where(and(eq(contactPhones.tenantId, tenantId), eq(contactPhones.contactId, contactId)));
    const rows = withPrimary(input.phones).map((p, position) => ({ ...owned, value: p.value, digits: phoneDigits(p.value), isPrimary: p.isPrimary, position }));
    if (rows.length) await tx.insert(contactPhones).values(rows);
  }
  if (input.addresses) {
    await tx.delete(contactAddresses).where(and(eq(contactAddresses.tenantId, tenantId), eq(contactAddresses.contactId, contactId)));
    const rows = withPrimary(input.addresses).map((a, position) => ({ ...owned, ...a, position }));
    if (rows.length) await tx.insert(contactAddresses).values(rows);
  }
  if (input.occasions) {
    await tx.delete(contactOccasions).where(and(eq(contactOccasions.tenantId, tenantId), eq(contactOccasions.contactId, contactId)));
    if (input.occasions.length) await tx.insert(contactOccasions).values(input.occasions.map((o) => ({ ...owned, ...o })));
  }
  if (input.identifications) {
    await tx.delete(contactIdentifications).where(and(eq(contactIdentifications.tenantId, tenantId), eq(contactIdentifications.contactId, contactId)));
    if (input.identifications.length) await tx.insert(contactIdentifications).values(input.identifications.map((i) => ({ ...owned, ...i })));
  }
}

/**
 * Recomputes the denormalized list/search columns from the stored rows after an update (a create
 * computes the same expressions in its insert: searchColumns), so every write path produces
 * exactly the same values:
 * sort_last/sort_first = lowercased last/first name (company name as last name);
 * search_text = lowercased names, company name, emails and phones; phone_digits = phones' digits.
 */
export async function refreshSearchColumns(tx: Db, tenantId: number, ids: number[], options: { touch?: boolean } = {}): Promise<void> {
  if (ids.length === 0) return;
  // `touch` sets updated_at in the same UPDATE (one new row version per contact, not two).
  const touch = options.touch ? sql`updated_at = now(), ` : sql``;
  await tx.execute(sql`
    UPDATE contacts AS c SET ${touch}(sort_last, sort_first, search_text, phone_digits) = (
      SELECT lower(coalesce(p.last_name, co.name, '')),
             lower(coalesce(p.first_name, '')),
             lower(concat_ws(' ', p.first_name, p.middle_name, p.last_name, co.name, em.v, ph.v)),
             coalesce(ph.d, '')
      FROM (SELECT 1) AS one
      LEFT JOIN persons AS p ON p.tenant_id = c.tenant_id AND p.contact_id = c.id
      LEFT JOIN companies AS co ON co.tenant_id = c.tenant_id AND co.contact_id = c.id
      LEFT JOIN LATERAL (
        SELECT string_agg(e.value, ' ' ORDER BY e.position, e.id) AS v FROM contact_emails AS e
        WHERE e.tenant_id = c.tenant_id AND e.contact_id = c.id
      ) AS em ON true
      LEFT JOIN LATERAL (
        SELECT string_agg(f.value, ' ' ORDER BY f.position, f.id) AS v, string_agg(f.digits, ' ' ORDER BY f.position, f.id) AS d
        FROM contact_phones AS f WHERE f.tenant_id = c.tenant_id AND f.contact_id = c.id
      ) AS ph ON true
    )
    WHERE c.tenant_id = ${tenantId} AND c.id IN (${sql.join(ids.map((id) => sql`${id}`), sql`, `)})`);
}

/** The user account linked to a contact, if any (such a contact cannot be deleted). */
export async function findLinkedUserId(tx: Db, tenantId: number, contactId: number): Promise<number | undefined> {
  const [row] = await tx.select({ id: users.id }).from(users).where(and(eq(users.tenantId, tenantId), eq(users.contactId, contactId))).limit(1);
  return row?.id;
}

/** Foreign keys cascade to every owned and referencing row (memberships, events, relationships, ...). */
export async function deleteContact(tx: Db, tenantId: number, id: number): Promise<boolean> {
  const rows = await tx.delete(contacts).where(and(eq(contacts.tenantId, tenantId), eq(contacts.id, id))).returning({ id: contacts.id });
  return rows.length > 0;
}
