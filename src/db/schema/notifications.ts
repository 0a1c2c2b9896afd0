import { sql } from 'drizzle-orm';
import { boolean, check, foreignKey, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, refId, tenantColumns, updatedAt } from './columns.js';
import { changes } from './changes.js';
import { contacts } from './contacts.js';
import { tenants } from './tenants.js';
import { users } from './users.js';

export const MESSAGE_STATUSES = ['Queued', 'Sending', 'Sent', 'Logged', 'Failed'] as const;
export const MESSAGE_DELIVERY_STATUSES = ['Queued', 'Sent', 'Logged', 'Failed'] as const;
export const WEBHOOK_DELIVERY_STATUSES = ['Pending', 'Succeeded', 'Failed'] as const;

/** The in-app inbox: one row per (recipient user, change that concerns them). */
export const notifications = pgTable(
  'notifications',
  {
    ...tenantColumns,
    userId: refId('user_id').notNull(),
    type: text('type').notNull(),
    title: text('title').notNull(),
    body: text('body').notNull(),
    entityType: text('entity_type'),
    entityId: refId('entity_id'),
    changeId: refId('change_id'),
    createdAt: createdAt(),
    readAt: timestamp('read_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ name: 'notifications_user_fk', columns: [t.tenantId, t.userId], foreignColumns: [users.tenantId, users.id] }).onDelete('cascade'),
    index('notifications_user_idx').on(t.tenantId, t.userId, t.id),
    // The unread count and the unread filter read only this (small) partial index.
    index('notifications_unread_idx').on(t.tenantId, t.userId, t.id).where(sql`${t.readAt} is null`),
  ],
);

/** Per-user overrides of the defaults (every type in-app and by email): only `false`s need a row. */
export const notificationPreferences = pgTable(
  'notification_preferences',
  {
    tenantId: tenantColumns.tenantId,
    userId: refId('user_id').notNull(),
    email: jsonb('email').$type<Record<string, boolean>>().notNull().default({}),
    inApp: jsonb('in_app').$type<Record<string, boolean>>().notNull().default({}),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.userId] }),
    foreignKey({ name: 'notification_preferences_user_fk', columns: [t.tenantId, t.userId], foreignColumns: [users.tenantId, users.id] }).onDelete('cascade'),
  ],
);

export const messageTemplates = pgTable(
  'message_templates',
  {
    ...tenantColumns,
    name: text('name').notNull(),
    subject: text('subject').notNull(),
    body: text('body').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ columns: [t.tenantId], foreignColumns: [tenants.id] }).onDelete('cascade'),
    uniqueIndex('message_templates_name_uq').on(t.tenantId, sql`lower(${t.name})`),
    index('message_templates_order_idx').on(t.tenantId, t.name, t.id),
  ],
);

