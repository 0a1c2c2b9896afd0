import { sql } from 'drizzle-orm';
import { bigint, boolean, customType, foreignKey, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, refId, tenantColumns, updatedAt } from './columns.js';
import { contacts } from './contacts.js';
import { GROUP_PRIVACIES, MEMBERSHIP_REQUEST_STATUSES, MEMBERSHIP_ROLES } from './enums.js';
import { tenants } from './tenants.js';
import { users } from './users.js';

export const groupCategories = pgTable(
  'group_categories',
  {
    ...tenantColumns,
    name: text('name').notNull(),
    description: text('description'),
    purpose: text('purpose'),
    level: integer('level'),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ columns: [t.tenantId], foreignColumns: [tenants.id] }).onDelete('cascade'),
    uniqueIndex('group_categories_name_uq').on(t.tenantId, sql`lower(${t.name})`),
  ],
);

/**
 * The tree: parent_id plus a materialized path of ids ('/1/5/9/', the group's own id last), so
 * "everything under X" is `path LIKE X.path || '%'`, served by the text_pattern_ops index.
 */
export const groups = pgTable(
  'groups',
  {
    ...tenantColumns,
    name: text('name').notNull(),
    categoryId: refId('category_id').notNull(),
    parentId: refId('parent_id'),
    path: text('path').notNull(),
    privacy: text('privacy', { enum: GROUP_PRIVACIES }).notNull().default('Public'),
    details: text('details'),
    street: text('street'),
    city: text('city'),
    country: text('country'),
    metaData: jsonb('meta_data').$type<Record<string, unknown>>().notNull().default({}),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ columns: [t.tenantId], foreignColumns: [tenants.id] }).onDelete('cascade'),
    foreignKey({ name: 'groups_category_fk', columns: [t.tenantId, t.categoryId], foreignColumns: [groupCategories.tenantId, groupCategories.id] }),
    foreignKey({ name: 'groups_parent_fk', columns: [t.tenantId, t.parentId], foreignColumns: [t.tenantId, t.id] }),
    index('groups_path_idx').on(t.tenantId, sql`${t.path} text_pattern_ops`),
    index('groups_parent_idx').on(t.tenantId, t.parentId),
    index('groups_name_idx').on(t.tenantId, t.name, t.id),
    index('groups_category_idx').on(t.tenantId, t.categoryId),
    index('groups_name_trgm_idx').using('gin', sql`lower(${t.name}) gin_trgm_ops`),
    // The non-public groups only (a small part of a tenant): the list total counts the visible ones
    // in a led subtree by a range here, without touching the subtree's public groups.
    index('groups_private_path_idx').on(t.tenantId, sql`${t.path} text_pattern_ops`).where(sql`${t.privacy} <> 'Public'`),
  ],
);

/**
 * Groups per (tenant, privacy), kept exact by the database (migration 0006, the design of
 * contact_counts): statement triggers on groups append deltas to group_count_pending, a deferred
 * constraint trigger applies them at commit in key order. Only the triggers write it.
 */
export const groupCounts = pgTable(
  'group_counts',
  {
    tenantId: tenantColumns.tenantId,
    privacy: text('privacy', { enum: GROUP_PRIVACIES }).notNull(),
    n: bigint('n', { mode: 'number' }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.privacy] }),
    foreignKey({ columns: [t.tenantId], foreignColumns: [tenants.id] }).onDelete('cascade'),
  ],
);

/** PostgreSQL's 64-bit transaction id (pg_current_xact_id()); Drizzle has no builder for it. */
const xid8 = customType<{ data: string }>({ dataType: () => 'xid8' });

/**
 * Deltas of group_counts waiting for their transaction's commit (as contact_count_pending): no
 * primary key, no foreign key to tenants (rows never outlive their transaction, and a tenant's
 * deletion writes its groups' delete deltas here after the tenant row is gone).
 */
export const groupCountPending = pgTable(
  'group_count_pending',
  {
    xid: xid8('xid').notNull(),
    tenantId: tenantColumns.tenantId,
    privacy: text('privacy', { enum: GROUP_PRIVACIES }).notNull(),
    n: bigint('n', { mode: 'number' }).notNull(),
  },
  (t) => [index('group_count_pending_xid_idx').on(t.xid)],
);

export const groupMemberships = pgTable(
  'group_memberships',
  {
    ...tenantColumns,
    groupId: refId('group_id').notNull(),
    contactId: refId('contact_id').notNull(),
    role: text('role', { enum: MEMBERSHIP_ROLES }).notNull().default('Member'),
    isActive: boolean('is_active').notNull().default(true),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ name: 'group_memberships_group_fk', columns: [t.tenantId, t.groupId], foreignColumns: [groups.tenantId, groups.id] }).onDelete('cascade'),
    foreignKey({ name: 'group_memberships_contact_fk', columns: [t.tenantId, t.contactId], foreignColumns: [contacts.tenantId, contacts.id] }).onDelete('cascade'),
    uniqueIndex('group_memberships_uq').on(t.tenantId, t.groupId, t.contactId),
    index('group_memberships_contact_idx').on(t.tenantId, t.contactId),
  ],
);

export const groupMembershipRequests = pgTable(
  'group_membership_requests',
  {
    ...tenantColumns,
    groupId: refId('group_id').notNull(),
    contactId: refId('contact_id').notNull(),
    status: text('status', { enum: MEMBERSHIP_REQUEST_STATUSES }).notNull().default('Pending'),
    createdAt: createdAt(),
    handledAt: timestamp('handled_at', { withTimezone: true, mode: 'date' }),
    // The handling user; deleting that account clears it (migration 0018: ON DELETE SET NULL (handled_by)).
    handledBy: refId('handled_by'),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ name: 'group_membership_requests_group_fk', columns: [t.tenantId, t.groupId], foreignColumns: [groups.tenantId, groups.id] }).onDelete('cascade'),
    foreignKey({ name: 'group_membership_requests_contact_fk', columns: [t.tenantId, t.contactId], foreignColumns: [contacts.tenantId, contacts.id] }).onDelete('cascade'),
    uniqueIndex('group_membership_requests_pending_uq').on(t.tenantId, t.groupId, t.contactId).where(sql`${t.status} = 'Pending'`),
    index('group_membership_requests_status_idx').on(t.tenantId, t.status, t.id),
    foreignKey({ name: 'group_membership_requests_handled_by_fk', columns: [t.tenantId, t.handledBy], foreignColumns: [users.tenantId, users.id] }).onDelete('set null'),
    index('group_membership_requests_handled_by_idx').on(t.tenantId, t.handledBy).where(sql`${t.handledBy} IS NOT NULL`),
  ],
);
