import { sql } from 'drizzle-orm';
import { bigint, boolean, customType, date, foreignKey, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, refId, tenantColumns, updatedAt } from './columns.js';
import { contacts } from './contacts.js';
import { events } from './events.js';
import { groups } from './groups.js';
import { tenants } from './tenants.js';

/** Closed value sets of modules-contract §1. */
export const SERVICE_FREQUENCIES = ['Weekly', 'Biweekly', 'Monthly'] as const;
export const SESSION_SOURCES = ['Service', 'Group', 'Event'] as const;
export const RECORD_KINDS = ['Regular', 'Guest', 'Volunteer'] as const;
export const CHECKIN_STATUSES = ['CheckedIn', 'CheckedOut'] as const;
export type ServiceFrequency = (typeof SERVICE_FREQUENCIES)[number];
export type SessionSource = (typeof SESSION_SOURCES)[number];
export type RecordKind = (typeof RECORD_KINDS)[number];
export type CheckinStatus = (typeof CHECKIN_STATUSES)[number];

/** A recurring gathering held by a group (a Sunday service, a fellowship's weekly meeting). */
export const attendanceServices = pgTable(
  'attendance_services',
  {
    ...tenantColumns,
    name: text('name').notNull(),
    groupId: refId('group_id').notNull(),
    dayOfWeek: integer('day_of_week').notNull(),
    startTime: text('start_time').notNull(),
    frequency: text('frequency', { enum: SERVICE_FREQUENCIES }).notNull().default('Weekly'),
    headcountTypes: jsonb('headcount_types').$type<string[]>().notNull().default(['Adults', 'Children']),
    isActive: boolean('is_active').notNull().default(true),
    metaData: jsonb('meta_data').$type<Record<string, unknown>>().notNull().default({}),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ columns: [t.tenantId], foreignColumns: [tenants.id] }).onDelete('cascade'),
    foreignKey({ name: 'attendance_services_group_fk', columns: [t.tenantId, t.groupId], foreignColumns: [groups.tenantId, groups.id] }).onDelete('cascade'),
    index('attendance_services_group_idx').on(t.tenantId, t.groupId),
    index('attendance_services_name_idx').on(t.tenantId, t.name, t.id),
  ],
);

/**
 * One dated occurrence of a service, of an ad hoc group meeting or of an event: one per (source,
 * date). group_id is the service's group, the meeting's group or the event's host (null only for
 * an event without a group); a trigger of migration 0008 follows an event's move to another group.
 */
export const attendanceSessions = pgTable(
  'attendance_sessions',
  {
    ...tenantColumns,
    date: date('date', { mode: 'string' }).notNull(),
    source: text('source', { enum: SESSION_SOURCES }).notNull(),
    serviceId: refId('service_id'),
    groupId: refId('group_id'),
    eventId: refId('event_id'),
    didNotMeet: boolean('did_not_meet').notNull().default(false),
    notes: text('notes'),
    // Counters of the session's records and headcounts, kept at commit by the triggers of migration
    // 0015 (not written by the services; not current inside the writing transaction).
    presentCount: integer('present_count').notNull().default(0),
    guestCount: integer('guest_count').notNull().default(0),
    volunteerCount: integer('volunteer_count').notNull().default(0),
    firstTimeCount: integer('first_time_count').notNull().default(0),
    headcountTotal: bigint('headcount_total', { mode: 'number' }).notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ columns: [t.tenantId], foreignColumns: [tenants.id] }).onDelete('cascade'),
    // A service with sessions is deactivated, not deleted (409 from the service; RESTRICT is the net).
    foreignKey({ name: 'attendance_sessions_service_fk', columns: [t.tenantId, t.serviceId], foreignColumns: [attendanceServices.tenantId, attendanceServices.id] }),
    foreignKey({ name: 'attendance_sessions_group_fk', columns: [t.tenantId, t.groupId], foreignColumns: [groups.tenantId, groups.id] }).onDelete('cascade'),
    foreignKey({ name: 'attendance_sessions_event_fk', columns: [t.tenantId, t.eventId], foreignColumns: [events.tenantId, events.id] }).onDelete('cascade'),
    uniqueIndex('attendance_sessions_service_uq').on(t.tenantId, t.serviceId, t.date).where(sql`${t.source} = 'Service'`),
    uniqueIndex('attendance_sessions_group_uq').on(t.tenantId, t.groupId, t.date).where(sql`${t.source} = 'Group'`),
    uniqueIndex('attendance_sessions_event_uq').on(t.tenantId, t.eventId, t.date).where(sql`${t.source} = 'Event'`),
    index('attendance_sessions_group_date_idx').on(t.tenantId, t.groupId, t.date, t.id),
    index('attendance_sessions_date_idx').on(t.tenantId, t.date, t.id),
  ],
);