/** An email to an audience; its recipients are message_deliveries, sent in batches by jobs. */
export const messages = pgTable(
  'messages',
  {
    ...tenantColumns,
    channel: text('channel').notNull().default('Email'),
    subject: text('subject').notNull(),
    body: text('body').notNull(),
    // No foreign key: the message keeps its history when the template is deleted.
    templateId: refId('template_id'),
    audience: jsonb('audience').$type<Record<string, unknown>>().notNull().default({}),
    status: text('status', { enum: MESSAGE_STATUSES }).notNull().default('Queued'),
    recipientCount: integer('recipient_count').notNull().default(0),
    skippedNoEmail: integer('skipped_no_email').notNull().default(0),
    skippedOptedOut: integer('skipped_opted_out').notNull().default(0),
    sent: integer('sent').notNull().default(0),
    failed: integer('failed').notNull().default(0),
    // The sender; no foreign key, the log outlives the account.
    createdBy: refId('created_by'),
    createdAt: createdAt(),
    completedAt: timestamp('completed_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ columns: [t.tenantId], foreignColumns: [tenants.id] }).onDelete('cascade'),
    index('messages_status_idx').on(t.tenantId, t.status, t.id),
    check('messages_status_ck', sql`${t.status} in ('Queued', 'Sending', 'Sent', 'Logged', 'Failed')`),
  ],
);

export const messageDeliveries = pgTable(
  'message_deliveries',
  {
    ...tenantColumns,
    messageId: refId('message_id').notNull(),
    contactId: refId('contact_id').notNull(),
    email: text('email').notNull(),
    status: text('status', { enum: MESSAGE_DELIVERY_STATUSES }).notNull().default('Queued'),
    error: text('error'),
    sentAt: timestamp('sent_at', { withTimezone: true, mode: 'date' }),
    /** Taken by a sending job until then (a job that dies leaves its batch to the next after this). */
    claimedUntil: timestamp('claimed_until', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ name: 'message_deliveries_message_fk', columns: [t.tenantId, t.messageId], foreignColumns: [messages.tenantId, messages.id] }).onDelete('cascade'),
    foreignKey({ name: 'message_deliveries_contact_fk', columns: [t.tenantId, t.contactId], foreignColumns: [contacts.tenantId, contacts.id] }).onDelete('cascade'),
    index('message_deliveries_message_idx').on(t.tenantId, t.messageId, t.id),
    index('message_deliveries_status_idx').on(t.tenantId, t.messageId, t.status, t.id),
    index('message_deliveries_contact_idx').on(t.tenantId, t.contactId),
    check('message_deliveries_status_ck', sql`${t.status} in ('Queued', 'Sent', 'Logged', 'Failed')`),
  ],
);

/** Webhook subscriptions; the secret is stored encrypted (AES-256-GCM, see webhooks.crypto.ts). */
export const webhooks = pgTable(
  'webhooks',
  {
    ...tenantColumns,
    url: text('url').notNull(),
    events: text('events').array().notNull(),
    description: text('description'),
    isActive: boolean('is_active').notNull().default(true),
    secretEncrypted: text('secret_encrypted').notNull(),
    /** Whose permissions bound what it receives: the user who created or last changed it (no foreign key, as messages.created_by). */
    ownerUserId: refId('owner_user_id'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ columns: [t.tenantId], foreignColumns: [tenants.id] }).onDelete('cascade'),
    // The fan-out reads a tenant's active webhooks for every change.
    index('webhooks_active_idx').on(t.tenantId, t.id).where(sql`${t.isActive}`),
  ],
);

export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    ...tenantColumns,
    webhookId: refId('webhook_id').notNull(),
    changeId: refId('change_id').notNull(),
    type: text('type').notNull(),
    status: text('status', { enum: WEBHOOK_DELIVERY_STATUSES }).notNull().default('Pending'),
    attempts: integer('attempts').notNull().default(0),
    lastStatusCode: integer('last_status_code'),
    lastError: text('last_error'),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true, mode: 'date' }).defaultNow(),
    deliveredAt: timestamp('delivered_at', { withTimezone: true, mode: 'date' }),
    /** Set on a redelivery: the delivery it repeats. */
    redeliveryOf: refId('redelivery_of'),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ name: 'webhook_deliveries_webhook_fk', columns: [t.tenantId, t.webhookId], foreignColumns: [webhooks.tenantId, webhooks.id] }).onDelete('cascade'),
    // The payload is read from the change at delivery time.
    foreignKey({ name: 'webhook_deliveries_change_fk', columns: [t.tenantId, t.changeId], foreignColumns: [changes.tenantId, changes.id] }).onDelete('cascade'),
    index('webhook_deliveries_webhook_idx').on(t.tenantId, t.webhookId, t.id),
    index('webhook_deliveries_status_idx').on(t.tenantId, t.webhookId, t.status, t.id),
    check('webhook_deliveries_status_ck', sql`${t.status} in ('Pending', 'Succeeded', 'Failed')`),
  ],
);
