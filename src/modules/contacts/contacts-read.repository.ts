import { and, asc, eq, sql, type SQL } from 'drizzle-orm';
import { perHandle, UNNAMED, type Db } from '../../db/client.js';
import { byScopeShape, visibleGroupFilter, type GroupScope, type ScopeTerms } from '../groups/groups.visibility.js';
import { companies, contactCounts, contacts, persons } from '../../db/schema/index.js';
import type { ContactCategory, ContactStatus } from '../../db/schema/enums.js';
import { containsPattern } from '../../lib/like.js';

/** Reads of contacts: the list page and the single read, each in a fixed number of queries. */

export interface ContactFilter {
  householdId?: number;
  category?: ContactCategory;
  status?: ContactStatus;
  q?: string;
}

const PHONE_SHAPED = /^[0-9\s+\-.()]+$/;

/** The list page's varying values: every one a placeholder, so a list's query is built once (perHandle). */
const P = {
  tenantId: sql.placeholder('tenantId'),
  category: sql.placeholder('category'),
  status: sql.placeholder('status'),
  pattern: sql.placeholder('pattern'),
  digitsPattern: sql.placeholder('digitsPattern'),
  limit: sql.placeholder('limit'),
  offset: sql.placeholder('offset'),
};

/**
 * api-contract §5: `q` is a case-insensitive substring of search_text (`%`, `_` and `\` match
 * literally); a phone-shaped `q` (only digits, spaces, + - . ( ), at least 3 digits) also matches
 * the digits-only phone form. Answered by contact_search_page / contact_search_count (migration
 * 0017: the trigram indexes for a rare term, a walk of the list-order index for a frequent one).
 */
function searchValues(q: string, filter: ContactFilter) {
  const digits = q.replace(/\D/g, '');
  const digitsPattern = PHONE_SHAPED.test(q) && digits.length >= 3 ? `%${digits}%` : null;
  return { pattern: containsPattern(q), digitsPattern, category: filter.category ?? null, status: filter.status ?? null };
}

const SEARCH_ARGS = sql`${P.pattern}::text, ${P.digitsPattern}::text, false, ${P.category}::text, ${P.status}::text`;

function listWhere(filter: ContactFilter): SQL {
  const parts: SQL[] = [eq(contacts.tenantId, P.tenantId)];
  if (filter.category) parts.push(eq(contacts.category, P.category));
  if (filter.status) parts.push(eq(contacts.status, P.status));
  return and(...parts)!;
}

/**
 * The total of a list without `q`: a sum over the tenant's contact_counts rows (at most ten, kept
 * by triggers, migration 0004) instead of a count over its contacts. A query of its own, or a
 * scalar subquery of the page statement.
 */
function countedTotal(tx: Db, filter: ContactFilter) {
  const parts: SQL[] = [eq(contactCounts.tenantId, P.tenantId)];
  if (filter.category) parts.push(eq(contactCounts.category, P.category));
  if (filter.status) parts.push(eq(contactCounts.status, P.status));
  return tx
    .select({ total: sql<number>`coalesce(sum(${contactCounts.n}), 0)::int` })
    .from(contactCounts)
    .where(and(...parts));
}

const joinPerson = and(eq(persons.tenantId, contacts.tenantId), eq(persons.contactId, contacts.id));
const joinCompany = and(eq(companies.tenantId, contacts.tenantId), eq(companies.contactId, contacts.id));

/** Owned rows of the outer contacts row, as a JSON array (one correlated subquery, no extra round trip). */
function ownedJson(table: string, fields: string, order: string, extraWhere = ''): SQL {
  return sql.raw(`(SELECT coalesce(json_agg(json_build_object(${fields}) ORDER BY ${order}), '[]'::json)
    FROM ${table} AS x WHERE x.tenant_id = "contacts"."tenant_id" AND x.contact_id = "contacts"."id"${extraWhere})`);
}

const EMAILS = ownedJson('contact_emails', `'value', x.value, 'isPrimary', x.is_primary`, 'x.position, x.id');
const PHONES = ownedJson('contact_phones', `'value', x.value, 'isPrimary', x.is_primary`, 'x.position, x.id');

const HOUSEHOLD_ID = sql.raw(`(SELECT m.household_id FROM household_members AS m WHERE m.tenant_id = "contacts"."tenant_id" AND m.contact_id = "contacts"."id")`);

interface ValueItem {
  value: string;
  isPrimary: boolean;
}