/** Anonymous tallies of a session, one per type. */
export const attendanceHeadcounts = pgTable(
  'attendance_headcounts',
  {
    tenantId: tenantColumns.tenantId,
    sessionId: refId('session_id').notNull(),
    type: text('type').notNull(),
    count: integer('count').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.sessionId, t.type] }),
    foreignKey({ name: 'attendance_headcounts_session_fk', columns: [t.tenantId, t.sessionId], foreignColumns: [attendanceSessions.tenantId, attendanceSessions.id] }).onDelete('cascade'),
  ],
);

/**
 * A contact's first attendance ever in the tenant: the primary key makes "first" a unique
 * constraint (INSERT … ON CONFLICT DO NOTHING in the records' insert trigger), so two concurrent
 * posts for one contact cannot both be first. record_id has no foreign key: the row is inserted
 * from the record's BEFORE trigger, and the first visit stays history if that record is removed.
 */
export const contactFirstVisits = pgTable(
  'contact_first_visits',
  {
    tenantId: tenantColumns.tenantId,
    contactId: refId('contact_id').notNull(),
    recordId: refId('record_id').notNull(),
    date: date('date', { mode: 'string' }).notNull(),
    createdAt: createdAt(),
    // Kept by the triggers of migration 0015 (the retention funnel reads them): the contact's records,
    // the first of them dated on or after the first visit other than the first record, the first
    // record's group (no foreign key: it follows the record), and whether the first record still exists.
    visits: integer('visits').notNull().default(0),
    returnedOn: date('returned_on', { mode: 'string' }),
    groupId: refId('group_id'),
    firstKept: boolean('first_kept').notNull().default(true),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.contactId] }),
    index('contact_first_visits_group_idx').on(t.tenantId, t.groupId),
    foreignKey({ name: 'contact_first_visits_contact_fk', columns: [t.tenantId, t.contactId], foreignColumns: [contacts.tenantId, contacts.id] }).onDelete('cascade'),
    index('contact_first_visits_date_idx').on(t.tenantId, t.date),
  ],
);

/**
 * One security code handed to a family checked in together. The partial unique index keeps a code
 * unique among the session's OPEN check-ins (a closed code may come back).
 */
export const attendanceCheckinCodes = pgTable(
  'attendance_checkin_codes',
  {
    ...tenantColumns,
    sessionId: refId('session_id').notNull(),
    code: text('code').notNull(),
    isOpen: boolean('is_open').notNull().default(true),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ name: 'attendance_checkin_codes_session_fk', columns: [t.tenantId, t.sessionId], foreignColumns: [attendanceSessions.tenantId, attendanceSessions.id] }).onDelete('cascade'),
    uniqueIndex('attendance_checkin_codes_open_uq').on(t.tenantId, t.sessionId, t.code).where(sql`${t.isOpen}`),
  ],
);

export const attendanceCheckins = pgTable(
  'attendance_checkins',
  {
    ...tenantColumns,
    sessionId: refId('session_id').notNull(),
    contactId: refId('contact_id').notNull(),
    codeId: refId('code_id').notNull(),
    securityCode: text('security_code').notNull(),
    roomGroupId: refId('room_group_id'),
    status: text('status', { enum: CHECKIN_STATUSES }).notNull().default('CheckedIn'),
    checkedInAt: timestamp('checked_in_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    checkedOutAt: timestamp('checked_out_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ name: 'attendance_checkins_session_fk', columns: [t.tenantId, t.sessionId], foreignColumns: [attendanceSessions.tenantId, attendanceSessions.id] }).onDelete('cascade'),
    foreignKey({ name: 'attendance_checkins_contact_fk', columns: [t.tenantId, t.contactId], foreignColumns: [contacts.tenantId, contacts.id] }).onDelete('cascade'),
    foreignKey({ name: 'attendance_checkins_code_fk', columns: [t.tenantId, t.codeId], foreignColumns: [attendanceCheckinCodes.tenantId, attendanceCheckinCodes.id] }).onDelete('cascade'),
    foreignKey({ name: 'attendance_checkins_room_fk', columns: [t.tenantId, t.roomGroupId], foreignColumns: [groups.tenantId, groups.id] }).onDelete('set null'),
    // One open check-in per contact and session.
    uniqueIndex('attendance_checkins_open_uq').on(t.tenantId, t.sessionId, t.contactId).where(sql`${t.status} = 'CheckedIn'`),
    index('attendance_checkins_session_idx').on(t.tenantId, t.sessionId, t.id),
    index('attendance_checkins_code_idx').on(t.tenantId, t.codeId),
  ],
);

/**
 * attendance.absent is emitted once per (contact, group, last missed session): the daily schedule
 * inserts here ON CONFLICT DO NOTHING and records a change only for the rows it inserted.
 */
