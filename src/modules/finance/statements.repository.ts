import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import type { ContributionMethod } from '../../db/schema/finance.js';
import { toMinor } from '../../lib/money.js';
import { idArray, rowsOf } from './finance.common.js';
import type { Statement } from './finance.schemas.js';

/**
 * Giving statements of one or many donors in a fixed number of queries (contacts, lines, totals):
 * amounts net of refunds, fully refunded lines left out, totals summed in SQL.
 */

export interface StatementScope {
  from: string;
  to: string;
  fundIds?: number[];
}

function giftsSql(tenantId: number, contactIds: SQL, scope: StatementScope): SQL {
  const funds = scope.fundIds?.length ? sql`and l.fund_id = any(${idArray(scope.fundIds)})` : sql``;
  return sql`
    select c.contact_id, c.id as contribution_id, c.date, l.id as line_id, l.fund_id, f.name as fund_name, f.is_tax_deductible,
      (l.amount - l.refunded_amount) as net, c.method, c.reference
    from contributions c
    join contribution_lines l on l.tenant_id = c.tenant_id and l.contribution_id = c.id
    join funds f on f.tenant_id = l.tenant_id and f.id = l.fund_id
    where c.tenant_id = ${tenantId} and c.contact_id = any(${contactIds}) and c.date between ${scope.from}::date and ${scope.to}::date
      and l.amount > l.refunded_amount ${funds}`;
}

/** The donors whose net giving in the scope reaches minTotal, in name order (ids only: flat memory). */
export async function donorsReaching(tx: Db, tenantId: number, scope: StatementScope, minTotal: number): Promise<number[]> {
  const funds = scope.fundIds?.length ? sql`and l.fund_id = any(${idArray(scope.fundIds)})` : sql``;
  const rows = rowsOf<{ contact_id: unknown }>(
    await tx.execute(sql`
      select c.contact_id from contributions c
      join contribution_lines l on l.tenant_id = c.tenant_id and l.contribution_id = c.id
      join contacts k on k.tenant_id = c.tenant_id and k.id = c.contact_id
      where c.tenant_id = ${tenantId} and c.contact_id is not null and c.date between ${scope.from}::date and ${scope.to}::date ${funds}
      group by c.contact_id, k.sort_last, k.sort_first
      having sum(l.amount - l.refunded_amount) >= ${minTotal} and sum(l.amount - l.refunded_amount) > 0
      order by k.sort_last, k.sort_first, c.contact_id`),
  );
  return rows.map((r) => Number(r.contact_id));
}

/** Statements of the contacts among `contactIds` that exist (keyed by contact id). */
export async function loadStatements(tx: Db, tenantId: number, contactIds: readonly number[], scope: StatementScope, tenantName: string, currency: string): Promise<Map<number, Statement>> {
  const ids = idArray(contactIds);
  const contacts = rowsOf<{ id: unknown; first_name: string; last_name: string; street: string | null; city: string | null; country: string | null; has_address: boolean }>(
    await tx.execute(sql`
      select k.id, coalesce(p.first_name, co.name, '') as first_name, coalesce(p.last_name, '') as last_name,
        a.street, a.city, a.country, a.id is not null as has_address
      from contacts k
      left join persons p on p.tenant_id = k.tenant_id and p.contact_id = k.id
      left join companies co on co.tenant_id = k.tenant_id and co.contact_id = k.id
      left join lateral (select id, street, city, country from contact_addresses a where a.tenant_id = k.tenant_id and a.contact_id = k.id
        order by a.is_primary desc, a.position, a.id limit 1) a on true
      where k.tenant_id = ${tenantId} and k.id = any(${ids})`),
  );
  const out = new Map<number, Statement>();
  for (const k of contacts) {
    out.set(Number(k.id), {
      tenant: { name: tenantName },
      contact: { id: Number(k.id), firstName: k.first_name, lastName: k.last_name, address: k.has_address ? { street: k.street, city: k.city, country: k.country } : null },
      period: { from: scope.from, to: scope.to },
      currency,
      lines: [],
      totals: { total: 0, deductible: 0, byFund: [] },
    });
  }
  if (out.size === 0) return out;
  const lines = rowsOf<{ contact_id: unknown; contribution_id: unknown; date: string; fund_id: unknown; fund_name: string; is_tax_deductible: boolean; net: unknown; method: ContributionMethod; reference: string | null }>(
    await tx.execute(sql`
      select g.contact_id, g.contribution_id, g.date::text as date, g.fund_id, g.fund_name, g.is_tax_deductible, g.net, g.method, g.reference
      from (${giftsSql(tenantId, ids, scope)}) g order by g.contact_id, g.date, g.contribution_id, g.line_id`),
  );
  for (const l of lines) {
    out.get(Number(l.contact_id))?.lines.push({
      contributionId: Number(l.contribution_id), date: l.date, fund: { id: Number(l.fund_id), name: l.fund_name }, amount: toMinor(l.net),
      method: l.method, reference: l.reference, isTaxDeductible: l.is_tax_deductible,
    });
  }
  const totals = rowsOf<{ contact_id: unknown; fund_id: unknown; fund_name: string | null; amount: unknown; deductible: unknown; is_total: number }>(
    await tx.execute(sql`
      select g.contact_id, g.fund_id, g.fund_name, sum(g.net)::bigint as amount,
        coalesce(sum(g.net) filter (where g.is_tax_deductible), 0)::bigint as deductible, grouping(g.fund_id, g.fund_name) as is_total
      from (${giftsSql(tenantId, ids, scope)}) g
      group by grouping sets ((g.contact_id, g.fund_id, g.fund_name), (g.contact_id))
      order by g.contact_id, g.fund_name, g.fund_id`),
  );
  for (const r of totals) {
    const s = out.get(Number(r.contact_id));
    if (!s) continue;
    if (Number(r.is_total) !== 0) s.totals = { ...s.totals, total: toMinor(r.amount), deductible: toMinor(r.deductible) };
    else s.totals.byFund.push({ fund: { id: Number(r.fund_id), name: r.fund_name ?? '' }, amount: toMinor(r.amount) });
  }
  return out;
}
