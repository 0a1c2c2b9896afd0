import { sql } from 'drizzle-orm';
import { fieldChanges, recordChanges } from '../../changes/recorder.js';
import { withTenant, type Db } from '../../db/client.js';
import { BadRequestError, ConflictError, NotFoundError } from '../../lib/errors.js';
import { pageResult, toPage } from '../../lib/pagination.js';
import type { Principal } from '../../plugins/auth.js';
import * as repo from './contributions.repository.js';
import { assertContact, currencyOf, fundsById, rowsOf } from './finance.common.js';
import type { ContributionItem, CreateContributionBody, LineInput, ListContributionsQuery, RefundBody, UpdateContributionBody } from './finance.schemas.js';

/** Contribution rules (modules-contract §3): lines sum to the amount, active funds, Open batches. */

export function checkLineSum(amount: number, lines: readonly LineInput[]): void {
  // Each line is at most 10^12 and there are at most 20: the sum is exact in a double.
  const sum = lines.reduce((s, l) => s + l.amount, 0);
  if (sum !== amount) throw new BadRequestError(`body/lines must sum to the amount: the lines sum to ${sum}, the amount is ${amount}`);
  const funds = new Set(lines.map((l) => l.fundId));
  if (funds.size !== lines.length) throw new BadRequestError('body/lines must name each fund at most once');
}

/** The lines' funds exist (404 naming the missing ones) and are active (400). */
export async function checkLineFunds(tx: Db, tenantId: number, lines: readonly LineInput[]): Promise<void> {
  const ids = [...new Set(lines.map((l) => l.fundId))];
  const funds = await fundsById(tx, tenantId, ids);
  const missing = ids.filter((id) => !funds.has(id));
  if (missing.length) throw new NotFoundError(missing.length > 1 ? 'Funds' : 'Fund', missing);
  const inactive = ids.map((id) => funds.get(id)!).filter((f) => !f.isActive);
  if (inactive.length) throw new BadRequestError(`Fund ${inactive.map((f) => `${f.name} (id ${f.id})`).join(', ')} is not active`);
}

/** The batch exists (404) and is Open (409); FOR SHARE holds off a concurrent close until commit. */
export async function checkOpenBatch(tx: Db, tenantId: number, batchId: number): Promise<void> {
  const rows = rowsOf<{ status: string; name: string }>(await tx.execute(sql`select status, name from batches where tenant_id = ${tenantId} and id = ${batchId} for share`));
  if (!rows[0]) throw new NotFoundError('Batch', batchId);
  if (rows[0].status !== 'Open') throw new ConflictError(`Batch ${rows[0].name} (id ${batchId}) is closed`);
}

const closedBatch = (c: repo.ContributionState) =>
  new ConflictError(`Contribution ${c.id} belongs to closed batch ${c.batchId}: reopen the batch to change it`);

export function changeData(c: { contactId: number | null; amount: number; batchId: number | null; date: string; method: string }, fundIds: number[], currency: string) {
  return { contactId: c.contactId, amount: c.amount, currency, batchId: c.batchId, fundIds, date: c.date, method: c.method };
}

