import { sql } from 'drizzle-orm';
import { bigint, boolean, customType, date, foreignKey, index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, refId, tenantColumns, updatedAt } from './columns.js';
import { contacts } from './contacts.js';
import { tenants } from './tenants.js';

/**
 * Finance (modules-contract §3). Money is bigint minor units everywhere ({mode: 'number'} is safe:
 * amounts are at most 10^12 and sums of them stay far below 2^53 per tenant and period).
 */

export const BATCH_STATUSES = ['Open', 'Closed'] as const;
export type BatchStatus = (typeof BATCH_STATUSES)[number];
export const CONTRIBUTION_METHODS = ['Cash', 'Check', 'Card', 'BankTransfer', 'MobileMoney', 'Online', 'Other'] as const;
export type ContributionMethod = (typeof CONTRIBUTION_METHODS)[number];
export const CONTRIBUTION_STATUSES = ['Completed', 'Refunded', 'PartiallyRefunded'] as const;
export type ContributionStatus = (typeof CONTRIBUTION_STATUSES)[number];
export const PLEDGE_FREQUENCIES = ['OneTime', 'Weekly', 'Monthly', 'Quarterly', 'Yearly'] as const;
export type PledgeFrequency = (typeof PLEDGE_FREQUENCIES)[number];

const money = (name: string) => bigint(name, { mode: 'number' });

export const funds = pgTable(
  'funds',
  {
    ...tenantColumns,
    name: text('name').notNull(),
    code: text('code'),
    description: text('description'),
    isTaxDeductible: boolean('is_tax_deductible').notNull().default(true),
    isActive: boolean('is_active').notNull().default(true),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ columns: [t.tenantId], foreignColumns: [tenants.id] }).onDelete('cascade'),
    uniqueIndex('funds_name_uq').on(t.tenantId, sql`lower(${t.name})`),
    uniqueIndex('funds_code_uq').on(t.tenantId, sql`lower(${t.code})`),
  ],
);

export const batches = pgTable(
  'batches',
  {
    ...tenantColumns,
    name: text('name').notNull(),
    date: date('date', { mode: 'string' }).notNull(),
    status: text('status', { enum: BATCH_STATUSES }).notNull().default('Open'),
    controlAmount: money('control_amount').notNull().default(0),
    controlCount: integer('control_count').notNull().default(0),
    closedAt: timestamp('closed_at', { withTimezone: true, mode: 'date' }),
    /** The user who closed it; no foreign key: the record outlives the account. */
    closedBy: refId('closed_by'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ columns: [t.tenantId], foreignColumns: [tenants.id] }).onDelete('cascade'),
    index('batches_date_idx').on(t.tenantId, t.date, t.id),
    index('batches_status_idx').on(t.tenantId, t.status, t.date),
  ],
);

/**
 * A gift. `contact_id` null is an anonymous gift; deleting (or erasing) a contact keeps the money and
 * unlinks it (the migration says ON DELETE SET NULL (contact_id): only that column of the composite key).
 * `is_unmatched` marks imported rows whose payer matched no contact; payer_* keep what the bank sent.
 */
export const contributions = pgTable(
  'contributions',
  {
    ...tenantColumns,
    contactId: refId('contact_id'),
    date: date('date', { mode: 'string' }).notNull(),
    amount: money('amount').notNull(),
    refundedAmount: money('refunded_amount').notNull().default(0),
    method: text('method', { enum: CONTRIBUTION_METHODS }).notNull(),
    status: text('status', { enum: CONTRIBUTION_STATUSES }).notNull().default('Completed'),
    reference: text('reference'),
    notes: text('notes'),
    batchId: refId('batch_id'),
    isUnmatched: boolean('is_unmatched').notNull().default(false),
    payerName: text('payer_name'),
    payerEmail: text('payer_email'),
    payerPhone: text('payer_phone'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ columns: [t.tenantId], foreignColumns: [tenants.id] }).onDelete('cascade'),
    foreignKey({ name: 'contributions_contact_fk', columns: [t.tenantId, t.contactId], foreignColumns: [contacts.tenantId, contacts.id] }).onDelete('set null'),
    foreignKey({ name: 'contributions_batch_fk', columns: [t.tenantId, t.batchId], foreignColumns: [batches.tenantId, batches.id] }),
    index('contributions_date_idx').on(t.tenantId, t.date, t.id),
    index('contributions_contact_idx').on(t.tenantId, t.contactId, t.date),
    index('contributions_batch_idx').on(t.tenantId, t.batchId),
  ],
);

/** Split lines: 1–20 per contribution, summing to its amount; refunds are apportioned onto them. */
export const contributionLines = pgTable(
  'contribution_lines',
  {
    ...tenantColumns,
    contributionId: refId('contribution_id').notNull(),
    fundId: refId('fund_id').notNull(),
    amount: money('amount').notNull(),
    refundedAmount: money('refunded_amount').notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ name: 'contribution_lines_contribution_fk', columns: [t.tenantId, t.contributionId], foreignColumns: [contributions.tenantId, contributions.id] }).onDelete('cascade'),
    // A fund in use cannot be deleted (409 from the service; RESTRICT is the net).
    foreignKey({ name: 'contribution_lines_fund_fk', columns: [t.tenantId, t.fundId], foreignColumns: [funds.tenantId, funds.id] }),
    index('contribution_lines_contribution_idx').on(t.tenantId, t.contributionId),
    index('contribution_lines_fund_idx').on(t.tenantId, t.fundId),
  ],
);

