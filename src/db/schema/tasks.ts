import { sql } from 'drizzle-orm';
import { bigint, boolean, date, foreignKey, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, refId, tenantColumns, updatedAt } from './columns.js';
import { contactRequests, contacts } from './contacts.js';
import { changes } from './changes.js';
import { groups } from './groups.js';
import { tenants } from './tenants.js';
import { users } from './users.js';

/** Closed value sets of modules-contract §2. */
export const TASK_STATUSES = ['Open', 'InProgress', 'Done', 'Cancelled'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];
export const TASK_PRIORITIES = ['Low', 'Normal', 'High', 'Urgent'] as const;
export type TaskPriority = (typeof TASK_PRIORITIES)[number];
export const CARD_STATUSES = ['Active', 'Completed', 'Removed'] as const;
export type CardStatus = (typeof CARD_STATUSES)[number];
export const AUTOMATION_TRIGGERS = [
  'contact.created', 'attendance.first_visit', 'attendance.absent', 'request.created', 'membership_request.created', 'event.activity_recorded',
] as const;
export type AutomationTrigger = (typeof AUTOMATION_TRIGGERS)[number];

/**
 * A follow-up pipeline (New people …) and its ordered steps. Tenant-wide, like group categories.
 * Steps and cards reference each other with RESTRICT: a step or pipeline that holds cards is not
 * deleted (409 from the service; deactivate instead).
 */
export const pipelines = pgTable(
  'pipelines',
  {
    ...tenantColumns,
    name: text('name').notNull(),
    description: text('description'),
    isActive: boolean('is_active').notNull().default(true),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ columns: [t.tenantId], foreignColumns: [tenants.id] }).onDelete('cascade'),
    index('pipelines_name_idx').on(t.tenantId, t.name, t.id),
  ],
);

export const pipelineSteps = pgTable(
  'pipeline_steps',
  {
    ...tenantColumns,
    pipelineId: refId('pipeline_id').notNull(),
    name: text('name').notNull(),
    position: integer('position').notNull(),
    dueInDays: integer('due_in_days').notNull().default(0),
    // ON DELETE SET NULL (assignee_user_id) in the migration: a deleted account leaves the step unassigned.
    assigneeUserId: refId('assignee_user_id'),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ name: 'pipeline_steps_pipeline_fk', columns: [t.tenantId, t.pipelineId], foreignColumns: [pipelines.tenantId, pipelines.id] }).onDelete('cascade'),
    foreignKey({ name: 'pipeline_steps_assignee_fk', columns: [t.tenantId, t.assigneeUserId], foreignColumns: [users.tenantId, users.id] }),
    index('pipeline_steps_pipeline_idx').on(t.tenantId, t.pipelineId, t.position),
  ],
);

