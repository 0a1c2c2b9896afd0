import { sql } from 'drizzle-orm';
import { fieldChanges, recordChanges } from '../../changes/recorder.js';
import { withTenant, type Db } from '../../db/client.js';
import { ConflictError, ForbiddenError, NotFoundError } from '../../lib/errors.js';
import { formatMoney, toMinor } from '../../lib/money.js';
import { pageResult, toPage } from '../../lib/pagination.js';
import type { Principal } from '../../plugins/auth.js';
import { currencyOf, rowsOf } from './finance.common.js';
import type { BatchItem, CreateBatchBody, ListBatchesQuery, UpdateBatchBody } from './finance.schemas.js';

/**
 * Batches (a deposit, a Sunday's offering): live totals from their contributions (gross amounts: a
 * refund does not change what was deposited), a variance against the control totals, close and reopen.
 */

interface BatchRow {
  id: unknown; name: string; date: string; status: 'Open' | 'Closed'; control_amount: unknown; control_count: unknown;
  total_amount: unknown; contribution_count: unknown; closed_ms: unknown; closed_by: unknown; closed_by_name: string | null;
}

const SELECT = (tenantId: number) => sql`
  select b.id, b.name, b.date::text as date, b.status, b.control_amount, b.control_count,
    coalesce(s.total, 0) as total_amount, coalesce(s.n, 0) as contribution_count,
    floor(extract(epoch from b.closed_at) * 1000)::float8 as closed_ms, b.closed_by, u.username as closed_by_name
  from batches b
  left join lateral (select sum(c.amount) as total, count(*) as n from contributions c where c.tenant_id = b.tenant_id and c.batch_id = b.id) s on true
  left join users u on u.tenant_id = b.tenant_id and u.id = b.closed_by
  where b.tenant_id = ${tenantId}`;

function toBatch(r: BatchRow, currency: string): BatchItem {
  const controlAmount = toMinor(r.control_amount);
  const totalAmount = toMinor(r.total_amount);
  return {
    id: Number(r.id), name: r.name, date: r.date, status: r.status, controlAmount, controlCount: Number(r.control_count),
    totalAmount, contributionCount: Number(r.contribution_count), variance: controlAmount - totalAmount, currency,
    closedAt: r.closed_ms === null ? null : new Date(Number(r.closed_ms)).toISOString(),
    closedBy: r.closed_by === null ? null : { id: Number(r.closed_by), username: r.closed_by_name },
  };
}

async function findBatch(tx: Db, tenantId: number, id: number, lock = false): Promise<BatchItem> {
  if (lock) await tx.execute(sql`select 1 from batches where tenant_id = ${tenantId} and id = ${id} for update`);
  const [row] = rowsOf<BatchRow>(await tx.execute(sql`${SELECT(tenantId)} and b.id = ${id}`));
  if (!row) throw new NotFoundError('Batch', id);
  return toBatch(row, await currencyOf(tx, tenantId));
}

/**
 * What batch.created/updated/deleted carry: the control totals (money keys end in Amount, so the
 * audit leaves them out for callers without finance:read).
 */
const batchData = (b: BatchItem) => ({ batchId: b.id, name: b.name, date: b.date, status: b.status, controlAmount: b.controlAmount, controlCount: b.controlCount, currency: b.currency });
const fieldsOf = (b: BatchItem) => ({ name: b.name, date: b.date, controlAmount: b.controlAmount, controlCount: b.controlCount });

/** What a treasurer reads when a close is refused: amounts in the church's currency, the gap in words. */
function unbalancedMessage(b: BatchItem): string {
  const money = (n: number) => formatMoney(n, b.currency);
  const gifts = (n: number) => `${n} ${n === 1 ? 'gift' : 'gifts'}`;
  const gap = b.variance < 0 ? `over by ${money(-b.variance)}` : b.variance > 0 ? `short by ${money(b.variance)}` : 'the amounts agree';
  const counts = b.contributionCount === b.controlCount ? '' : `, ${gifts(b.contributionCount)} against ${b.controlCount} counted`;
  return `The batch "${b.name}" does not balance: ${money(b.totalAmount)} in ${gifts(b.contributionCount)} recorded against a control total of ` +
    `${money(b.controlAmount)} in ${gifts(b.controlCount)} (${gap}${counts}); fix the gifts or the control totals, or close it anyway with force: true`;
}

const closedData = (b: BatchItem) => ({ batchId: b.id, name: b.name, totalAmount: b.totalAmount, contributionCount: b.contributionCount, varianceAmount: b.variance, currency: b.currency });

