import { Type, type Static } from 'typebox';
import { BATCH_STATUSES, CONTRIBUTION_METHODS, CONTRIBUTION_STATUSES, PLEDGE_FREQUENCIES } from '../../db/schema/finance.js';
import { PAPER_SIZES } from '../../db/schema/tenants.js';
import { Amount, AmountOrZero, Currency, Total } from '../../lib/money.js';
import { Body, DateString, Id, Instant, LongText, Name, Nullable, PageQueryProps, ShortText, StringEnum } from '../../lib/schemas.js';

/** Wire format of /api/finance (modules-contract §3). */

export const Ref = Type.Object({ id: Type.Integer(), name: Type.String() });
export type Ref = Static<typeof Ref>;
export const ContactRef = Type.Object({ id: Type.Integer(), firstName: Type.String(), lastName: Type.String() });
export type ContactRef = Static<typeof ContactRef>;
export const ByFund = Type.Array(Type.Object({ fund: Ref, amount: Total }));
export type ByFund = Static<typeof ByFund>;

// ---- funds
export const FundSchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  code: Nullable(Type.String()),
  description: Nullable(Type.String()),
  isTaxDeductible: Type.Boolean(),
  isActive: Type.Boolean(),
});
export type FundItem = Static<typeof FundSchema>;
const FundCode = Type.String({ minLength: 1, maxLength: 50 });
export const CreateFundBody = Body({
  name: Name,
  code: Type.Optional(Nullable(FundCode)),
  description: Type.Optional(Nullable(LongText)),
  isTaxDeductible: Type.Optional(Type.Boolean({ default: true })),
  isActive: Type.Optional(Type.Boolean({ default: true })),
});
export type CreateFundBody = Static<typeof CreateFundBody>;
export const UpdateFundBody = Body({
  name: Type.Optional(Name),
  code: Type.Optional(Nullable(FundCode)),
  description: Type.Optional(Nullable(LongText)),
  isTaxDeductible: Type.Optional(Type.Boolean()),
  isActive: Type.Optional(Type.Boolean()),
});
export type UpdateFundBody = Static<typeof UpdateFundBody>;
export const ListFundsQuery = Type.Object({ ...PageQueryProps, isActive: Type.Optional(Type.Boolean()) });
export type ListFundsQuery = Static<typeof ListFundsQuery>;

// ---- batches
export const BatchSchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  date: Type.String(),
  status: StringEnum(BATCH_STATUSES),
  controlAmount: Total,
  controlCount: Type.Integer(),
  totalAmount: Total,
  contributionCount: Type.Integer(),
  variance: Type.Integer({ description: 'controlAmount − totalAmount (gross amounts: refunds do not change a deposit)' }),
  currency: Currency,
  closedAt: Nullable(Instant),
  closedBy: Nullable(Type.Object({ id: Type.Integer(), username: Nullable(Type.String()) }, { description: 'The user who closed the batch' })),
});
export type BatchItem = Static<typeof BatchSchema>;
export const CreateBatchBody = Body({
  name: Name,
  date: DateString,
  controlAmount: Type.Optional(AmountOrZero),
  controlCount: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
});
export type CreateBatchBody = Static<typeof CreateBatchBody>;
export const UpdateBatchBody = Body({
  name: Type.Optional(Name),
  date: Type.Optional(DateString),
  controlAmount: Type.Optional(AmountOrZero),
  controlCount: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
});
export type UpdateBatchBody = Static<typeof UpdateBatchBody>;
export const CloseBatchBody = Body({ force: Type.Optional(Type.Boolean({ default: false })) });
export const ListBatchesQuery = Type.Object({
  ...PageQueryProps,
  status: Type.Optional(StringEnum(BATCH_STATUSES)),
  from: Type.Optional(DateString),
  to: Type.Optional(DateString),
});
export type ListBatchesQuery = Static<typeof ListBatchesQuery>;

