import { sql } from 'drizzle-orm';
import { boolean, check, foreignKey, index, integer, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, refId, tenantColumns, updatedAt } from './columns.js';
import { contacts } from './contacts.js';
import { tenants } from './tenants.js';

/** Household member roles (modules-contract §8). */
export const HOUSEHOLD_ROLES = ['Head', 'Spouse', 'Child', 'Other'] as const;
export type HouseholdRole = (typeof HOUSEHOLD_ROLES)[number];

/**
 * A family: the unit a church mails, counts and checks in (migration 0034). `import_key` is the
 * household key of the contacts import (Planning Center's Household ID, Breeze's and ChurchCRM's
 * Family): rows sharing a key end in one household, found again by the key on the next import.
 */
export const households = pgTable(
  'households',
  {
    ...tenantColumns,
    name: text('name').notNull(),
    street: text('street'),
    city: text('city'),
    country: text('country'),
    givingTogether: boolean('giving_together').notNull().default(false),
    // ON DELETE SET NULL (primary_contact_id) in the migration; the service recomputes it.
    primaryContactId: refId('primary_contact_id'),
    importKey: text('import_key'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ columns: [t.tenantId], foreignColumns: [tenants.id] }).onDelete('cascade'),
    foreignKey({ name: 'households_primary_contact_fk', columns: [t.tenantId, t.primaryContactId], foreignColumns: [contacts.tenantId, contacts.id] }),
    uniqueIndex('households_import_key_uq').on(t.tenantId, t.importKey).where(sql`${t.importKey} IS NOT NULL`),
    index('households_name_idx').on(t.tenantId, t.name, t.id),
    index('households_name_fold_trgm_idx').using('gin', sql`search_fold(${t.name}) gin_trgm_ops`),
  ],
);

/** A contact's place in a household; one household per contact (the primary key). */
export const householdMembers = pgTable(
  'household_members',
  {
    tenantId: refId('tenant_id').notNull(),
    householdId: refId('household_id').notNull(),
    contactId: refId('contact_id').notNull(),
    role: text('role', { enum: HOUSEHOLD_ROLES }).notNull(),
    /** Order of joining: the first Head, else the first member, is the default primary contact. */
    position: integer('position').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.contactId] }),
    foreignKey({ name: 'household_members_household_fk', columns: [t.tenantId, t.householdId], foreignColumns: [households.tenantId, households.id] }).onDelete('cascade'),
    foreignKey({ name: 'household_members_contact_fk', columns: [t.tenantId, t.contactId], foreignColumns: [contacts.tenantId, contacts.id] }).onDelete('cascade'),
    index('household_members_household_idx').on(t.tenantId, t.householdId, t.position),
    check('household_members_role_check', sql`${t.role} IN ('Head', 'Spouse', 'Child', 'Other')`),
  ],
);