export function createBatchesService({ db }: { db: Db }) {
  return {
    list: (auth: Principal, query: ListBatchesQuery) =>
      withTenant(db, auth, async (tx) => {
        const page = toPage(query);
        const parts = [sql``];
        if (query.status) parts.push(sql`and b.status = ${query.status}`);
        if (query.from) parts.push(sql`and b.date >= ${query.from}::date`);
        if (query.to) parts.push(sql`and b.date <= ${query.to}::date`);
        const filter = sql.join(parts, sql` `);
        const total = Number(rowsOf<{ n: unknown }>(await tx.execute(sql`select count(*) as n from batches b where b.tenant_id = ${auth.tenantId} ${filter}`))[0].n);
        const rows = rowsOf<BatchRow>(await tx.execute(sql`${SELECT(auth.tenantId)} ${filter} order by b.date desc, b.id desc limit ${page.limit} offset ${page.offset}`));
        const currency = await currencyOf(tx, auth.tenantId);
        return pageResult(page, rows.map((r) => toBatch(r, currency)), total);
      }),

    get: (auth: Principal, id: number) => withTenant(db, auth, (tx) => findBatch(tx, auth.tenantId, id)),

    create: (auth: Principal, body: CreateBatchBody) =>
      withTenant(db, auth, async (tx) => {
        const [row] = rowsOf<{ id: unknown }>(
          await tx.execute(sql`insert into batches (tenant_id, name, date, control_amount, control_count)
            values (${auth.tenantId}, ${body.name}, ${body.date}::date, ${body.controlAmount ?? 0}, ${body.controlCount ?? 0}) returning id`),
        );
        const batch = await findBatch(tx, auth.tenantId, Number(row.id));
        await recordChanges(tx, auth, [{ type: 'batch.created', entityId: batch.id, data: batchData(batch) }]);
        return batch;
      }),

    update: (auth: Principal, id: number, body: UpdateBatchBody) =>
      withTenant(db, auth, async (tx) => {
        const b = await findBatch(tx, auth.tenantId, id, true);
        if (b.status === 'Closed') throw new ConflictError(`Batch ${b.name} (id ${id}) is closed: reopen it to change it`);
        await tx.execute(sql`update batches set name = ${body.name ?? b.name}, date = ${body.date ?? b.date}::date,
          control_amount = ${body.controlAmount ?? b.controlAmount}, control_count = ${body.controlCount ?? b.controlCount}, updated_at = now()
          where tenant_id = ${auth.tenantId} and id = ${id}`);
        const after = await findBatch(tx, auth.tenantId, id);
        const changes = fieldChanges(fieldsOf(b), fieldsOf(after));
        if (changes) await recordChanges(tx, auth, [{ type: 'batch.updated', entityId: id, changes, data: batchData(after) }]);
        return after;
      }),

    remove: (auth: Principal, id: number) =>
      withTenant(db, auth, async (tx) => {
        const b = await findBatch(tx, auth.tenantId, id, true);
        if (b.status === 'Closed') throw new ConflictError(`Batch ${b.name} (id ${id}) is closed`);
        if (b.contributionCount > 0) throw new ConflictError(`Batch ${b.name} (id ${id}) holds ${b.contributionCount} contributions`);
        await tx.execute(sql`delete from batches where tenant_id = ${auth.tenantId} and id = ${id}`);
        await recordChanges(tx, auth, [{ type: 'batch.deleted', entityId: id, data: batchData(b) }]);
      }),

    close: (auth: Principal, id: number, force: boolean) =>
      withTenant(db, auth, async (tx) => {
        const b = await findBatch(tx, auth.tenantId, id, true);
        if (b.status === 'Closed') throw new ConflictError(`Batch ${b.name} (id ${id}) is already closed`);
        if (!force && (b.variance !== 0 || b.contributionCount !== b.controlCount)) {
          throw new ConflictError(unbalancedMessage(b));
        }
        await tx.execute(sql`update batches set status = 'Closed', closed_at = now(), closed_by = ${auth.userId}, updated_at = now()
          where tenant_id = ${auth.tenantId} and id = ${id}`);
        const after = await findBatch(tx, auth.tenantId, id);
        await recordChanges(tx, auth, [{ type: 'batch.closed', entityId: id, changes: { status: { from: 'Open', to: 'Closed' } }, data: { ...closedData(after), forced: force } }]);
        return after;
      }),

    reopen: (auth: Principal, id: number) =>
      withTenant(db, auth, async (tx) => {
        if (!auth.permissions.has('finance:admin')) throw new ForbiddenError('Missing permission finance:admin');
        const b = await findBatch(tx, auth.tenantId, id, true);
        if (b.status !== 'Closed') throw new ConflictError(`Batch ${b.name} (id ${id}) is not closed`);
        await tx.execute(sql`update batches set status = 'Open', closed_at = null, closed_by = null, updated_at = now() where tenant_id = ${auth.tenantId} and id = ${id}`);
        const after = await findBatch(tx, auth.tenantId, id);
        await recordChanges(tx, auth, [{ type: 'batch.reopened', entityId: id, changes: { status: { from: 'Closed', to: 'Open' } }, data: closedData(after) }]);
        return after;
      }),
  };
}
