import { boolean, date, foreignKey, index, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, refId, tenantColumns, updatedAt } from './columns.js';
import { groupCategories, groups } from './groups.js';
import { tenants } from './tenants.js';

export const REPORT_FREQUENCIES = ['Weekly', 'Monthly'] as const;
export type ReportFrequency = (typeof REPORT_FREQUENCIES)[number];
export const REPORT_FIELD_TYPES = ['number', 'text', 'date', 'boolean', 'select'] as const;
export type ReportFieldType = (typeof REPORT_FIELD_TYPES)[number];

export interface ReportField {
  key: string;
  label: string;
  type: ReportFieldType;
  required: boolean;
  options: string[] | null;
}

/**
 * A report template (modules-contract §4): the weekly or monthly form the leaders of one group
 * category file. Its fields are a small bounded array (1–50), kept as jsonb on the template: they
 * are always read and written whole.
 */
export const reportTemplates = pgTable(
  'report_templates',
  {
    ...tenantColumns,
    name: text('name').notNull(),
    description: text('description'),
    groupCategoryId: refId('group_category_id').notNull(),
    frequency: text('frequency', { enum: REPORT_FREQUENCIES }).notNull().default('Weekly'),
    fields: jsonb('fields').$type<ReportField[]>().notNull(),
    isActive: boolean('is_active').notNull().default(true),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ columns: [t.tenantId], foreignColumns: [tenants.id] }).onDelete('cascade'),
    foreignKey({ name: 'report_templates_category_fk', columns: [t.tenantId, t.groupCategoryId], foreignColumns: [groupCategories.tenantId, groupCategories.id] }),
    index('report_templates_name_idx').on(t.tenantId, t.name, t.id),
    index('report_templates_category_idx').on(t.tenantId, t.groupCategoryId),
  ],
);

/** One filed report: unique per (template, group, period); period is the first day of the week or month. */
export const reportSubmissions = pgTable(
  'report_submissions',
  {
    ...tenantColumns,
    templateId: refId('template_id').notNull(),
    groupId: refId('group_id').notNull(),
    period: date('period', { mode: 'string' }).notNull(),
    values: jsonb('values').$type<Record<string, unknown>>().notNull(),
    // The submitting user's id; kept as history even if that account is later deleted (no FK).
    submittedBy: refId('submitted_by'),
    submittedAt: timestamp('submitted_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ columns: [t.tenantId], foreignColumns: [tenants.id] }).onDelete('cascade'),
    // A template with submissions cannot be deleted (409 from the service; RESTRICT is the net).
    foreignKey({ name: 'report_submissions_template_fk', columns: [t.tenantId, t.templateId], foreignColumns: [reportTemplates.tenantId, reportTemplates.id] }),
    foreignKey({ name: 'report_submissions_group_fk', columns: [t.tenantId, t.groupId], foreignColumns: [groups.tenantId, groups.id] }).onDelete('cascade'),
    // The uniqueness rule, and the index of the rollup and the list (template, then period, then group).
    uniqueIndex('report_submissions_uq').on(t.tenantId, t.templateId, t.period, t.groupId),
    index('report_submissions_group_idx').on(t.tenantId, t.groupId, t.period),
  ],
);

/** report.missing already emitted for (template, group, period): the schedule emits each once. */
export const reportMissingNotices = pgTable(
  'report_missing_notices',
  {
    tenantId: tenantColumns.tenantId,
    templateId: refId('template_id').notNull(),
    groupId: refId('group_id').notNull(),
    period: date('period', { mode: 'string' }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.templateId, t.groupId, t.period] }),
    foreignKey({ name: 'report_missing_notices_template_fk', columns: [t.tenantId, t.templateId], foreignColumns: [reportTemplates.tenantId, reportTemplates.id] }).onDelete('cascade'),
    foreignKey({ name: 'report_missing_notices_group_fk', columns: [t.tenantId, t.groupId], foreignColumns: [groups.tenantId, groups.id] }).onDelete('cascade'),
  ],
);
