import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import type { ContributionMethod, ContributionStatus } from '../../db/schema/finance.js';
import { containsPattern } from '../../lib/like.js';
import { toMinor } from '../../lib/money.js';
import type { Page } from '../../lib/pagination.js';
import { idArray, rowsOf } from './finance.common.js';
import type { ContributionFilter, ContributionItem, LineInput } from './finance.schemas.js';

/** Queries of contributions and their lines; every one filters on tenant_id. */

/** The WHERE of the list, the export and my/contributions (alias `c`). */
export function contributionWhere(tenantId: number, f: ContributionFilter): SQL {
  const parts: SQL[] = [sql`c.tenant_id = ${tenantId}`];
  if (f.contactId !== undefined) parts.push(sql`c.contact_id = ${f.contactId}`);
  if (f.batchId !== undefined) parts.push(sql`c.batch_id = ${f.batchId}`);
  if (f.method !== undefined) parts.push(sql`c.method = ${f.method}`);
  if (f.from !== undefined) parts.push(sql`c.date >= ${f.from}::date`);
  if (f.to !== undefined) parts.push(sql`c.date <= ${f.to}::date`);
  if (f.minAmount !== undefined) parts.push(sql`c.amount >= ${f.minAmount}`);
  if (f.maxAmount !== undefined) parts.push(sql`c.amount <= ${f.maxAmount}`);
  if (f.fundId !== undefined) {
    parts.push(sql`exists (select 1 from contribution_lines fl where fl.tenant_id = c.tenant_id and fl.contribution_id = c.id and fl.fund_id = ${f.fundId})`);
  }
  if (f.q !== undefined && f.q.trim() !== '') {
    const pattern = containsPattern(f.q.trim().toLowerCase());
    parts.push(sql`exists (select 1 from contacts k where k.tenant_id = c.tenant_id and k.id = c.contact_id and k.search_text like ${pattern})`);
  }
  return sql.join(parts, sql` and `);
}

const ORDER: Record<string, SQL> = {
  '-date': sql`c.date desc, c.id desc`,
  date: sql`c.date asc, c.id asc`,
  amount: sql`c.amount asc, c.id asc`,
  '-amount': sql`c.amount desc, c.id desc`,
};

/**
 * SQL: the exact number of contributions matching the filter. Filtered by dates, method and fund only
 * (or not at all): summed from the giving rollups' entries (giving_days: one row per day, fund and
 * method), not counted; by contact or batch: counted over their index; other filters: counted.
 */
function countSql(tenantId: number, f: ContributionFilter): SQL {
  const fromRollup = f.contactId === undefined && f.batchId === undefined && f.minAmount === undefined && f.maxAmount === undefined && (f.q === undefined || f.q.trim() === '');
  return fromRollup
    ? sql`select coalesce(sum(d.entries), 0) from giving_days d where d.tenant_id = ${tenantId} and d.fund_id = ${f.fundId ?? 0}
        ${f.method !== undefined ? sql`and d.method = ${f.method}` : sql``} ${f.from !== undefined ? sql`and d.date >= ${f.from}::date` : sql``}
        ${f.to !== undefined ? sql`and d.date <= ${f.to}::date` : sql``}`
    : sql`select count(*) from contributions c where ${contributionWhere(tenantId, f)}`;
}

export async function countContributions(tx: Db, tenantId: number, f: ContributionFilter): Promise<number> {
  const rows = rowsOf<{ n: unknown }>(await tx.execute(sql`select (${countSql(tenantId, f)}) as n`));
  return Number(rows[0].n);
}

interface ContributionRow {
  id: unknown; date: string; contact_id: unknown; first_name: string | null; last_name: string | null; amount: unknown;
  refunded_amount: unknown; method: ContributionMethod; status: ContributionStatus; reference: string | null; notes: string | null;
  batch_id: unknown; batch_name: string | null; is_unmatched: boolean; payer_name: string | null; payer_email: string | null;
  payer_phone: string | null; created_ms: unknown; updated_ms: unknown;
  /** [[fund id, fund name, amount], ...] in line order. */
  lines: unknown;
  currency: string;
}

