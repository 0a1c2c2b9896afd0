import { sql } from 'drizzle-orm';
import { fieldChanges, recordChanges } from '../../changes/recorder.js';
import { withTenant, type Db } from '../../db/client.js';
import { BadRequestError, ConflictError, NotFoundError } from '../../lib/errors.js';
import { pageResult, toPage } from '../../lib/pagination.js';
import type { Principal } from '../../plugins/auth.js';
import * as repo from './contributions.repository.js';
import { assertContact, currencyOf, fundsById, idArray, rowsOf } from './finance.common.js';
import type { ContributionItem, CreateContributionBody, LineInput, ListContributionsQuery, RefundBody, UpdateContributionBody } from './finance.schemas.js';

/** Contribution rules (modules-contract §3): lines sum to the amount, active funds, Open batches. */

export function checkLineSum(amount: number, lines: readonly LineInput[]): void {
  // Each line is at most 10^12 and there are at most 20: the sum is exact in a double.
  const sum = lines.reduce((s, l) => s + l.amount, 0);
  if (sum !== amount) throw new BadRequestError(`body/lines must sum to the amount: the lines sum to ${sum}, the amount is ${amount}`);
  const funds = new Set(lines.map((l) => l.fundId));
  if (funds.size !== lines.length) throw new BadRequestError('body/lines must name each fund at most once');
}

/**
 * A gift's lines as the body gives them: `lines` (a split across funds), or `fundId`, the one-line
 * form (one fund takes the whole amount). Both is 400; neither is 400 on create, and on update keeps
 * the lines as they are (undefined).
 */
export function linesOf(body: { amount?: number; fundId?: number; lines?: LineInput[] }, amount: number, required: boolean): LineInput[] | undefined {
  if (body.fundId !== undefined && body.lines !== undefined) throw new BadRequestError('body: give either fundId (the whole amount to one fund) or lines (a split), not both');
  if (body.fundId !== undefined) return [{ fundId: body.fundId, amount }];
  if (body.lines === undefined && required) throw new BadRequestError('body must have either fundId (the whole amount to one fund) or lines (a split across funds)');
  return body.lines;
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

/**
 * Locks the batches a write touches (a contribution's old batch and its new one) FOR SHARE, in id
 * order, and answers their status and name; 404 for a missing one. Closing, reopening, updating and
 * deleting a batch lock it FOR UPDATE (batches.service), so a close waits for every write in flight on
 * its contributions to commit and then counts them, and a write that waited for a close reads the
 * batch Closed: a closed batch's totals are the sum of its contributions. Writes into the same batch
 * do not wait for each other; the id order keeps two moves between the same batches from deadlocking.
 */
export async function lockBatches(tx: Db, tenantId: number, ids: readonly (number | null | undefined)[]): Promise<Map<number, { status: string; name: string }>> {
  const wanted = [...new Set(ids.filter((id): id is number => id != null))];
  if (wanted.length === 0) return new Map();
  const rows = rowsOf<{ id: unknown; status: string; name: string }>(
    await tx.execute(sql`select id, status, name from batches where tenant_id = ${tenantId} and id = any(${idArray(wanted)}) order by id for share`),
  );
  const batches = new Map(rows.map((r) => [Number(r.id), { status: r.status, name: r.name }]));
  const missing = wanted.find((id) => !batches.has(id));
  if (missing !== undefined) throw new NotFoundError('Batch', missing);
  return batches;
}

/** The batch exists (404) and is Open (409), locked until commit (lockBatches). */
export async function checkOpenBatch(tx: Db, tenantId: number, batchId: number): Promise<void> {
  const batch = (await lockBatches(tx, tenantId, [batchId])).get(batchId)!;
  if (batch.status !== 'Open') throw new ConflictError(`Batch ${batch.name} (id ${batchId}) is closed`);
}

const closedBatch = (c: repo.ContributionState) =>
  new ConflictError(`Contribution ${c.id} belongs to closed batch ${c.batchId}: reopen the batch to change it`);

/** Locks the contribution's batch and, when it moves, the new one; 409 when either is Closed. */
async function checkBatches(tx: Db, tenantId: number, c: repo.ContributionState, nextBatchId: number | null | undefined): Promise<void> {
  const moves = nextBatchId != null && nextBatchId !== c.batchId;
  const batches = await lockBatches(tx, tenantId, [c.batchId, moves ? nextBatchId : null]);
  if (c.batchId !== null && batches.get(c.batchId)!.status === 'Closed') throw closedBatch(c);
  if (moves) {
    const next = batches.get(nextBatchId)!;
    if (next.status !== 'Open') throw new ConflictError(`Batch ${next.name} (id ${nextBatchId}) is closed`);
  }
}

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

    create: (auth: Principal, input: CreateContributionBody) => {
      const body = { ...input, lines: linesOf(input, input.amount, true)! };
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

    update: (auth: Principal, id: number, input: UpdateContributionBody) =>
      withTenant(db, auth, async (tx) => {
        const t = auth.tenantId;
        const c = await findState(tx, t, id);
        const body = { ...input, lines: linesOf(input, input.amount ?? c.amount, false) };
        await checkBatches(tx, t, c, body.batchId);
        const before = await load(tx, t, id);
        const amount = body.amount ?? c.amount;
        const lines = body.lines ?? before.lines.map((l) => ({ fundId: l.fund.id, amount: l.amount }));
        if (c.refundedAmount > 0 && (amount !== c.amount || body.lines !== undefined)) {
          throw new ConflictError(`Contribution ${id} has refunds: its amount and lines can no longer change`);
        }
        checkLineSum(amount, lines);
        if (body.contactId != null && body.contactId !== c.contactId) await assertContact(tx, t, body.contactId);
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
        if (!auth.permissions.has('finance:admin')) await checkBatches(tx, t, c, undefined);
        else await lockBatches(tx, t, [c.batchId]);
        await repo.deleteContributionRow(tx, t, id);
        await recordChanges(tx, auth, [{ type: 'contribution.deleted', entityId: id, data: changeData(c, c.fundIds, await currencyOf(tx, t)) }]);
      }),

    refund: (auth: Principal, id: number, body: RefundBody) =>
      withTenant(db, auth, async (tx) => {
        const t = auth.tenantId;
        const c = await findState(tx, t, id);
        // A refund changes the contribution: in a Closed batch it is 409 like any change (modules-contract §3).
        await checkBatches(tx, t, c, undefined);
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
