import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { contactAddresses, contactEmails, contactPhones, contacts, persons } from '../../db/schema/index.js';
import { phoneDigits, searchColumns } from './contacts.repository.js';

/** Set-based statements of the import: a batch of rows costs a fixed number of statements. */

/**
 * Lowercased email → lowest Person contact id holding it, within the tenant bound to the
 * transaction: through contact_import_email_matches (drizzle/0020), whose lower(value) lookup can
 * use the index, which the same query as app_user under row level security could not.
 */
export async function matchEmails(tx: Db, emails: string[]): Promise<Map<string, number>> {
  if (emails.length === 0) return new Map();
  const result = (await tx.execute(sql`SELECT key, contact_id AS id FROM contact_import_email_matches(${`{${emails.map(arrayItem).join(',')}}`}::text[])`)) as unknown as {
    rows: { key: string; id: number | string }[];
  };
  return new Map(result.rows.map((r) => [r.key, Number(r.id)]));
}

/** One element of a text[] literal, quoted (emails may hold commas, quotes and backslashes). */
const arrayItem = (value: string) => `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

/** Phone digits → lowest Person contact id holding a phone with exactly those digits. */
export async function matchPhones(tx: Db, tenantId: number, digits: string[]): Promise<Map<string, number>> {
  if (digits.length === 0) return new Map();
  const rows = await tx
    .select({ key: contactPhones.digits, id: contactPhones.contactId })
    .from(contactPhones)
    .innerJoin(contacts, and(eq(contacts.tenantId, contactPhones.tenantId), eq(contacts.id, contactPhones.contactId)))
    .where(and(eq(contactPhones.tenantId, tenantId), eq(contacts.category, 'Person'), inArray(contactPhones.digits, digits)));
  return lowestPerKey(rows);
}

function lowestPerKey(rows: { key: string; id: number }[]) {
  const map = new Map<string, number>();
  for (const { key, id } of rows) if (!map.has(key) || map.get(key)! > id) map.set(key, id);
  return map;
}

/** Ids for new contacts taken up front, so child rows can be inserted in the same round. */
export async function allocateContactIds(tx: Db, n: number): Promise<number[]> {
  if (n === 0) return [];
  const result = (await tx.execute(
    sql`SELECT nextval(pg_get_serial_sequence('contacts', 'id')) AS id FROM generate_series(1, ${n}::int)`,
  )) as unknown as { rows: { id: string | number }[] };
  // bigint arrives as a string on node-postgres and as a number on PGlite.
  return result.rows.map((r) => Number(r.id));
}

/** What the import writes of a person's own fields. */
export type PersonFields = { firstName: string; lastName: string; gender: string | null; dateOfBirth: string | null };

/** Names, gender and date of birth of existing people, before the import overwrites them (for the changes' from/to). */
export async function loadPeopleNames(tx: Db, tenantId: number, ids: number[]): Promise<Map<number, PersonFields>> {
  if (ids.length === 0) return new Map();
  const rows = await tx
    .select({ id: persons.contactId, firstName: persons.firstName, lastName: persons.lastName, gender: persons.gender, dateOfBirth: persons.dateOfBirth })
    .from(persons)
    .where(and(eq(persons.tenantId, tenantId), inArray(persons.contactId, ids)));
  return new Map(rows.map(({ id, ...rest }) => [id, rest]));
}

export interface ImportPerson {
  id: number;
  firstName: string;
  lastName: string;
  gender?: string;
  dateOfBirth?: string;
  emails: string[];
  phones: string[];
  addresses: ImportAddress[];
}

export interface ImportAddress {
  street: string | null;
  city: string | null;
  country: string | null;
}

/** An address compared as the import compares them: its parts trimmed and lower-cased, absent ones empty. */
export const addressKey = (a: { street: string | null; city: string | null; country: string | null }) =>
  [a.street, a.city, a.country].map((v) => (v ?? '').trim().toLowerCase()).join('\u0001');

export async function insertPeople(tx: Db, tenantId: number, people: ImportPerson[]): Promise<void> {
  if (people.length === 0) return;
  // The search columns are computed in the insert: no insert-then-update leaving a dead row per person.
  await tx.insert(contacts).values(people.map((p) => ({ tenantId, id: p.id, category: 'Person' as const, ...searchColumns({ ...p, emails: p.emails, phones: p.phones }) })));
  await tx.insert(persons).values(
    people.map((p) => ({ tenantId, contactId: p.id, firstName: p.firstName, lastName: p.lastName, gender: p.gender ?? null, dateOfBirth: p.dateOfBirth ?? null })),
  );
  await insertChildren(tx, tenantId, people.map((p) => ({ contactId: p.id, emails: p.emails, phones: p.phones, addresses: p.addresses, emailCount: 0, phoneCount: 0, addressCount: 0 })));
}

/** Lower-cased emails, phone digits and addresses (addressKey) each contact already has. */
export interface ContactPoints {
  emailsOf: Map<number, Set<string>>;
  phonesOf: Map<number, Set<string>>;
  addressesOf: Map<number, Set<string>>;
}

export async function loadContactPoints(tx: Db, tenantId: number, ids: number[]): Promise<ContactPoints> {
  if (ids.length === 0) return { emailsOf: new Map(), phonesOf: new Map(), addressesOf: new Map() };
  const emails = await tx
    .select({ contactId: contactEmails.contactId, key: sql<string>`lower(${contactEmails.value})` })
    .from(contactEmails)
    .where(and(eq(contactEmails.tenantId, tenantId), inArray(contactEmails.contactId, ids)));
  const phones = await tx
    .select({ contactId: contactPhones.contactId, key: contactPhones.digits })
    .from(contactPhones)
    .where(and(eq(contactPhones.tenantId, tenantId), inArray(contactPhones.contactId, ids)));
  const addresses = await tx
    .select({ contactId: contactAddresses.contactId, street: contactAddresses.street, city: contactAddresses.city, country: contactAddresses.country })
    .from(contactAddresses)
    .where(and(eq(contactAddresses.tenantId, tenantId), inArray(contactAddresses.contactId, ids)));
  const group = (rows: { contactId: number; key: string }[]) => {
    const map = new Map<number, Set<string>>();
    for (const r of rows) map.set(r.contactId, (map.get(r.contactId) ?? new Set()).add(r.key));
    return map;
  };
  return { emailsOf: group(emails), phonesOf: group(phones), addressesOf: group(addresses.map((a) => ({ contactId: a.contactId, key: addressKey(a) }))) };
}

/**
 * Existing people: names, gender and date of birth overwritten (an absent gender or date kept),
 * emails/phones/addresses they do not have yet (`points`) appended. The caller then refreshes their search columns with `touch` (updated_at in the same UPDATE).
 */
export async function updatePeople(tx: Db, tenantId: number, people: ImportPerson[], { emailsOf, phonesOf, addressesOf }: ContactPoints): Promise<void> {
  if (people.length === 0) return;
  const values = people.map((p) => sql`(${p.id}::bigint, ${p.firstName}::text, ${p.lastName}::text, ${p.gender ?? null}::text, ${p.dateOfBirth ?? null}::date)`);
  await tx.execute(sql`
    UPDATE persons AS p SET first_name = v.first_name, last_name = v.last_name, gender = coalesce(v.gender, p.gender),
      date_of_birth = coalesce(v.date_of_birth, p.date_of_birth)
    FROM (VALUES ${sql.join(values, sql`, `)}) AS v(contact_id, first_name, last_name, gender, date_of_birth)
    WHERE p.tenant_id = ${tenantId} AND p.contact_id = v.contact_id`);
  await insertChildren(
    tx,
    tenantId,
    people.map((p) => ({
      contactId: p.id,
      emails: p.emails.filter((e) => !emailsOf.get(p.id)?.has(e.toLowerCase())),
      phones: p.phones.filter((v) => !phonesOf.get(p.id)?.has(phoneDigits(v))),
      addresses: p.addresses.filter((a) => !addressesOf.get(p.id)?.has(addressKey(a))),
      emailCount: emailsOf.get(p.id)?.size ?? 0,
      phoneCount: phonesOf.get(p.id)?.size ?? 0,
      addressCount: addressesOf.get(p.id)?.size ?? 0,
    })),
  );
}

interface ChildBatch {
  contactId: number;
  emails: string[];
  phones: string[];
  addresses: ImportAddress[];
  /** How many the contact already has: the first one of a kind becomes primary. */
  emailCount: number;
  phoneCount: number;
  addressCount: number;
}

async function insertChildren(tx: Db, tenantId: number, batch: ChildBatch[]) {
  const emailRows = batch.flatMap((b) =>
    b.emails.map((value, i) => ({ tenantId, contactId: b.contactId, value, isPrimary: b.emailCount + i === 0, position: b.emailCount + i })),
  );
  const phoneRows = batch.flatMap((b) =>
    b.phones.map((value, i) => ({
      tenantId, contactId: b.contactId, value, digits: phoneDigits(value), isPrimary: b.phoneCount + i === 0, position: b.phoneCount + i,
    })),
  );
  const addressRows = batch.flatMap((b) =>
    b.addresses.map((a, i) => ({ tenantId, contactId: b.contactId, ...a, isPrimary: b.addressCount + i === 0, position: b.addressCount + i })),
  );
  if (emailRows.length) await tx.insert(contactEmails).values(emailRows);
  if (addressRows.length) await tx.insert(contactAddresses).values(addressRows);
  if (phoneRows.length) await tx.insert(contactPhones).values(phoneRows);
}

/** Tables a contacts import writes, analysed when it changed a substantial share of them. */
const IMPORT_TABLES = ['contacts', 'persons', 'contact_emails', 'contact_phones', 'contact_addresses'] as const;

/**
 * After an import that wrote at least `share` (a tenth) of the contacts table (by the planner's row
 * estimate; a table never analysed counts as empty), ANALYZE the tables it wrote: until then the
 * planner works from statistics that predate the import and passes over the trigram index (a
 * name search took 0.4–0.9 s instead of 0.5 ms). A streamed import also calls it between batches
 * with share 1 (the table doubled), so its own matching keeps good plans. Runs on `db` outside the
 * tenant transaction: the tenant role may not analyse. Returns whether it ran.
 */
export async function analyzeAfterImport(db: Db, changedRows: number, share = 0.1): Promise<boolean> {
  if (changedRows === 0) return false;
  const result = (await db.execute(sql`SELECT greatest(reltuples, 0)::float8 AS estimate FROM pg_class WHERE oid = 'contacts'::regclass`)) as unknown as {
    rows: { estimate: number | string }[];
  };
  const estimate = Number(result.rows[0]?.estimate ?? 0);
  if (changedRows < share * estimate) return false;
  await db.execute(sql.raw(`ANALYZE ${IMPORT_TABLES.join(', ')}`));
  return true;
}
