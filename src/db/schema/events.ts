import { sql } from 'drizzle-orm';
import { date, foreignKey, index, jsonb, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, refId, tenantColumns, updatedAt } from './columns.js';
import { contacts } from './contacts.js';
import { ACTIVITY_TYPES } from './enums.js';
import { groups } from './groups.js';
import { tenants } from './tenants.js';

export const eventCategories = pgTable(
  'event_categories',
  {
    ...tenantColumns,
    name: text('name').notNull(),
    description: text('description'),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ columns: [t.tenantId], foreignColumns: [tenants.id] }).onDelete('cascade'),
    uniqueIndex('event_categories_name_uq').on(t.tenantId, sql`lower(${t.name})`),
  ],
);

export const events = pgTable(
  'events',
  {
    ...tenantColumns,
    name: text('name').notNull(),
    description: text('description'),
    startDate: date('start_date', { mode: 'string' }).notNull(),
    endDate: date('end_date', { mode: 'string' }).notNull(),
    groupId: refId('group_id'),
    categoryId: refId('category_id'),
    metaData: jsonb('meta_data').$type<Record<string, unknown>>().notNull().default({}),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ columns: [t.tenantId], foreignColumns: [tenants.id] }).onDelete('cascade'),
    // A group hosting events cannot be deleted (409 from the service; RESTRICT is the net).
    foreignKey({ name: 'events_group_fk', columns: [t.tenantId, t.groupId], foreignColumns: [groups.tenantId, groups.id] }),
    foreignKey({ name: 'events_category_fk', columns: [t.tenantId, t.categoryId], foreignColumns: [eventCategories.tenantId, eventCategories.id] }),
    index('events_start_idx').on(t.tenantId, t.startDate, t.id),
    index('events_group_idx').on(t.tenantId, t.groupId, t.startDate),
    index('events_category_idx').on(t.tenantId, t.categoryId),
  ],
);

export const eventRegistrations = pgTable(
  'event_registrations',
  {
    ...tenantColumns,
    eventId: refId('event_id').notNull(),
    contactId: refId('contact_id').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ name: 'event_registrations_event_fk', columns: [t.tenantId, t.eventId], foreignColumns: [events.tenantId, events.id] }).onDelete('cascade'),
    foreignKey({ name: 'event_registrations_contact_fk', columns: [t.tenantId, t.contactId], foreignColumns: [contacts.tenantId, contacts.id] }).onDelete('cascade'),
    uniqueIndex('event_registrations_uq').on(t.tenantId, t.eventId, t.contactId),
    index('event_registrations_contact_idx').on(t.tenantId, t.contactId),
  ],
);

// attendance_records (the one attendance store) lives in ./attendance.ts with its sessions.

export const eventActivities = pgTable(
  'event_activities',
  {
    ...tenantColumns,
    eventId: refId('event_id').notNull(),
    activityType: text('activity_type', { enum: ACTIVITY_TYPES }).notNull(),
    notes: text('notes'),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ name: 'event_activities_event_fk', columns: [t.tenantId, t.eventId], foreignColumns: [events.tenantId, events.id] }).onDelete('cascade'),
    index('event_activities_event_idx').on(t.tenantId, t.eventId),
  ],
);

export const eventActivityContacts = pgTable(
  'event_activity_contacts',
  {
    tenantId: tenantColumns.tenantId,
    activityId: refId('activity_id').notNull(),
    contactId: refId('contact_id').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.activityId, t.contactId] }),
    foreignKey({ name: 'event_activity_contacts_activity_fk', columns: [t.tenantId, t.activityId], foreignColumns: [eventActivities.tenantId, eventActivities.id] }).onDelete('cascade'),
    foreignKey({ name: 'event_activity_contacts_contact_fk', columns: [t.tenantId, t.contactId], foreignColumns: [contacts.tenantId, contacts.id] }).onDelete('cascade'),
    index('event_activity_contacts_contact_idx').on(t.tenantId, t.contactId),
  ],
);