/**
 * SQL: the contributions whose ids `page` (a subquery with a column `id`) yields,
 * with contact, batch, lines (as JSON, in line order) and the tenant's currency, in `order`: one
 * statement whatever the page size.
 */
function itemsSql(tenantId: number, page: SQL, order: SQL, extra: SQL = sql``): SQL {
  return sql`
    select c.id, c.date::text as date, c.contact_id, coalesce(p.first_name, co.name, '') as first_name, coalesce(p.last_name, '') as last_name,
      c.amount, c.refunded_amount, c.method, c.status, c.reference, c.notes, c.batch_id, b.name as batch_name, c.is_unmatched,
      c.payer_name, c.payer_email, c.payer_phone,
      floor(extract(epoch from c.created_at) * 1000)::float8 as created_ms, floor(extract(epoch from c.updated_at) * 1000)::float8 as updated_ms,
      (select coalesce(json_agg(json_build_array(l.fund_id, f.name, l.amount::text) order by l.id), '[]'::json)
        from contribution_lines l join funds f on f.tenant_id = l.tenant_id and f.id = l.fund_id
        where l.tenant_id = c.tenant_id and l.contribution_id = c.id) as lines,
      t.currency ${extra}
    from (${page}) pg
    join contributions c on c.tenant_id = ${tenantId} and c.id = pg.id
    join tenants t on t.id = c.tenant_id
    left join persons p on p.tenant_id = c.tenant_id and p.contact_id = c.contact_id
    left join companies co on co.tenant_id = c.tenant_id and co.contact_id = c.contact_id
    left join batches b on b.tenant_id = c.tenant_id and b.id = c.batch_id
    order by ${order}`;
}

/** Contributions by id with their contact, batch and lines, in the order of `ids` (one statement). */
export async function loadContributions(tx: Db, tenantId: number, ids: readonly number[]): Promise<ContributionItem[]> {
  if (ids.length === 0) return [];
  const rows = rowsOf<ContributionRow & { ord: unknown }>(
    await tx.execute(itemsSql(tenantId, sql`select u.id, u.ord from unnest(${idArray(ids)}) with ordinality as u(id, ord)`, sql`pg.ord`)),
  );
  return rows.map(toItem);
}

/**
 * One page of the list in one statement: the page's ids from the index of the order (no count of
 * every match), their items, and the exact total: the page's length when it is a first page shorter
 * than the limit, else countSql (an InitPlan under CASE: run only when that branch is taken). A page
 * past the end has no row to carry the total: `total` is then null and the caller counts.
 */
export async function listContributions(tx: Db, tenantId: number, filter: ContributionFilter, page: Page): Promise<{ items: ContributionItem[]; total: number | null }> {
  const order = ORDER[filter.sort ?? '-date'];
  const ids = sql`select c.id from contributions c where ${contributionWhere(tenantId, filter)} order by ${order} limit ${page.limit} offset ${page.offset}`;
  const rows = rowsOf<ContributionRow & { total: unknown }>(
    await tx.execute(sql`
      with page as materialized (${ids})
      ${itemsSql(tenantId, sql`select id from page`, order, sql`, case when ${page.offset} = 0 and (select count(*) from page) < ${page.limit}
        then (select count(*) from page) else (${countSql(tenantId, filter)}) end as total`)}`),
  );
  return { items: rows.map(toItem), total: rows.length ? Number(rows[0].total) : null };
}

