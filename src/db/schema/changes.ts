import { sql } from 'drizzle-orm';
import { bigint, foreignKey, index, integer, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { createdAt, refId, tenantColumns } from './columns.js';
import { tenants } from './tenants.js';

export type FieldChanges = Record<string, { from: unknown; to: unknown }>;

/**
 * The change feed: one row per change of a record, written in the same transaction as the write
 * (src/changes/recorder.ts). The audit log, the timeline, automations, notifications and webhooks
 * all read it. `actor_user_id` has no foreign key: the trail outlives the account.
 */
export const changes = pgTable(
  'changes',
  {
    ...tenantColumns,
    type: text('type').notNull(),
    entityType: text('entity_type').notNull(),
    entityId: bigint('entity_id', { mode: 'number' }).notNull(),
    actorUserId: refId('actor_user_id'),
    changes: jsonb('changes').$type<FieldChanges | null>(),
    data: jsonb('data').$type<Record<string, unknown>>().notNull().default({}),
    occurredAt: timestamp('occurred_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ columns: [t.tenantId], foreignColumns: [tenants.id] }).onDelete('cascade'),
    index('changes_entity_idx').on(t.tenantId, t.entityType, t.entityId, t.id),
    index('changes_occurred_idx').on(t.tenantId, t.occurredAt, t.id),
    index('changes_actor_idx').on(t.tenantId, t.actorUserId, t.id),
    index('changes_type_idx').on(t.tenantId, t.type, t.id),
    // The contact timeline: changes about a person carry data.contactId (the convention of src/changes).
    // On the jsonb value, not a cast to bigint: a cast in an index would make any insert whose
    // contactId is not an integer fail, and with it the write it records.
    index('changes_contact_idx').on(t.tenantId, sql`(${t.data}->'contactId')`, t.id),
  ],
);

/**
 * Changes not yet handed to the subscribers (src/changes/subscribers.ts). The worker takes rows with
 * FOR UPDATE SKIP LOCKED, runs the subscribers in a savepoint (per batch, or per change after a
 * failure) and deletes the rows in the same transaction: a crash before commit leaves the row, so nothing is lost and no subscriber's
 * work is kept twice.
 */
export const changeQueue = pgTable(
  'change_queue',
  {
    tenantId: bigint('tenant_id', { mode: 'number' }).notNull(),
    changeId: bigint('change_id', { mode: 'number' }).notNull(),
    attempts: integer('attempts').notNull().default(0),
    availableAt: timestamp('available_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    lastError: text('last_error'),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.changeId] }),
    foreignKey({ columns: [t.tenantId, t.changeId], foreignColumns: [changes.tenantId, changes.id] }).onDelete('cascade'),
    index('change_queue_next_idx').on(t.changeId),
    // Changes waiting for a retry (only failed ones have attempts): what holds back the later
    // changes of the same record, found without reading the whole queue of a busy tenant.
    index('change_queue_retry_idx').on(t.tenantId, t.changeId).where(sql`attempts > 0`),
  ],
);

export const JOB_STATUSES = ['Pending', 'Running', 'Done', 'Failed'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** Background jobs (src/jobs/queue.ts): rows, not promises, so a restart resumes them. */
export const jobs = pgTable(
  'jobs',
  {
    ...tenantColumns,
    kind: text('kind').notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull().default({}),
    status: text('status').$type<JobStatus>().notNull().default('Pending'),
    runAt: timestamp('run_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    attempts: integer('attempts').notNull().default(0),
    maxAttempts: integer('max_attempts').notNull().default(8),
    lockedUntil: timestamp('locked_until', { withTimezone: true, mode: 'date' }),
    lastError: text('last_error'),
    createdAt: createdAt(),
    finishedAt: timestamp('finished_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ columns: [t.tenantId], foreignColumns: [tenants.id] }).onDelete('cascade'),
    index('jobs_due_idx').on(t.runAt).where(sql`status = 'Pending'`),
    index('jobs_running_idx').on(t.lockedUntil).where(sql`status = 'Running'`),
  ],
);

/** Recurring work: a row per schedule; whichever process moves next_run_at first runs it. */
export const schedules = pgTable('schedules', {
  name: text('name').primaryKey(),
  nextRunAt: timestamp('next_run_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  lastRunAt: timestamp('last_run_at', { withTimezone: true, mode: 'date' }),
});

/** Idempotency-Key records (modules-contract §0): per (tenant, user, key), kept 24 hours. */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    tenantId: bigint('tenant_id', { mode: 'number' }).notNull(),
    userId: bigint('user_id', { mode: 'number' }).notNull(),
    key: text('key').notNull(),
    requestHash: text('request_hash').notNull(),
    /** Null while the first request is still running. */
    statusCode: integer('status_code'),
    responseBody: text('response_body'),
    responseType: text('response_type'),
    /** The route of a stored 201 and the `id` of its body: deleting that thing withdraws the response. */
    route: text('route'),
    resourceId: bigint('resource_id', { mode: 'number' }),
    /** Why the stored response was withdrawn (its thing deleted, its person erased): a replay answers 410 with it. */
    withdrawn: text('withdrawn'),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.userId, t.key] }),
    foreignKey({ columns: [t.tenantId], foreignColumns: [tenants.id] }).onDelete('cascade'),
    index('idempotency_keys_created_idx').on(t.createdAt),
    index('idempotency_keys_resource_idx').on(t.tenantId, t.route, t.resourceId).where(sql`${t.resourceId} is not null`),
  ],
);