/** The page statement of one shape (with or without `q`, category, status). */
function pageQuery(tx: Db, filter: ContactFilter, search: boolean) {
  const page = search
    ? sql`contact_search_page(${SEARCH_ARGS}, ${P.limit}::int, ${P.offset}::int) as "page"`
    : sql`(${tx.select({ id: contacts.id }).from(contacts).where(listWhere(filter))
      .orderBy(asc(contacts.sortLast), asc(contacts.sortFirst), asc(contacts.id)).limit(P.limit).offset(P.offset)}) as "page"`;
  return tx
    .select({
      id: contacts.id, category: contacts.category, status: contacts.status,
      firstName: persons.firstName, lastName: persons.lastName, gender: persons.gender, companyName: companies.name,
      emails: sql<ValueItem[]>`${EMAILS}`, phones: sql<ValueItem[]>`${PHONES}`, householdId: sql<number | string | null>`${HOUSEHOLD_ID}`,
      total: search ? sql<number | null>`"page"."total"` : sql<number | null>`(${countedTotal(tx, filter)})`, // int4: a number on both drivers
    })
    .from(page)
    .innerJoin(contacts, and(eq(contacts.tenantId, P.tenantId), sql`${contacts.id} = "page"."id"`))
    .leftJoin(persons, joinPerson)
    .leftJoin(companies, joinCompany)
    .orderBy(asc(contacts.sortLast), asc(contacts.sortFirst), asc(contacts.id))
    .prepare(UNNAMED);
}

type PageQuery = (tx: Db) => ReturnType<typeof pageQuery>;

/** The page statements by shape, each built once per database handle. */
const pageQueries = new Map<string, PageQuery>();

function pageQueryFor(filter: ContactFilter, search: boolean): PageQuery {
  const shape = { category: filter.category ? 'Person' as const : undefined, status: filter.status ? 'Active' as const : undefined };
  const key = `${search}/${Boolean(shape.category)}/${Boolean(shape.status)}`;
  let query = pageQueries.get(key);
  if (!query) pageQueries.set(key, (query = perHandle((tx) => pageQuery(tx, shape, search))));
  return query;
}

/**
 * The page's ids first — without `q` from the ordered index alone, with `q` from the search
 * function, which returns the page with the count of all matches — then names and JSON arrays for
 * those rows only (select-list subqueries next to an OFFSET would run for every skipped row too).
 * Without `q` the total rides along as an uncorrelated scalar subquery of the counters (one
 * InitPlan, run once: exact and independent of the tenant's size).
 */
export async function listContactRows(tx: Db, tenantId: number, filter: ContactFilter, limit: number, offset: number) {
  const q = filter.q?.trim() || undefined;
  const values = {
    tenantId, limit, offset,
    ...(q ? searchValues(q, filter) : { category: filter.category ?? null, status: filter.status ?? null }),
  };
  const rows = await pageQueryFor(filter, Boolean(q))(tx).execute(values);
  if (rows[0]?.total != null) return { rows, total: rows[0].total };
  if (offset === 0) return { rows, total: 0 };
  // An empty page past the end: the counters answer, or (with `q`) a count of the search.
  if (!q) return { rows, total: (await countedTotal(tx, filter).execute(values))[0].total };
  const v = searchValues(q, filter);
  const counted = await tx.execute(sql`select contact_search_count(${v.pattern}::text, ${v.digitsPattern}::text, false, ${v.category}::text, ${v.status}::text) as total`);
  return { rows, total: (counted as unknown as { rows: { total: number }[] }).rows[0].total };
}

/** The contact's household and its role there (modules-contract §8), as JSON or null. */
const HOUSEHOLD = sql`(SELECT json_build_object('id', h.id, 'name', h.name, 'role', m.role)
  FROM household_members AS m JOIN households AS h ON h.tenant_id = m.tenant_id AND h.id = m.household_id
  WHERE m.tenant_id = "contacts"."tenant_id" AND m.contact_id = "contacts"."id")`;

export interface HouseholdRef {
  id: number;
  name: string;
  role: 'Head' | 'Spouse' | 'Child' | 'Other';
}

/**
 * The list page restricted to some contacts (the members of a household: at most 30), with the
 * list's other filters; ordered as every list, counted exactly.
 */
export async function listContactRowsAmong(tx: Db, tenantId: number, ids: readonly number[], filter: ContactFilter, limit: number, offset: number) {
  if (ids.length === 0) return { rows: [], total: 0 };
  const q = filter.q?.trim() || undefined;
  const v = q ? searchValues(q, filter) : undefined;
  const where = and(
    eq(contacts.tenantId, tenantId),
    sql`${contacts.id} = any(${`{${ids.map(Number).join(',')}}`}::bigint[])`,
    filter.category ? eq(contacts.category, filter.category) : undefined,
    filter.status ? eq(contacts.status, filter.status) : undefined,
    v ? sql`(${contacts.searchText} LIKE lower(${v.pattern}) OR (${v.digitsPattern}::text IS NOT NULL AND ${contacts.phoneDigits} LIKE ${v.digitsPattern}))` : undefined,
  );
  const rows = await tx
    .select({
      id: contacts.id, category: contacts.category, status: contacts.status,
      firstName: persons.firstName, lastName: persons.lastName, gender: persons.gender, companyName: companies.name,
      emails: sql<ValueItem[]>`${EMAILS}`, phones: sql<ValueItem[]>`${PHONES}`, householdId: sql<number | string | null>`${HOUSEHOLD_ID}`,
      total: sql<number>`(count(*) over ())::int`,
    })
    .from(contacts)
    .leftJoin(persons, joinPerson)
    .leftJoin(companies, joinCompany)
    .where(where)
    .orderBy(asc(contacts.sortLast), asc(contacts.sortFirst), asc(contacts.id))
    .limit(limit)
    .offset(offset);
  if (rows.length || offset === 0) return { rows, total: rows[0]?.total ?? 0 };
  const [{ total }] = await tx.select({ total: sql<number>`count(*)::int` }).from(contacts).where(where);
  return { rows, total };
}