// ---- contributions
export const LineSchema = Type.Object({ fund: Ref, amount: Total });
export const ContributionSchema = Type.Object({
  id: Type.Integer(),
  date: Type.String(),
  contact: Nullable(ContactRef),
  amount: Total,
  currency: Currency,
  method: StringEnum(CONTRIBUTION_METHODS),
  reference: Nullable(Type.String()),
  notes: Nullable(Type.String()),
  status: StringEnum(CONTRIBUTION_STATUSES),
  refundedAmount: Total,
  batch: Nullable(Ref),
  lines: Type.Array(LineSchema),
  unmatched: Type.Boolean({ description: 'Imported gift whose payer matched no contact (kept as anonymous)' }),
  payer: Nullable(Type.Object({ name: Nullable(Type.String()), email: Nullable(Type.String()), phone: Nullable(Type.String()) }, { description: 'Payer details an import carried' })),
  createdAt: Instant,
  updatedAt: Instant,
});
export type ContributionItem = Static<typeof ContributionSchema>;
export const LineInput = Type.Object({ fundId: Id, amount: Amount }, { additionalProperties: false });
export type LineInput = Static<typeof LineInput>;
const Lines = Type.Array(LineInput, { minItems: 1, maxItems: 20 });
const Method = StringEnum(CONTRIBUTION_METHODS);
export const CreateContributionBody = Body({
  contactId: Type.Optional(Nullable(Id)),
  date: DateString,
  amount: Amount,
  method: Method,
  reference: Type.Optional(Nullable(ShortText)),
  batchId: Type.Optional(Nullable(Id)),
  notes: Type.Optional(Nullable(LongText)),
  fundId: Type.Optional(Id),
  lines: Type.Optional(Lines),
});
export type CreateContributionBody = Static<typeof CreateContributionBody>;
export const UpdateContributionBody = Body({
  contactId: Type.Optional(Nullable(Id)),
  date: Type.Optional(DateString),
  amount: Type.Optional(Amount),
  method: Type.Optional(Method),
  reference: Type.Optional(Nullable(ShortText)),
  batchId: Type.Optional(Nullable(Id)),
  notes: Type.Optional(Nullable(LongText)),
  fundId: Type.Optional(Id),
  lines: Type.Optional(Lines),
});
export type UpdateContributionBody = Static<typeof UpdateContributionBody>;
export const RefundBody = Body({ amount: Amount, reason: Type.Optional(Nullable(LongText)) });
export type RefundBody = Static<typeof RefundBody>;
export const CONTRIBUTION_SORTS = ['-date', 'date', 'amount', '-amount'] as const;
export const ContributionFilterProps = {
  contactId: Type.Optional(Id),
  fundId: Type.Optional(Id),
  batchId: Type.Optional(Id),
  method: Type.Optional(Method),
  from: Type.Optional(DateString),
  to: Type.Optional(DateString),
  minAmount: Type.Optional(AmountOrZero),
  maxAmount: Type.Optional(AmountOrZero),
  q: Type.Optional(Type.String({ maxLength: 200, description: 'Donor name' })),
  sort: Type.Optional(StringEnum(CONTRIBUTION_SORTS, { description: '-date (default), date, amount, -amount; ties by id' })),
};
export const ListContributionsQuery = Type.Object({ ...PageQueryProps, ...ContributionFilterProps });
export type ListContributionsQuery = Static<typeof ListContributionsQuery>;
export const ExportContributionsQuery = Type.Object(ContributionFilterProps);
export type ContributionFilter = Static<typeof ExportContributionsQuery>;

// ---- import
export const MAX_IMPORT_ROWS = 10_000;
const Cell = Type.Union([Type.String({ maxLength: 5000 }), Type.Number(), Type.Null()]);
export const ImportRow = Type.Object(
  { date: Type.Optional(Cell), amount: Type.Optional(Cell), fund: Type.Optional(Cell), contactId: Type.Optional(Cell), email: Type.Optional(Cell), phone: Type.Optional(Cell), name: Type.Optional(Cell), method: Type.Optional(Cell), reference: Type.Optional(Cell) },
  { description: 'Checked row by row: a bad row fails alone' },
);
export type ImportRowInput = Static<typeof ImportRow>;
export const ImportJsonBody = Body({
  rows: Type.Array(ImportRow, { maxItems: MAX_IMPORT_ROWS }),
  batchId: Type.Optional(Nullable(Id)),
  dryRun: Type.Optional(Type.Boolean({ default: false })),
});
export type ImportJsonBody = Static<typeof ImportJsonBody>;
export const ImportQuery = Type.Object({ batchId: Type.Optional(Id), dryRun: Type.Optional(Type.Boolean({ default: false })) });
export const IMPORT_STATUSES = ['created', 'unmatched', 'failed'] as const;
export const ImportResult = Type.Object({
  total: Type.Integer(),
  created: Type.Integer(),
  matched: Type.Integer(),
  unmatched: Type.Integer(),
  failed: Type.Integer(),
  rows: Type.Array(Type.Object({ row: Type.Integer(), status: StringEnum(IMPORT_STATUSES), contactId: Nullable(Type.Integer()), message: Nullable(Type.String()) })),
});
export type ImportResult = Static<typeof ImportResult>;

// ---- pledges
export const PledgeSchema = Type.Object({
  id: Type.Integer(),
  contactId: Type.Integer(),
  contact: ContactRef,
  fundId: Type.Integer(),
  fund: Ref,
  amount: Total,
  currency: Currency,
  frequency: StringEnum(PLEDGE_FREQUENCIES),
  startDate: Type.String(),
  endDate: Nullable(Type.String()),
  campaign: Nullable(Type.String()),
  occurrences: Type.Integer(),
  totalPledged: Total,
  givenAmount: Total,
  remainingAmount: Total,
  percentComplete: Type.Number({ description: 'givenAmount / totalPledged × 100, one decimal (may exceed 100)' }),
  createdAt: Instant,
});
export type PledgeItem = Static<typeof PledgeSchema>;
const Frequency = StringEnum(PLEDGE_FREQUENCIES);
export const CreatePledgeBody = Body({
  contactId: Id,
  fundId: Id,
  amount: Amount,
  frequency: Frequency,
  startDate: DateString,
  endDate: Type.Optional(Nullable(DateString)),
  campaign: Type.Optional(Nullable(ShortText)),
});
export type CreatePledgeBody = Static<typeof CreatePledgeBody>;
export const UpdatePledgeBody = Body({
  fundId: Type.Optional(Id),
  amount: Type.Optional(Amount),
  frequency: Type.Optional(Frequency),
  startDate: Type.Optional(DateString),
  endDate: Type.Optional(Nullable(DateString)),
  campaign: Type.Optional(Nullable(ShortText)),
});
export type UpdatePledgeBody = Static<typeof UpdatePledgeBody>;
export const ListPledgesQuery = Type.Object({ ...PageQueryProps, contactId: Type.Optional(Id), fundId: Type.Optional(Id), campaign: Type.Optional(ShortText) });
export type ListPledgesQuery = Static<typeof ListPledgesQuery>;