function toItem(r: ContributionRow): ContributionItem {
  const lines = (typeof r.lines === 'string' ? JSON.parse(r.lines) : r.lines) as [unknown, string, unknown][];
  const hasPayer = r.payer_name !== null || r.payer_email !== null || r.payer_phone !== null;
  return {
    id: Number(r.id),
    date: r.date,
    contact: r.contact_id === null ? null : { id: Number(r.contact_id), firstName: r.first_name ?? '', lastName: r.last_name ?? '' },
    amount: toMinor(r.amount),
    currency: r.currency,
    method: r.method,
    reference: r.reference,
    notes: r.notes,
    status: r.status,
    refundedAmount: toMinor(r.refunded_amount),
    batch: r.batch_id === null ? null : { id: Number(r.batch_id), name: r.batch_name ?? '' },
    lines: lines.map(([fundId, name, amount]) => ({ fund: { id: Number(fundId), name }, amount: toMinor(amount) })),
    unmatched: r.is_unmatched,
    payer: hasPayer ? { name: r.payer_name, email: r.payer_email, phone: r.payer_phone } : null,
    createdAt: new Date(Number(r.created_ms)).toISOString(),
    updatedAt: new Date(Number(r.updated_ms)).toISOString(),
  };
}

export interface ContributionState {
  id: number;
  contactId: number | null;
  date: string;
  amount: number;
  refundedAmount: number;
  method: ContributionMethod;
  reference: string | null;
  notes: string | null;
  batchId: number | null;
  fundIds: number[];
}

/** A contribution's scalars and its funds, locked for update (its batch is locked apart: lockBatches). */
export async function findContributionForUpdate(tx: Db, tenantId: number, id: number): Promise<ContributionState | undefined> {
  const rows = rowsOf<{ id: unknown; contact_id: unknown; date: string; amount: unknown; refunded_amount: unknown; method: ContributionMethod; reference: string | null; notes: string | null; batch_id: unknown; fund_ids: unknown }>(
    await tx.execute(sql`
      select c.id, c.contact_id, c.date::text as date, c.amount, c.refunded_amount, c.method, c.reference, c.notes, c.batch_id,
        (select coalesce(array_agg(l.fund_id order by l.id)::text, '{}') from contribution_lines l where l.tenant_id = c.tenant_id and l.contribution_id = c.id) as fund_ids
      from contributions c where c.tenant_id = ${tenantId} and c.id = ${id} for update`),
  );
  const r = rows[0];
  if (!r) return undefined;
  return {
    id: Number(r.id), contactId: r.contact_id === null ? null : Number(r.contact_id), date: r.date, amount: toMinor(r.amount),
    refundedAmount: toMinor(r.refunded_amount), method: r.method, reference: r.reference, notes: r.notes,
    batchId: r.batch_id === null ? null : Number(r.batch_id), fundIds: parseIntArray(r.fund_ids),
  };
}

export function parseIntArray(value: unknown): number[] {
  const text = String(value ?? '{}').replace(/[{}]/g, '');
  return text === '' ? [] : text.split(',').map(Number);
}

export interface NewContribution {
  contactId: number | null;
  date: string;
  amount: number;
  method: ContributionMethod;
  reference: string | null;
  notes: string | null;
  batchId: number | null;
  isUnmatched?: boolean;
  payerName?: string | null;
  payerEmail?: string | null;
  payerPhone?: string | null;
  lines: LineInput[];
}

/**
 * Inserts contributions and their lines set-based: ids are drawn from the identity sequence in one
 * statement, then one insert for the contributions and one for all lines (three round trips for
 * 10,000 rows). Returns the new ids in input order.
 */
export async function insertContributions(tx: Db, tenantId: number, items: readonly NewContribution[]): Promise<number[]> {
  if (items.length === 0) return [];
  const idRows = rowsOf<{ id: unknown }>(
    await tx.execute(sql`select nextval(pg_get_serial_sequence('contributions', 'id')) as id from generate_series(1, ${items.length}) g order by g`),
  );
  const ids = idRows.map((r) => Number(r.id));
  const rows = items.map((c, i) => ({
    id: ids[i], contact_id: c.contactId, date: c.date, amount: c.amount, method: c.method, reference: c.reference, notes: c.notes,
    batch_id: c.batchId, is_unmatched: c.isUnmatched ?? false, payer_name: c.payerName ?? null, payer_email: c.payerEmail ?? null, payer_phone: c.payerPhone ?? null,
  }));
  await tx.execute(sql`
    insert into contributions (tenant_id, id, contact_id, date, amount, method, reference, notes, batch_id, is_unmatched, payer_name, payer_email, payer_phone)
    select ${tenantId}::bigint, id, contact_id, date, amount, method, reference, notes, batch_id, is_unmatched, payer_name, payer_email, payer_phone
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as x(id bigint, contact_id bigint, date date, amount bigint, method text, reference text, notes text,
      batch_id bigint, is_unmatched boolean, payer_name text, payer_email text, payer_phone text)`);
  await insertLines(tx, tenantId, items.flatMap((c, i) => c.lines.map((l) => ({ contribution_id: ids[i], fund_id: l.fundId, amount: l.amount }))));
  return ids;
}