/** A contact moving through a pipeline; at most one Active card per (pipeline, contact). */
export const pipelineCards = pgTable(
  'pipeline_cards',
  {
    ...tenantColumns,
    pipelineId: refId('pipeline_id').notNull(),
    stepId: refId('step_id').notNull(),
    contactId: refId('contact_id').notNull(),
    assigneeUserId: refId('assignee_user_id'),
    groupId: refId('group_id'),
    status: text('status', { enum: CARD_STATUSES }).notNull().default('Active'),
    enteredStepAt: timestamp('entered_step_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    completedAt: timestamp('completed_at', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ name: 'pipeline_cards_pipeline_fk', columns: [t.tenantId, t.pipelineId], foreignColumns: [pipelines.tenantId, pipelines.id] }),
    foreignKey({ name: 'pipeline_cards_step_fk', columns: [t.tenantId, t.stepId], foreignColumns: [pipelineSteps.tenantId, pipelineSteps.id] }),
    foreignKey({ name: 'pipeline_cards_contact_fk', columns: [t.tenantId, t.contactId], foreignColumns: [contacts.tenantId, contacts.id] }).onDelete('cascade'),
    // SET NULL (column) in the migration for these two.
    foreignKey({ name: 'pipeline_cards_assignee_fk', columns: [t.tenantId, t.assigneeUserId], foreignColumns: [users.tenantId, users.id] }),
    foreignKey({ name: 'pipeline_cards_group_fk', columns: [t.tenantId, t.groupId], foreignColumns: [groups.tenantId, groups.id] }),
    uniqueIndex('pipeline_cards_active_uq').on(t.tenantId, t.pipelineId, t.contactId).where(sql`${t.status} = 'Active'`),
    // The board: the active cards of a step in entry order.
    index('pipeline_cards_board_idx').on(t.tenantId, t.stepId, t.enteredStepAt, t.id).where(sql`${t.status} = 'Active'`),
    // Board counts (an index-only scan of a pipeline's active cards by step) and lists by pipeline.
    index('pipeline_cards_pipeline_idx').on(t.tenantId, t.pipelineId, t.status, t.stepId, t.id),
    index('pipeline_cards_contact_idx').on(t.tenantId, t.contactId),
  ],
);

/**
 * Tasks. The references other than the tenant are nullable and cleared when their row goes
 * (ON DELETE SET NULL (column) in the migration: Drizzle cannot express the column list, and a
 * plain SET NULL would null tenant_id too). created_by has no foreign key: it is history.
 */
export const tasks = pgTable(
  'tasks',
  {
    ...tenantColumns,
    title: text('title').notNull(),
    description: text('description'),
    status: text('status', { enum: TASK_STATUSES }).notNull().default('Open'),
    priority: text('priority', { enum: TASK_PRIORITIES }).notNull().default('Normal'),
    dueDate: date('due_date', { mode: 'string' }),
    confidential: boolean('confidential').notNull().default(false),
    assigneeUserId: refId('assignee_user_id'),
    createdByUserId: refId('created_by_user_id'),
    contactId: refId('contact_id'),
    groupId: refId('group_id'),
    requestId: refId('request_id'),
    cardId: refId('card_id'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    completedAt: timestamp('completed_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ columns: [t.tenantId], foreignColumns: [tenants.id] }).onDelete('cascade'),
    foreignKey({ name: 'tasks_assignee_fk', columns: [t.tenantId, t.assigneeUserId], foreignColumns: [users.tenantId, users.id] }),
    foreignKey({ name: 'tasks_contact_fk', columns: [t.tenantId, t.contactId], foreignColumns: [contacts.tenantId, contacts.id] }),
    foreignKey({ name: 'tasks_group_fk', columns: [t.tenantId, t.groupId], foreignColumns: [groups.tenantId, groups.id] }),
    foreignKey({ name: 'tasks_request_fk', columns: [t.tenantId, t.requestId], foreignColumns: [contactRequests.tenantId, contactRequests.id] }),
    foreignKey({ name: 'tasks_card_fk', columns: [t.tenantId, t.cardId], foreignColumns: [pipelineCards.tenantId, pipelineCards.id] }),
    // assignee=me&overdue=true: a range of this partial index (today is a parameter).
    index('tasks_open_due_idx').on(t.tenantId, t.assigneeUserId, t.dueDate, t.id).where(sql`${t.status} in ('Open', 'InProgress')`),
    index('tasks_assignee_idx').on(t.tenantId, t.assigneeUserId, t.dueDate, t.id),
    index('tasks_due_idx').on(t.tenantId, t.dueDate, t.id),
    index('tasks_created_idx').on(t.tenantId, t.createdAt, t.id),
    index('tasks_creator_idx').on(t.tenantId, t.createdByUserId),
    index('tasks_contact_idx').on(t.tenantId, t.contactId),
    index('tasks_group_idx').on(t.tenantId, t.groupId),
    index('tasks_request_idx').on(t.tenantId, t.requestId),
    index('tasks_card_idx').on(t.tenantId, t.cardId, t.id),
    // The board's overdue counts: open, overdue tasks of cards, by a range on due_date.
    index('tasks_card_open_idx').on(t.tenantId, t.dueDate, t.cardId).where(sql`${t.cardId} is not null and ${t.status} in ('Open', 'InProgress')`),
    index('tasks_title_trgm_idx').using('gin', sql`lower(${t.title}) gin_trgm_ops`),
  ],
);

export const taskComments = pgTable(
  'task_comments',
  {
    ...tenantColumns,
    taskId: refId('task_id').notNull(),
    // No foreign key: a comment outlives its author's account (as changes do).
    authorUserId: refId('author_user_id'),
    body: text('body').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ name: 'task_comments_task_fk', columns: [t.tenantId, t.taskId], foreignColumns: [tasks.tenantId, tasks.id] }).onDelete('cascade'),
    index('task_comments_task_idx').on(t.tenantId, t.taskId, t.createdAt, t.id),
  ],
);

export interface AutomationAction {
  type: 'createTask' | 'addToPipeline';
  title?: string;
  dueInDays?: number;
  priority?: TaskPriority;
  pipelineId?: number;
  assignTo?: 'groupLeader' | number;
}

export const automations = pgTable(
  'automations',
  {
    ...tenantColumns,
    name: text('name').notNull(),
    trigger: text('trigger', { enum: AUTOMATION_TRIGGERS }).notNull(),
    conditions: jsonb('conditions').$type<Record<string, string | number | boolean | null>>().notNull().default({}),
    action: jsonb('action').$type<AutomationAction>().notNull(),
    isActive: boolean('is_active').notNull().default(true),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ columns: [t.tenantId], foreignColumns: [tenants.id] }).onDelete('cascade'),
    index('automations_trigger_idx').on(t.tenantId, t.trigger).where(sql`${t.isActive}`),
  ],
);

/**
 * Which automation already acted on which change: inserted ON CONFLICT DO NOTHING before acting,
 * in the subscriber's transaction, so a change delivered twice (a worker restarted between taking
 * and committing) never fires an automation twice.
 */
export const automationRuns = pgTable(
  'automation_runs',
  {
    tenantId: bigint('tenant_id', { mode: 'number' }).notNull(),
    automationId: refId('automation_id').notNull(),
    changeId: refId('change_id').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.automationId, t.changeId] }),
    foreignKey({ name: 'automation_runs_automation_fk', columns: [t.tenantId, t.automationId], foreignColumns: [automations.tenantId, automations.id] }).onDelete('cascade'),
    foreignKey({ name: 'automation_runs_change_fk', columns: [t.tenantId, t.changeId], foreignColumns: [changes.tenantId, changes.id] }).onDelete('cascade'),
  ],
);