// ---- statements
export const STATEMENT_FORMATS = ['json', 'csv', 'pdf'] as const;
export const StatementQuery = Type.Object({
  from: Type.Optional(DateString),
  to: Type.Optional(DateString),
  format: Type.Optional(StringEnum(STATEMENT_FORMATS, { description: 'json (default), csv or pdf' })),
});
export type StatementQuery = Static<typeof StatementQuery>;
export const Address = Type.Object({ street: Nullable(Type.String()), city: Nullable(Type.String()), country: Nullable(Type.String()) });
/** The church as its statements present it (tenant settings). */
export const StatementTenant = Type.Object({
  name: Type.String(),
  address: Nullable(Type.String({ description: "The church's postal address, printed in the header" })),
  taxNumber: Nullable(Type.String({ description: "The church's registration or tax number, printed in the header" })),
  statementClosing: Nullable(Type.String({ description: 'The closing sentence printed at the end' })),
  paperSize: StringEnum(PAPER_SIZES, { description: 'The paper the PDF is laid out on' }),
});
export const StatementSchema = Type.Object({
  tenant: StatementTenant,
  contact: Type.Object({ ...ContactRef.properties, address: Nullable(Address) }),
  period: Type.Object({ from: Type.String(), to: Type.String() }),
  currency: Currency,
  lines: Type.Array(Type.Object({ contributionId: Type.Integer(), date: Type.String(), fund: Ref, amount: Total, method: StringEnum(CONTRIBUTION_METHODS), reference: Nullable(Type.String()), isTaxDeductible: Type.Boolean() })),
  totals: Type.Object({ total: Total, deductible: Total, byFund: ByFund }),
});
export type Statement = Static<typeof StatementSchema>;
export const HouseholdStatementSchema = Type.Object({
  tenant: StatementTenant,
  household: Type.Object({ id: Type.Integer(), name: Type.String(), address: Nullable(Address) }),
  members: Type.Array(ContactRef, { description: 'The household\'s current members, in the order they joined: the statement covers their gifts' }),
  period: Type.Object({ from: Type.String(), to: Type.String() }),
  currency: Currency,
  lines: Type.Array(Type.Object({
    contributionId: Type.Integer(), date: Type.String(), giver: ContactRef, fund: Ref, amount: Total, method: StringEnum(CONTRIBUTION_METHODS),
    reference: Nullable(Type.String()), isTaxDeductible: Type.Boolean(),
  })),
  totals: Type.Object({ total: Total, deductible: Total, byFund: ByFund }),
});
export type HouseholdStatement = Static<typeof HouseholdStatementSchema>;
export const BulkStatementsBody = Body({
  from: Type.Optional(DateString),
  to: Type.Optional(DateString),
  minTotal: Type.Optional(AmountOrZero),
  fundIds: Type.Optional(Type.Array(Id, { minItems: 1, maxItems: 100, uniqueItems: true })),
});
export type BulkStatementsBody = Static<typeof BulkStatementsBody>;

// ---- summary
export const SummaryQuery = Type.Object({
  from: Type.Optional(DateString),
  to: Type.Optional(DateString),
  interval: Type.Optional(StringEnum(['week', 'month'] as const, { description: 'month (default) or week (weeks start on Sunday)' })),
  fundId: Type.Optional(Id),
});
export type SummaryQuery = Static<typeof SummaryQuery>;
export const SummarySchema = Type.Object({
  from: Type.String(),
  to: Type.String(),
  interval: Type.String(),
  currency: Currency,
  data: Type.Array(Type.Object({ period: Type.String(), total: Total, count: Type.Integer(), donors: Type.Integer(), byFund: ByFund })),
  totals: Type.Object({ total: Total, count: Type.Integer(), donors: Type.Integer(), averageGift: Type.Integer({ description: 'total ÷ count, rounded down (integer minor units)' }) }),
});
export type Summary = Static<typeof SummarySchema>;

export const MyContributionsQuery = Type.Object({ ...PageQueryProps });
export const ContactParams = Type.Object({ contactId: Id });
export const HouseholdParams = Type.Object({ id: Id });