export async function insertLines(tx: Db, tenantId: number, lines: { contribution_id: number; fund_id: number; amount: number }[]): Promise<void> {
  if (lines.length === 0) return;
  await tx.execute(sql`
    insert into contribution_lines (tenant_id, contribution_id, fund_id, amount)
    select ${tenantId}::bigint, contribution_id, fund_id, amount
    from rows from (jsonb_to_recordset(${JSON.stringify(lines)}::jsonb) as (contribution_id bigint, fund_id bigint, amount bigint)) with ordinality as x(contribution_id, fund_id, amount, n)
    order by n`);
}

export async function replaceLines(tx: Db, tenantId: number, contributionId: number, lines: LineInput[]): Promise<void> {
  await tx.execute(sql`delete from contribution_lines where tenant_id = ${tenantId} and contribution_id = ${contributionId}`);
  await insertLines(tx, tenantId, lines.map((l) => ({ contribution_id: contributionId, fund_id: l.fundId, amount: l.amount })));
}

export async function updateContributionRow(tx: Db, tenantId: number, id: number, v: { contactId: number | null; date: string; amount: number; method: string; reference: string | null; notes: string | null; batchId: number | null }): Promise<void> {
  await tx.execute(sql`
    update contributions set contact_id = ${v.contactId}, date = ${v.date}::date, amount = ${v.amount}, method = ${v.method}, reference = ${v.reference},
      notes = ${v.notes}, batch_id = ${v.batchId}, is_unmatched = case when ${v.contactId}::bigint is not null then false else is_unmatched end, updated_at = now()
    where tenant_id = ${tenantId} and id = ${id}`);
}

export async function deleteContributionRow(tx: Db, tenantId: number, id: number): Promise<void> {
  await tx.execute(sql`delete from contributions where tenant_id = ${tenantId} and id = ${id}`);
}

/**
 * Records a refund: the refund row, the contribution's refunded amount and status, and the refund
 * apportioned onto the lines in proportion to their amounts, in integers, so net amounts by fund always add up to the net amount.
 */
export async function applyRefund(tx: Db, tenantId: number, userId: number | null, c: ContributionState, amount: number, reason: string | null): Promise<void> {
  const refunded = c.refundedAmount + amount;
  const status: ContributionStatus = refunded >= c.amount ? 'Refunded' : 'PartiallyRefunded';
  await tx.execute(sql`insert into contribution_refunds (tenant_id, contribution_id, amount, reason, created_by) values (${tenantId}, ${c.id}, ${amount}, ${reason}, ${userId})`);
  await tx.execute(sql`update contributions set refunded_amount = ${refunded}, status = ${status}, updated_at = now() where tenant_id = ${tenantId} and id = ${c.id}`);
  // Largest remainder: each line gets floor(amount × refunded ÷ total), and the units left over go
  // one each to the lines with the largest remainders (so no line is refunded beyond its amount).
  // numeric: amount × refunded may exceed bigint.
  await tx.execute(sql`
    with share as (
      select id, div(amount::numeric * ${refunded}, ${c.amount})::bigint as base,
        row_number() over (order by mod(amount::numeric * ${refunded}, ${c.amount}) desc, id) as n
      from contribution_lines where tenant_id = ${tenantId} and contribution_id = ${c.id}
    ), rest as (select ${refunded}::bigint - sum(base) as r from share)
    update contribution_lines l set refunded_amount = s.base + case when s.n <= (select r from rest) then 1 else 0 end
    from share s where l.tenant_id = ${tenantId} and l.id = s.id`);
}
