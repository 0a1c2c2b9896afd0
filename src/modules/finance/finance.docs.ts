import { VISIBILITY, type ModuleDocs } from '../../plugins/operation-docs.js';

const tenant = `${VISIBILITY.tenant} Amounts are integers in the currency's minor unit.`;

/** OpenAPI prose of /api/finance: funds, batches, contributions, pledges, statements, summary (merged by the docs plugin). */
export const financeDocs: ModuleDocs = {
  'GET /api/finance/funds': { summary: 'List funds', visibility: tenant },
  'POST /api/finance/funds': {
    summary: 'Create a fund',
    visibility: tenant,
    errors: { 409: 'A fund with this name or code exists' },
    example: { name: 'Building Fund', code: 'BLD', description: 'The new sanctuary', isTaxDeductible: true },
  },
  'GET /api/finance/funds/:id': { summary: 'Read a fund', visibility: tenant, errors: { 404: 'No fund with this id in the tenant' } },
  'PUT /api/finance/funds/:id': {
    summary: 'Update a fund',
    description: 'Deactivate a fund (`isActive: false`) to stop new gifts to it.',
    visibility: tenant,
    errors: { 404: 'No fund with this id in the tenant', 409: 'Another fund has this name or code' },
    example: { isActive: false },
  },
  'DELETE /api/finance/funds/:id': { summary: 'Delete an unused fund', visibility: tenant, errors: { 404: 'No fund with this id in the tenant', 409: 'Contributions or pledges use the fund' } },
  'GET /api/finance/batches': { summary: 'List deposit batches', visibility: tenant },
  'POST /api/finance/batches': {
    summary: 'Open a deposit batch',
    description: 'Optional control amount and count, checked when the batch is closed.',
    visibility: tenant,
    example: { name: 'Sunday 22 November', date: '2026-11-22', controlAmount: 1250000, controlCount: 48 },
  },
  'GET /api/finance/batches/:id': { summary: 'Read a batch with its totals and variance', visibility: tenant, errors: { 404: 'No batch with this id in the tenant' } },
  'PUT /api/finance/batches/:id': {
    summary: 'Update an open batch',
    visibility: tenant,
    errors: { 404: 'No batch with this id in the tenant', 409: 'The batch is closed' },
    example: { controlAmount: 1300000 },
  },
  'DELETE /api/finance/batches/:id': { summary: 'Delete an empty open batch', visibility: tenant, errors: { 404: 'No batch with this id in the tenant', 409: 'The batch is closed or has contributions' } },
  'PUT /api/finance/batches/:id/close': {
    summary: 'Close a batch',
    description: 'The close waits for writes in flight on the batch\'s contributions and counts them; from then on every change to its ' +
      'contributions (update, move in or out, refund, new gift) is 409 until a finance:admin reopens it, and only a finance:admin ' +
      'deletes a contribution from its history. So a closed batch\'s totals are always the sum of its contributions.',
    visibility: tenant,
    errors: { 404: 'No batch with this id in the tenant', 409: 'Already closed, or totals differ from the controls without force' },
    example: { force: false },
  },
  'PUT /api/finance/batches/:id/reopen': { summary: 'Reopen a closed batch', visibility: tenant, errors: { 404: 'No batch with this id in the tenant', 409: 'The batch is not closed' } },
  'GET /api/finance/contributions': { summary: 'List contributions', description: 'Filters by contact, fund, batch, method, status and date range.', visibility: tenant },
  'POST /api/finance/contributions': {
    summary: 'Record a contribution',
    visibility: tenant,
    errors: { 400: 'Neither fundId nor lines (or both), lines do not sum to the amount, or a fund is inactive', 404: 'The contact, fund or batch does not exist in the tenant', 409: 'The batch is closed' },
    example: { contactId: 12, date: '2026-11-22', amount: 50000, method: 'MobileMoney', reference: 'MM-88231', batchId: 5, lines: [{ fundId: 1, amount: 40000 }, { fundId: 2, amount: 10000 }] },
  },
  'POST /api/finance/contributions/import': {
    summary: 'Import contributions (JSON or CSV)',
    visibility: tenant,
    errors: { 404: 'The batchId does not exist in the tenant', 409: 'The batch is closed', 415: 'Neither application/json nor text/csv' },
    example: { rows: [{ date: '2026-11-22', amount: '500.00', fund: 'Tithe', email: 'ruth@example.org', method: 'Cash' }], batchId: 5, dryRun: true },
  },
  'GET /api/finance/contributions/export': { summary: 'Export contributions as CSV', visibility: tenant },
  'GET /api/finance/contributions/:id': { summary: 'Read a contribution', visibility: tenant, errors: { 404: 'No contribution with this id in the tenant' } },
  'PUT /api/finance/contributions/:id': {
    summary: 'Correct a contribution',
    visibility: tenant,
    errors: { 404: 'The contribution, contact, fund or batch does not exist in the tenant', 409: 'In a closed batch, or amount/lines after a refund' },
    example: { reference: 'MM-88231-corrected', notes: 'Reference typo' },
  },
  'DELETE /api/finance/contributions/:id': { summary: 'Delete a contribution', visibility: tenant, errors: { 404: 'No contribution with this id in the tenant', 409: 'In a closed batch (without finance:admin)' } },
  'POST /api/finance/contributions/:id/refund': {
    summary: 'Refund part or all of a contribution',
    visibility: tenant,
    errors: { 400: 'More than what is left to refund', 404: 'No contribution with this id in the tenant', 409: 'In a closed batch (reopen it first)' },
    example: { amount: 10000, reason: 'Given twice by mistake' },
  },
  'GET /api/finance/pledges': { summary: 'List pledges with progress', visibility: tenant },
  'POST /api/finance/pledges': {
    summary: 'Record a pledge',
    visibility: tenant,
    errors: { 400: 'endDate missing for a recurring pledge, the fund is inactive, or the total (amount × occurrences) above 10^12', 404: 'The contact or fund does not exist in the tenant' },
    example: { contactId: 12, fundId: 3, amount: 100000, frequency: 'Monthly', startDate: '2026-01-01', endDate: '2026-12-31', campaign: 'Building 2026' },
  },
  'GET /api/finance/pledges/:id': { summary: 'Read a pledge with its progress', visibility: tenant, errors: { 404: 'No pledge with this id in the tenant' } },
  'PUT /api/finance/pledges/:id': {
    summary: 'Update a pledge',
    visibility: tenant,
    errors: { 400: 'The period or fund is invalid, or the total (amount × occurrences) above 10^12', 404: 'The pledge or fund does not exist in the tenant' },
    example: { amount: 120000 },
  },
  'DELETE /api/finance/pledges/:id': { summary: 'Delete a pledge', visibility: tenant, errors: { 404: 'No pledge with this id in the tenant' } },
  'GET /api/finance/statements/:contactId': { summary: 'A donor\'s giving statement (JSON, CSV or PDF)', visibility: tenant, errors: { 404: 'No contact with this id in the tenant' } },
  'GET /api/finance/statements/households/:id': {
    summary: 'A household\'s giving statement (JSON, CSV or PDF)',
    description: 'Every current member\'s gifts in one statement, each line naming its giver; totals (by fund, total, deductible) over them all. ' +
      'Any household may have one (givingTogether decides only what bulk statements send).',
    visibility: tenant,
    errors: { 404: 'No household with this id in the tenant' },
  },
  'POST /api/finance/statements/bulk': {
    summary: 'Every donor\'s statement as PDFs in a zip',
    description: 'One PDF per giving-together household (its members\' gifts together, addressed to the household; the combined total is what ' +
      'minTotal is compared with) and one per other donor: a gift is never in two PDFs.',
    visibility: tenant,
    errors: { 404: 'A fundId does not exist in the tenant' },
    example: { from: '2025-01-01', to: '2025-12-31', minTotal: 1, fundIds: [1, 2] },
  },
  'GET /api/finance/summary': { summary: 'Giving per week or month', visibility: tenant },
  'GET /api/finance/my/contributions': { summary: 'The caller\'s own gifts', visibility: `${VISIBILITY.own} (those of the caller's linked contact)`, errors: { 404: 'The caller has no linked contact' } },
  'GET /api/finance/my/statement': { summary: 'The caller\'s own giving statement', visibility: `${VISIBILITY.own} (those of the caller's linked contact)`, errors: { 404: 'The caller has no linked contact' } },
};