export function createContributionsService({ db }: { db: Db }) {
  async function load(tx: Db, tenantId: number, id: number): Promise<ContributionItem> {
    const [item] = await repo.loadContributions(tx, tenantId, [id]);
    if (!item) throw new NotFoundError('Contribution', id);
    return item;
  }

  async function findState(tx: Db, tenantId: number, id: number) {
    const state = await repo.findContributionForUpdate(tx, tenantId, id);
    if (!state) throw new NotFoundError('Contribution', id);
    return state;
  }

  return {
    list: (auth: Principal, query: ListContributionsQuery) =>
      withTenant(db, auth, async (tx) => {
        const page = toPage(query);
        // One statement: the page, its items and the total (a page past the end counts apart).
        const { items, total } = await repo.listContributions(tx, auth.tenantId, query, page);
        return pageResult(page, items, total ?? (await repo.countContributions(tx, auth.tenantId, query)));
      }),

    get: (auth: Principal, id: number) => withTenant(db, auth, (tx) => load(tx, auth.tenantId, id)),

    create: (auth: Principal, body: CreateContributionBody) => {
      checkLineSum(body.amount, body.lines);
      return withTenant(db, auth, async (tx) => {
        const t = auth.tenantId;
        const currency = await currencyOf(tx, t);
        if (body.contactId != null) await assertContact(tx, t, body.contactId);
        if (body.batchId != null) await checkOpenBatch(tx, t, body.batchId);
        await checkLineFunds(tx, t, body.lines);
        const input = { contactId: body.contactId ?? null, date: body.date, amount: body.amount, method: body.method, reference: body.reference ?? null, notes: body.notes ?? null, batchId: body.batchId ?? null };
        const [id] = await repo.insertContributions(tx, t, [{ ...input, lines: body.lines }]);
        await recordChanges(tx, auth, [{ type: 'contribution.created', entityId: id, data: changeData(input, body.lines.map((l) => l.fundId), currency) }]);
        return load(tx, t, id);
      });
    },

    update: (auth: Principal, id: number, body: UpdateContributionBody) =>
      withTenant(db, auth, async (tx) => {
        const t = auth.tenantId;
        const c = await findState(tx, t, id);
        if (c.batchStatus === 'Closed') throw closedBatch(c);
        const before = await load(tx, t, id);
        const amount = body.amount ?? c.amount;
        const lines = body.lines ?? before.lines.map((l) => ({ fundId: l.fund.id, amount: l.amount }));
        if (c.refundedAmount > 0 && (amount !== c.amount || body.lines !== undefined)) {
          throw new ConflictError(`Contribution ${id} has refunds: its amount and lines can no longer change`);
        }
        checkLineSum(amount, lines);
        if (body.contactId != null && body.contactId !== c.contactId) await assertContact(tx, t, body.contactId);
        if (body.batchId != null && body.batchId !== c.batchId) await checkOpenBatch(tx, t, body.batchId);
        if (body.lines) await checkLineFunds(tx, t, body.lines);
        const next = {
          contactId: body.contactId !== undefined ? body.contactId : c.contactId,
          date: body.date ?? c.date,
          amount,
          method: body.method ?? c.method,
          reference: body.reference !== undefined ? body.reference : c.reference,
          notes: body.notes !== undefined ? body.notes : c.notes,
          batchId: body.batchId !== undefined ? body.batchId : c.batchId,
        };
        await repo.updateContributionRow(tx, t, id, next);
        if (body.lines) await repo.replaceLines(tx, t, id, body.lines);
        const after = await load(tx, t, id);
        const shape = (x: ContributionItem) => ({
          contactId: x.contact?.id ?? null, date: x.date, amount: x.amount, method: x.method, reference: x.reference, notes: x.notes,
          batchId: x.batch?.id ?? null, lines: x.lines.map((l) => ({ fundId: l.fund.id, amount: l.amount })),
        });
        const changes = fieldChanges(shape(before), shape(after));
        if (changes) {
          await recordChanges(tx, auth, [{ type: 'contribution.updated', entityId: id, changes, data: changeData(next, after.lines.map((l) => l.fund.id), after.currency) }]);
        }
        return after;
      }),

    remove: (auth: Principal, id: number) =>
      withTenant(db, auth, async (tx) => {
        const t = auth.tenantId;
        const c = await findState(tx, t, id);
        // finance:admin may delete from a closed batch's history (modules-contract §0 permissions).
        if (c.batchStatus === 'Closed' && !auth.permissions.has('finance:admin')) throw closedBatch(c);
        await repo.deleteContributionRow(tx, t, id);
        await recordChanges(tx, auth, [{ type: 'contribution.deleted', entityId: id, data: changeData(c, c.fundIds, await currencyOf(tx, t)) }]);
      }),

    refund: (auth: Principal, id: number, body: RefundBody) =>
      withTenant(db, auth, async (tx) => {
        const t = auth.tenantId;
        const c = await findState(tx, t, id);
        const left = c.amount - c.refundedAmount;
        if (body.amount > left) throw new BadRequestError(`body/amount ${body.amount} exceeds the ${left} left to refund`);
        await repo.applyRefund(tx, t, auth.userId, c, body.amount, body.reason ?? null);
        const after = await load(tx, t, id);
        await recordChanges(tx, auth, [{
          type: 'contribution.refunded', entityId: id,
          changes: { refundedAmount: { from: c.refundedAmount, to: after.refundedAmount }, status: { from: c.refundedAmount ? 'PartiallyRefunded' : 'Completed', to: after.status } },
          data: { ...changeData(c, c.fundIds, after.currency), refundAmount: body.amount, refundedAmount: after.refundedAmount, status: after.status, reason: body.reason ?? null },
        }]);
        return after;
      }),
  };
}
