import { sql } from 'drizzle-orm';
import { bigint, boolean, customType, date, foreignKey, index, integer, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, refId, tenantColumns, updatedAt } from './columns.js';
import { CONTACT_CATEGORIES, CONTACT_STATUSES, REQUEST_STATUSES } from './enums.js';
import { tenants } from './tenants.js';

/**
 * A contact is a Person or a Company. sort_last/sort_first give the list order (last name, first name)
 * for both categories; search_text and phone_digits are kept by the service so that `q` is one
 * trigram-indexed predicate instead of an OR across child tables.
 */
export const contacts = pgTable(
  'contacts',
  {
    ...tenantColumns,
    category: text('category', { enum: CONTACT_CATEGORIES }).notNull(),
    status: text('status', { enum: CONTACT_STATUSES }).notNull().default('Active'),
    sortLast: text('sort_last').notNull().default(''),
    sortFirst: text('sort_first').notNull().default(''),
    searchText: text('search_text').notNull().default(''),
    phoneDigits: text('phone_digits').notNull().default(''),
    /** search_text with accents folded (search_fold, migration 0017), NULL where folding changes nothing. */
    searchFolded: text('search_folded').generatedAlwaysAs(sql`nullif(search_fold(search_text), search_text)`),
    /** Never sent messages (modules-contract §6). */
    emailOptOut: boolean('email_opt_out').notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ columns: [t.tenantId], foreignColumns: [tenants.id] }).onDelete('cascade'),
    index('contacts_order_idx').on(t.tenantId, t.sortLast, t.sortFirst, t.id),
    index('contacts_category_order_idx').on(t.tenantId, t.category, t.sortLast, t.sortFirst, t.id),
    // Lists filtered by status (and category) past their first pages, or on a rare combination: a
    // scan of the matching rows, then a top-N sort, instead of a walk of the whole tenant in list
    // order. (Totals no longer count contacts: contact_counts answers them.)
    index('contacts_count_idx').on(t.tenantId, t.category, t.status),
    index('contacts_search_trgm_idx').using('gin', sql`${t.searchText} gin_trgm_ops`),
    index('contacts_phone_trgm_idx').using('gin', sql`${t.phoneDigits} gin_trgm_ops`),
    index('contacts_search_folded_trgm_idx').using('gin', sql`(coalesce(${t.searchFolded}, ${t.searchText})) gin_trgm_ops`),
  ],
);

/**
 * How many contacts each (tenant, category, status) has, kept by triggers on contacts (migrations
 * 0004, 0005): the list total without `q` sums at most ten rows instead of counting the tenant.
 * Only the triggers write it, at commit (see contactCountPending).
 */
export const contactCounts = pgTable(
  'contact_counts',
  {
    tenantId: tenantColumns.tenantId,
    category: text('category', { enum: CONTACT_CATEGORIES }).notNull(),
    status: text('status', { enum: CONTACT_STATUSES }).notNull(),
    n: bigint('n', { mode: 'number' }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.category, t.status] }),
    foreignKey({ columns: [t.tenantId], foreignColumns: [tenants.id] }).onDelete('cascade'),
  ],
);

/** PostgreSQL's 64-bit transaction id (pg_current_xact_id()); Drizzle has no builder for it. */
const xid8 = customType<{ data: string }>({ dataType: () => 'xid8' });

/**
 * Counter deltas waiting for their transaction's commit (migration 0005). The statement triggers on
 * contacts append here (plain inserts, no lock on a counter row while the transaction runs); a
 * deferred constraint trigger moves the transaction's rows into contact_counts at commit, in key
 * order. Rows never outlive their own transaction, so: no primary key, no foreign key to tenants
 * (a tenant's deletion writes its contacts' delete deltas here after the tenant row is gone).
 */
export const contactCountPending = pgTable(
  'contact_count_pending',
  {
    xid: xid8('xid').notNull(),
    tenantId: tenantColumns.tenantId,
    category: text('category', { enum: CONTACT_CATEGORIES }).notNull(),
    status: text('status', { enum: CONTACT_STATUSES }).notNull(),
    n: bigint('n', { mode: 'number' }).notNull(),
  },
  (t) => [index('contact_count_pending_xid_idx').on(t.xid)],
);

const ownedBy = (name: string) => (t: { tenantId: any; contactId: any }) =>
  foreignKey({ name, columns: [t.tenantId, t.contactId], foreignColumns: [contacts.tenantId, contacts.id] }).onDelete('cascade');