export const contributionRefunds = pgTable(
  'contribution_refunds',
  {
    ...tenantColumns,
    contributionId: refId('contribution_id').notNull(),
    amount: money('amount').notNull(),
    reason: text('reason'),
    createdBy: refId('created_by'),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ name: 'contribution_refunds_contribution_fk', columns: [t.tenantId, t.contributionId], foreignColumns: [contributions.tenantId, contributions.id] }).onDelete('cascade'),
    index('contribution_refunds_contribution_idx').on(t.tenantId, t.contributionId),
  ],
);

export const pledges = pgTable(
  'pledges',
  {
    ...tenantColumns,
    contactId: refId('contact_id').notNull(),
    fundId: refId('fund_id').notNull(),
    amount: money('amount').notNull(),
    frequency: text('frequency', { enum: PLEDGE_FREQUENCIES }).notNull(),
    startDate: date('start_date', { mode: 'string' }).notNull(),
    endDate: date('end_date', { mode: 'string' }),
    campaign: text('campaign'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ columns: [t.tenantId], foreignColumns: [tenants.id] }).onDelete('cascade'),
    foreignKey({ name: 'pledges_contact_fk', columns: [t.tenantId, t.contactId], foreignColumns: [contacts.tenantId, contacts.id] }).onDelete('cascade'),
    foreignKey({ name: 'pledges_fund_fk', columns: [t.tenantId, t.fundId], foreignColumns: [funds.tenantId, funds.id] }),
    index('pledges_contact_idx').on(t.tenantId, t.contactId, t.fundId),
    index('pledges_fund_idx').on(t.tenantId, t.fundId),
    index('pledges_campaign_idx').on(t.tenantId, t.campaign),
  ],
);

/** PostgreSQL's 64-bit transaction id (pg_current_xact_id()); Drizzle has no builder for it. */
const xid8 = customType<{ data: string }>({ dataType: () => 'xid8' });

/**
 * Giving rollups (migration 0016), written only by triggers on contributions and contribution_lines:
 * each contribution's footprint (per fund of its lines and for all funds, fund_id 0) is net (amount
 * minus refunded), gifts (1 unless fully refunded) and entries (1). The statement triggers append
 * the change to giving_pending; a deferred constraint trigger applies it at commit (as
 * contact_count_pending). Read only through src/modules/finance/giving.rollups.ts.
 */
export const givingPending = pgTable(
  'giving_pending',
  {
    xid: xid8('xid').notNull(),
    tenantId: tenantColumns.tenantId,
    date: date('date', { mode: 'string' }).notNull(),
    method: text('method').notNull(),
    contactId: refId('contact_id'),
    fundId: refId('fund_id').notNull(),
    net: money('net').notNull(),
    gifts: integer('gifts').notNull(),
    entries: integer('entries').notNull(),
    /** Set on one row per statement: the deferred apply fires on that row only. */
    apply: boolean('apply').notNull().default(false),
  },
  (t) => [index('giving_pending_xid_idx').on(t.xid)],
);

/** Per tenant × date × fund (0 = all funds) × method: net given, gifts not fully refunded, contributions. */
export const givingDays = pgTable(
  'giving_days',
  {
    tenantId: tenantColumns.tenantId,
    date: date('date', { mode: 'string' }).notNull(),
    fundId: refId('fund_id').notNull(),
    method: text('method', { enum: CONTRIBUTION_METHODS }).notNull(),
    net: money('net').notNull(),
    gifts: integer('gifts').notNull(),
    entries: integer('entries').notNull(),
  },
  (t) => [
    primaryKey({ name: 'giving_days_pk', columns: [t.tenantId, t.fundId, t.date, t.method] }),
    foreignKey({ name: 'giving_days_tenant_fk', columns: [t.tenantId], foreignColumns: [tenants.id] }).onDelete('cascade'),
  ],
);

/**
 * Per tenant × kind (`month`, `week`) × year × fund (0 = all) × donor: their gifts (not fully refunded)
 * in each period of the year, n[1..12] (months) or n[1..53] (weeks, by the year of their Sunday,
 * n[(day of year of the Sunday − 1) ÷ 7 + 1]): distinct donors are counts of rows, one per donor.
 */
export const givingDonorPeriods = pgTable(
  'giving_donor_periods',
  {
    tenantId: tenantColumns.tenantId,
    kind: text('kind', { enum: ['month', 'week'] }).notNull(),
    year: integer('year').notNull(),
    fundId: refId('fund_id').notNull(),
    contactId: refId('contact_id').notNull(),
    n: integer('n').array().notNull(),
  },
  (t) => [
    primaryKey({ name: 'giving_donor_periods_pk', columns: [t.tenantId, t.kind, t.fundId, t.year, t.contactId] }),
    foreignKey({ name: 'giving_donor_periods_tenant_fk', columns: [t.tenantId], foreignColumns: [tenants.id] }).onDelete('cascade'),
  ],
);