const RELATED_NAME = `coalesce(rco.name, concat_ws(' ', rp.first_name, rp.last_name))`;

/** The single read's varying values (with the scope's, scopeTerms): its statement is built once per shape. */
const D = { tenantId: sql.placeholder('tenantId'), id: sql.placeholder('id') };

/**
 * The single read in one statement: the contact, its profile and every nested array as JSON;
 * group memberships only of groups the caller may see (visibleGroupFilter); requests of
 * `hiddenRequestTypes` left out.
 */
function contactDocumentQuery(tx: Db, terms: ScopeTerms, hiddenRequestTypes: readonly string[]) {
  // Closed enum values (REQUEST_TYPES), never request text: safe to write into the statement.
  const hidden = hiddenRequestTypes.length ? ` AND x.type NOT IN (${hiddenRequestTypes.map((t) => `'${t.replace(/'/g, "''")}'`).join(', ')})` : '';
  const arrays = {
    emails: EMAILS,
    phones: PHONES,
    addresses: ownedJson('contact_addresses', `'street', x.street, 'city', x.city, 'country', x.country, 'isPrimary', x.is_primary`, 'x.position, x.id'),
    occasions: ownedJson('contact_occasions', `'id', x.id, 'type', x.type, 'date', x.date, 'details', x.details`, 'x.date, x.id'),
    identifications: ownedJson('contact_identifications', `'id', x.id, 'type', x.type, 'value', x.value, 'issuedBy', x.issued_by, 'expiresOn', x.expires_on`, 'x.id'),
    requests: ownedJson(
      'contact_requests',
      `'id', x.id, 'contactId', x.contact_id, 'type', x.type, 'description', x.description, 'status', x.status, 'createdAt', x.created_at, 'updatedAt', x.updated_at`,
      'x.created_at DESC, x.id DESC',
      hidden,
    ),
    relationships: sql.raw(`(SELECT coalesce(json_agg(json_build_object('id', x.id, 'contactId', x.contact_id, 'relatedContactId', x.related_contact_id, 'type', x.type,
        'relatedContact', json_build_object('id', rc.id, 'firstName', rp.first_name, 'lastName', rp.last_name, 'name', ${RELATED_NAME}, 'category', rc.category))
        ORDER BY x.id), '[]'::json)
      FROM contact_relationships AS x
      JOIN contacts AS rc ON rc.tenant_id = x.tenant_id AND rc.id = x.related_contact_id
      LEFT JOIN persons AS rp ON rp.tenant_id = rc.tenant_id AND rp.contact_id = rc.id
      LEFT JOIN companies AS rco ON rco.tenant_id = rc.tenant_id AND rco.contact_id = rc.id
      WHERE x.tenant_id = "contacts"."tenant_id" AND x.contact_id = "contacts"."id")`),
    groupMemberships: sql`(SELECT coalesce(json_agg(json_build_object('id', x.id, 'groupId', x.group_id, 'group', json_build_object('id', "groups"."id", 'name', "groups"."name"),
        'role', x.role, 'isActive', x.is_active) ORDER BY "groups"."name", x.id), '[]'::json)
      FROM group_memberships AS x JOIN "groups" ON "groups"."tenant_id" = x.tenant_id AND "groups"."id" = x.group_id
      WHERE x.tenant_id = "contacts"."tenant_id" AND x.contact_id = "contacts"."id" AND ${visibleGroupFilter(terms)})`,
  };
  return tx
    .select({
      contact: contacts,
      person: persons,
      company: companies,
      ...(Object.fromEntries(Object.entries(arrays).map(([k, v]) => [k, sql<unknown[]>`${v}`])) as Record<keyof typeof arrays, SQL<unknown[]>>),
      household: sql<HouseholdRef | string | null>`${HOUSEHOLD}`,
    })
    .from(contacts)
    .leftJoin(persons, joinPerson)
    .leftJoin(companies, joinCompany)
    .where(and(eq(contacts.tenantId, D.tenantId), eq(contacts.id, D.id)))
    .prepare(UNNAMED);
}

/** The single read's statements by hidden request types (none, or the confidential ones) and scope shape. */
const contactDocumentQueries = new Map<string, ReturnType<typeof byScopeShape<ReturnType<typeof contactDocumentQuery>>>>();

export async function loadContactDocument(tx: Db, tenantId: number, id: number, scope: GroupScope, hiddenRequestTypes: readonly string[] = []) {
  const hiddenKey = hiddenRequestTypes.join(',');
  let byShape = contactDocumentQueries.get(hiddenKey);
  if (!byShape) contactDocumentQueries.set(hiddenKey, (byShape = byScopeShape((t, terms) => contactDocumentQuery(t, terms, hiddenRequestTypes))));
  const { query, values } = byShape(tx, scope);
  const [row] = await query.execute({ tenantId, id, ...values });
  return row;
}