export const persons = pgTable(
  'persons',
  {
    tenantId: tenantColumns.tenantId,
    contactId: refId('contact_id').notNull(),
    firstName: text('first_name').notNull(),
    lastName: text('last_name').notNull(),
    middleName: text('middle_name'),
    gender: text('gender'),
    civilStatus: text('civil_status'),
    dateOfBirth: date('date_of_birth', { mode: 'string' }),
    occupation: text('occupation'),
    /** Allergies, medical or custody notes printed on check-in labels (at most 200 characters, migration 0041). */
    checkinNote: text('checkin_note'),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.contactId] }),
    ownedBy('persons_contact_fk')(t),
    // The check-in lookup's last-name prefix, accents folded (migration 0040).
    index('persons_last_name_fold_idx').on(t.tenantId, sql`search_fold(${t.lastName}) text_pattern_ops`),
  ],
);

export const companies = pgTable(
  'companies',
  {
    tenantId: tenantColumns.tenantId,
    contactId: refId('contact_id').notNull(),
    name: text('name').notNull(),
    industry: text('industry'),
    website: text('website'),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.contactId] }), ownedBy('companies_contact_fk')(t)],
);

export const contactEmails = pgTable(
  'contact_emails',
  {
    ...tenantColumns,
    contactId: refId('contact_id').notNull(),
    value: text('value').notNull(),
    isPrimary: boolean('is_primary').notNull().default(false),
    position: integer('position').notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    ownedBy('contact_emails_contact_fk')(t),
    index('contact_emails_contact_idx').on(t.tenantId, t.contactId),
    index('contact_emails_value_idx').on(t.tenantId, sql`lower(${t.value})`),
  ],
);

export const contactPhones = pgTable(
  'contact_phones',
  {
    ...tenantColumns,
    contactId: refId('contact_id').notNull(),
    value: text('value').notNull(),
    digits: text('digits').notNull(),
    isPrimary: boolean('is_primary').notNull().default(false),
    position: integer('position').notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    ownedBy('contact_phones_contact_fk')(t),
    index('contact_phones_contact_idx').on(t.tenantId, t.contactId),
    index('contact_phones_digits_idx').on(t.tenantId, t.digits),
  ],
);

export const contactAddresses = pgTable(
  'contact_addresses',
  {
    ...tenantColumns,
    contactId: refId('contact_id').notNull(),
    street: text('street'),
    city: text('city'),
    country: text('country'),
    isPrimary: boolean('is_primary').notNull().default(false),
    position: integer('position').notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    ownedBy('contact_addresses_contact_fk')(t),
    index('contact_addresses_contact_idx').on(t.tenantId, t.contactId),
  ],
);

export const contactOccasions = pgTable(
  'contact_occasions',
  {
    ...tenantColumns,
    contactId: refId('contact_id').notNull(),
    type: text('type').notNull(),
    date: date('date', { mode: 'string' }),
    details: text('details'),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    ownedBy('contact_occasions_contact_fk')(t),
    index('contact_occasions_contact_idx').on(t.tenantId, t.contactId),
  ],
);

export const contactIdentifications = pgTable(
  'contact_identifications',
  {
    ...tenantColumns,
    contactId: refId('contact_id').notNull(),
    type: text('type').notNull(),
    value: text('value').notNull(),
    issuedBy: text('issued_by'),
    expiresOn: date('expires_on', { mode: 'string' }),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    ownedBy('contact_identifications_contact_fk')(t),
    index('contact_identifications_contact_idx').on(t.tenantId, t.contactId),
  ],
);

/** "related_contact_id is contact_id's type"; the inverse row is stored too (api-contract §5). */
export const contactRelationships = pgTable(
  'contact_relationships',
  {
    ...tenantColumns,
    contactId: refId('contact_id').notNull(),
    relatedContactId: refId('related_contact_id').notNull(),
    type: text('type').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    ownedBy('contact_relationships_contact_fk')(t),
    foreignKey({
      name: 'contact_relationships_related_fk',
      columns: [t.tenantId, t.relatedContactId],
      foreignColumns: [contacts.tenantId, contacts.id],
    }).onDelete('cascade'),
    uniqueIndex('contact_relationships_uq').on(t.tenantId, t.contactId, t.relatedContactId, t.type),
    index('contact_relationships_related_idx').on(t.tenantId, t.relatedContactId),
  ],
);

export const contactRequests = pgTable(
  'contact_requests',
  {
    ...tenantColumns,
    contactId: refId('contact_id').notNull(),
    type: text('type').notNull(),
    description: text('description'),
    status: text('status', { enum: REQUEST_STATUSES }).notNull().default('Open'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    ownedBy('contact_requests_contact_fk')(t),
    index('contact_requests_contact_idx').on(t.tenantId, t.contactId),
    index('contact_requests_list_idx').on(t.tenantId, t.createdAt, t.id),
  ],
);
