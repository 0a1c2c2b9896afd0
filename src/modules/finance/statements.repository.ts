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

/**
 * Statements of the contacts among `contactIds` that exist (keyed by contact id), in one statement:
 * a row per contact with its lines and its totals (per fund by name, then all funds) as JSON, amounts
 * as text (exact whatever their size); the tenant's name and currency from the tenant row unless given.
 */
export async function loadStatements(tx: Db, tenantId: number, contactIds: readonly number[], scope: StatementScope, tenant?: { name: string; currency: string }): Promise<Map<number, Statement>> {
  const ids = idArray(contactIds);
  const rows = rowsOf<StatementRow>(
    await tx.execute(sql`
      with g as materialized (${giftsSql(tenantId, ids, scope)}),
      l as (
        select g.contact_id, json_agg(json_build_array(g.contribution_id, g.date::text, g.fund_id, g.fund_name, g.is_tax_deductible, g.net::text, g.method, g.reference)
          order by g.date, g.contribution_id, g.line_id) as lines
        from g group by g.contact_id
      ), t as (
        select s.contact_id, json_agg(json_build_array(s.fund_id, s.fund_name, s.amount::text, s.deductible::text) order by s.is_total, s.fund_name, s.fund_id) as totals
        from (
          select g.contact_id, g.fund_id, g.fund_name, sum(g.net) as amount, coalesce(sum(g.net) filter (where g.is_tax_deductible), 0) as deductible,
            grouping(g.fund_id, g.fund_name) as is_total
          from g group by grouping sets ((g.contact_id, g.fund_id, g.fund_name), (g.contact_id))
        ) s group by s.contact_id
      )
      select k.id, coalesce(p.first_name, co.name, '') as first_name, coalesce(p.last_name, '') as last_name,
        a.street, a.city, a.country, a.id is not null as has_address, l.lines, t.totals, tn.name as tenant_name, tn.currency
      from contacts k
      join tenants tn on tn.id = k.tenant_id
      left join persons p on p.tenant_id = k.tenant_id and p.contact_id = k.id
      left join companies co on co.tenant_id = k.tenant_id and co.contact_id = k.id
      left join lateral (select id, street, city, country from contact_addresses a where a.tenant_id = k.tenant_id and a.contact_id = k.id
        order by a.is_primary desc, a.position, a.id limit 1) a on true
      left join l on l.contact_id = k.id
      left join t on t.contact_id = k.id
      where k.tenant_id = ${tenantId} and k.id = any(${ids})`),
  );
  return statementsFromRows(rows, scope, tenant);
}

/** A row of loadStatements' statement: a contact with its lines and totals as JSON. */
export interface StatementRow {
  id: unknown; first_name: string; last_name: string; street: string | null; city: string | null; country: string | null;
  has_address: boolean; lines: unknown; totals: unknown; tenant_name: string; currency: string;
}

/** loadStatements' rows as statements, keyed by contact id (exported for the bench's PDF ceiling, bench/scenarios.ts f3r). */
export function statementsFromRows(rows: readonly StatementRow[], scope: StatementScope, tenant?: { name: string; currency: string }): Map<number, Statement> {
  const json = <T>(v: unknown): T[] => (v === null || v === undefined ? [] : ((typeof v === 'string' ? JSON.parse(v) : v) as T[]));
  const out = new Map<number, Statement>();
  for (const k of rows) {
    const statement: Statement = {
      tenant: { name: tenant?.name ?? k.tenant_name },
      contact: { id: Number(k.id), firstName: k.first_name, lastName: k.last_name, address: k.has_address ? { street: k.street, city: k.city, country: k.country } : null },
      period: { from: scope.from, to: scope.to },
      currency: tenant?.currency ?? k.currency,
      lines: json<[unknown, string, unknown, string, boolean, string, ContributionMethod, string | null]>(k.lines).map(([contributionId, date, fundId, fundName, isTaxDeductible, net, method, reference]) => ({
        contributionId: Number(contributionId), date, fund: { id: Number(fundId), name: fundName }, amount: toMinor(net), method, reference, isTaxDeductible,
      })),
      totals: { total: 0, deductible: 0, byFund: [] },
    };
    for (const [fundId, fundName, amount, deductible] of json<[unknown, string | null, string, string]>(k.totals)) {
      if (fundId === null) statement.totals = { ...statement.totals, total: toMinor(amount), deductible: toMinor(deductible) };
      else statement.totals.byFund.push({ fund: { id: Number(fundId), name: fundName ?? '' }, amount: toMinor(amount) });
    }
    out.set(Number(k.id), statement);
  }
  return out;
}