export const attendanceAbsenceAlerts = pgTable(
  'attendance_absence_alerts',
  {
    ...tenantColumns,
    contactId: refId('contact_id').notNull(),
    groupId: refId('group_id').notNull(),
    lastSessionId: refId('last_session_id').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ name: 'attendance_absence_alerts_contact_fk', columns: [t.tenantId, t.contactId], foreignColumns: [contacts.tenantId, contacts.id] }).onDelete('cascade'),
    foreignKey({ name: 'attendance_absence_alerts_group_fk', columns: [t.tenantId, t.groupId], foreignColumns: [groups.tenantId, groups.id] }).onDelete('cascade'),
    foreignKey({ name: 'attendance_absence_alerts_session_fk', columns: [t.tenantId, t.lastSessionId], foreignColumns: [attendanceSessions.tenantId, attendanceSessions.id] }).onDelete('cascade'),
    uniqueIndex('attendance_absence_alerts_uq').on(t.tenantId, t.contactId, t.groupId, t.lastSessionId),
  ],
);

/**
 * The one attendance store: a contact present at a session, from /api/attendance, check-in or
 * event attendance (POST /api/events/:id/attendance) alike. date, group_id and event_id copy the
 * session's (the insert trigger of migration 0008 fills them, and fills session_id from event_id for
 * a row inserted with only an event: the event's session on its start date), so the feed filters and
 * sorts on one table. is_first_time is set by the same trigger from contact_first_visits.
 */
export const attendanceRecords = pgTable(
  'attendance_records',
  {
    ...tenantColumns,
    // NOT NULL in the database; optional here because the trigger fills it from event_id.
    sessionId: refId('session_id'),
    eventId: refId('event_id'),
    groupId: refId('group_id'),
    date: date('date', { mode: 'string' }),
    /** Null once the person was erased: the record stays as a count (modules-contract §7). */
    contactId: refId('contact_id'),
    kind: text('kind', { enum: RECORD_KINDS }).notNull().default('Regular'),
    isFirstTime: boolean('is_first_time').notNull().default(false),
    attendedAt: timestamp('attended_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    checkedInAt: timestamp('checked_in_at', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ name: 'attendance_records_session_fk', columns: [t.tenantId, t.sessionId], foreignColumns: [attendanceSessions.tenantId, attendanceSessions.id] }).onDelete('cascade'),
    foreignKey({ name: 'attendance_records_event_fk', columns: [t.tenantId, t.eventId], foreignColumns: [events.tenantId, events.id] }).onDelete('cascade'),
    foreignKey({ name: 'attendance_records_contact_fk', columns: [t.tenantId, t.contactId], foreignColumns: [contacts.tenantId, contacts.id] }).onDelete('cascade'),
    uniqueIndex('attendance_records_session_contact_uq').on(t.tenantId, t.sessionId, t.contactId),
    // group_id before date: a member's last attendance at one group's sessions (absentees) reads the index alone.
    index('attendance_records_contact_group_idx').on(t.tenantId, t.contactId, t.groupId, t.date),
    index('attendance_records_event_idx').on(t.tenantId, t.eventId, t.attendedAt, t.id),
    index('attendance_records_date_idx').on(t.tenantId, t.date, t.id),
    index('attendance_records_group_date_idx').on(t.tenantId, t.groupId, t.date, t.id),
  ],
);

/**
 * The tenant's sessions and their counters summed per day and didNotMeet (migration 0015's triggers
 * keep it at commit): the whole tenant's feed total and summary over a window read a few hundred rows.
 */
export const attendanceDailyCounts = pgTable(
  'attendance_daily_counts',
  {
    tenantId: tenantColumns.tenantId,
    date: date('date', { mode: 'string' }).notNull(),
    didNotMeet: boolean('did_not_meet').notNull(),
    sessions: bigint('sessions', { mode: 'number' }).notNull(),
    present: bigint('present', { mode: 'number' }).notNull(),
    guests: bigint('guests', { mode: 'number' }).notNull(),
    volunteers: bigint('volunteers', { mode: 'number' }).notNull(),
    firstTime: bigint('first_time', { mode: 'number' }).notNull(),
    headcount: bigint('headcount', { mode: 'number' }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.date, t.didNotMeet] }),
    foreignKey({ columns: [t.tenantId], foreignColumns: [tenants.id] }).onDelete('cascade'),
  ],
);

const xid8 = customType<{ data: string }>({ dataType: () => 'xid8' });

/**
 * Deltas of a transaction's attendance writes, applied to the session counters and the daily rollup
 * at commit by a deferred trigger (migration 0015); empty outside a writing transaction.
 */
export const attendanceCountPending = pgTable(
  'attendance_count_pending',
  {
    xid: xid8('xid').notNull(),
    tenantId: tenantColumns.tenantId,
    sessionId: refId('session_id'),
    date: date('date', { mode: 'string' }),
    didNotMeet: boolean('did_not_meet'),
    sessions: bigint('sessions', { mode: 'number' }).notNull().default(0),
    present: bigint('present', { mode: 'number' }).notNull().default(0),
    guests: bigint('guests', { mode: 'number' }).notNull().default(0),
    volunteers: bigint('volunteers', { mode: 'number' }).notNull().default(0),
    firstTime: bigint('first_time', { mode: 'number' }).notNull().default(0),
    headcount: bigint('headcount', { mode: 'number' }).notNull().default(0),
  },
  (t) => [index('attendance_count_pending_xid_idx').on(t.xid)],
);
