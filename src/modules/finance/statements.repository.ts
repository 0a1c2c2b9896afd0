import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import type { ContributionMethod } from '../../db/schema/finance.js';
import { toMinor } from '../../lib/money.js';
import { idArray, rowsOf } from './finance.common.js';
import type { PaperSize } from '../../db/schema/tenants.js';
import type { HouseholdStatement, Statement } from './finance.schemas.js';

/** What a statement takes from the tenant's settings. */
export interface StatementSettings {
  name: string;
  currency: string;
  address: string | null;
  taxNumber: string | null;
  statementClosing: string | null;
  paperSize: PaperSize;
}

/** The tenant columns a statement query selects (`tn` is the tenant row). */
const TENANT_COLUMNS = sql`tn.name as tenant_name, tn.currency, tn.address as tenant_address, tn.tax_number as tenant_tax_number,
  tn.statement_closing as tenant_statement_closing, tn.paper_size as tenant_paper_size`;

/** The tenant columns of a statement row. */
interface TenantRow {
  tenant_name: string; currency: string; tenant_address?: string | null; tenant_tax_number?: string | null;
  tenant_statement_closing?: string | null; tenant_paper_size?: string | null;
}

/** The statement's church: the settings given, else the row's tenant columns. */
function statementTenant(row: TenantRow, given?: StatementSettings): { tenant: Statement['tenant']; currency: string } {
  if (given) {
    return { tenant: { name: given.name, address: given.address, taxNumber: given.taxNumber, statementClosing: given.statementClosing, paperSize: given.paperSize }, currency: given.currency };
  }
  return {
    tenant: {
      name: row.tenant_name, address: row.tenant_address ?? null, taxNumber: row.tenant_tax_number ?? null, statementClosing: row.tenant_statement_closing ?? null,
      paperSize: row.tenant_paper_size === 'Letter' ? 'Letter' : 'A4',
    },
    currency: row.currency,
  };
}

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

/** Who gives together: each member of a giving-together household with that household's id. */
export interface Together {
  contactId: number;
  householdId: number;
}

/** `together` as a relation `hm(contact_id, household_id)` of two bigint[] parameters. */
function togetherSql(together: readonly Together[]): SQL {
  return sql`select * from unnest(${idArray(together.map((t) => t.contactId))}, ${idArray(together.map((t) => t.householdId))}) as hm(contact_id, household_id)`;
}

/** A bulk statement's addressee: a giving-together household or a donor on their own. */
export type Recipient = { kind: 'household'; id: number } | { kind: 'contact'; id: number };

/**
 * The addressees of bulk statements (ids only: flat memory), by name: each member of a
 * giving-together household (`together`) counts in that household, whose combined net giving in the
 * scope must reach minTotal; every other donor on their own. So no gift is in two statements.
 */
/** Whether the tenant has any gift dated in [from, to] (contributions_date_idx). */
export async function hasGiftsBetween(tx: Db, tenantId: number, from: string, to: string): Promise<boolean> {
  const rows = rowsOf<{ one: number }>(await tx.execute(sql`select 1 as one from contributions c
    where c.tenant_id = ${tenantId} and c.date between ${from}::date and ${to}::date limit 1`));
  return rows.length > 0;
}

export async function recipientsReaching(tx: Db, tenantId: number, scope: StatementScope, minTotal: number, together: readonly Together[]): Promise<Recipient[]> {
  const funds = scope.fundIds?.length ? sql`and l.fund_id = any(${idArray(scope.fundIds)})` : sql``;
  const rows = rowsOf<{ household_id: unknown; contact_id: unknown }>(
    await tx.execute(sql`
      with hm as (${togetherSql(together)}),
      s as (
        select c.contact_id, sum(l.amount - l.refunded_amount) as net from contributions c
        join contribution_lines l on l.tenant_id = c.tenant_id and l.contribution_id = c.id
        where c.tenant_id = ${tenantId} and c.contact_id is not null and c.date between ${scope.from}::date and ${scope.to}::date ${funds}
        group by c.contact_id
      )
      select hm.household_id, case when hm.household_id is null then s.contact_id end as contact_id
      from s
      join contacts k on k.tenant_id = ${tenantId} and k.id = s.contact_id
      left join hm on hm.contact_id = s.contact_id
      group by hm.household_id, case when hm.household_id is null then s.contact_id end
      having sum(s.net) >= ${minTotal} and sum(s.net) > 0
      order by min(k.sort_last), min(k.sort_first), hm.household_id nulls last, 2`),
  );
  return rows.map((r) => (r.household_id === null ? { kind: 'contact', id: Number(r.contact_id) } : { kind: 'household', id: Number(r.household_id) }));
}

/** A household as its statement addresses it (from the households module). */
export interface StatementHouseholdInput {
  id: number;
  name: string;
  address: { street: string | null; city: string | null; country: string | null } | null;
  members: { id: number; firstName: string; lastName: string }[];
}

/**
 * Statements of households over the gifts of the contacts `together` places in each (keyed by
 * household id, one per given household) in one statement: lines with their giver, totals (per fund
 * by name, then all funds) summed in SQL, as loadStatements does for a donor.
 */
export async function loadHouseholdStatements(
  tx: Db, tenantId: number, households: readonly StatementHouseholdInput[], together: readonly Together[], scope: StatementScope, tenant?: StatementSettings,
): Promise<Map<number, HouseholdStatement>> {
  const rows = rowsOf<HouseholdStatementRow>(
    await tx.execute(sql`
      with hm as materialized (${togetherSql(together)}),
      g as materialized (
        select hm.household_id, gifts.* from (${giftsSql(tenantId, idArray(together.map((t) => t.contactId)), scope)}) gifts
        join hm on hm.contact_id = gifts.contact_id
      ),
      l as (
        select g.household_id, json_agg(json_build_array(g.contribution_id, g.date::text, g.fund_id, g.fund_name, g.is_tax_deductible, g.net::text, g.method, g.reference,
            g.contact_id, coalesce(p.first_name, ''), coalesce(p.last_name, ''))
          order by g.date, g.contribution_id, g.line_id) as lines
        from g left join persons p on p.tenant_id = ${tenantId} and p.contact_id = g.contact_id
        group by g.household_id
      ), t as (
        select s.household_id, json_agg(json_build_array(s.fund_id, s.fund_name, s.amount::text, s.deductible::text) order by s.is_total, s.fund_name, s.fund_id) as totals
        from (
          select g.household_id, g.fund_id, g.fund_name, sum(g.net) as amount, coalesce(sum(g.net) filter (where g.is_tax_deductible), 0) as deductible,
            grouping(g.fund_id, g.fund_name) as is_total
          from g group by grouping sets ((g.household_id, g.fund_id, g.fund_name), (g.household_id))
        ) s group by s.household_id
      )
      select h.id, l.lines, t.totals, ${TENANT_COLUMNS}
      from unnest(${idArray(households.map((h) => h.id))}) as h(id)
      join tenants tn on tn.id = ${tenantId}
      left join l on l.household_id = h.id
      left join t on t.household_id = h.id`),
  );
  const byId = new Map(rows.map((r) => [Number(r.id), r]));
  const out = new Map<number, HouseholdStatement>();
  for (const h of households) {
    const row = byId.get(h.id);
    if (!row) continue;
    const lines = parseJson<[unknown, string, unknown, string, boolean, string, ContributionMethod, string | null, unknown, string, string]>(row.lines);
    const church = statementTenant(row, tenant);
    out.set(h.id, {
      tenant: church.tenant,
      household: { id: h.id, name: h.name, address: h.address },
      members: h.members.map((m) => ({ id: m.id, firstName: m.firstName, lastName: m.lastName })),
      period: { from: scope.from, to: scope.to },
      currency: church.currency,
      lines: lines.map(([contributionId, date, fundId, fundName, isTaxDeductible, net, method, reference, giverId, firstName, lastName]) => ({
        contributionId: Number(contributionId), date, giver: { id: Number(giverId), firstName, lastName }, fund: { id: Number(fundId), name: fundName },
        amount: toMinor(net), method, reference, isTaxDeductible,
      })),
      totals: totalsOf(row.totals),
    });
  }
  return out;
}

/** A row of loadHouseholdStatements' statement: a household's lines and totals as JSON. */
export interface HouseholdStatementRow extends TenantRow {
  id: unknown; lines: unknown; totals: unknown;
}

/**
 * Statements of the contacts among `contactIds` that exist (keyed by contact id), in one statement:
 * a row per contact with its lines and its totals (per fund by name, then all funds) as JSON, amounts
 * as text (exact whatever their size); the tenant's name and currency from the tenant row unless given.
 */
export async function loadStatements(tx: Db, tenantId: number, contactIds: readonly number[], scope: StatementScope, tenant?: StatementSettings): Promise<Map<number, Statement>> {
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
        a.street, a.city, a.country, a.id is not null as has_address, l.lines, t.totals, ${TENANT_COLUMNS}
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
export interface StatementRow extends TenantRow {
  id: unknown; first_name: string; last_name: string; street: string | null; city: string | null; country: string | null;
  has_address: boolean; lines: unknown; totals: unknown;
}

/** loadStatements' rows as statements, keyed by contact id (exported for the bench's PDF ceiling, bench/scenarios.ts f3r). */
export function statementsFromRows(rows: readonly StatementRow[], scope: StatementScope, tenant?: StatementSettings): Map<number, Statement> {
  const json = parseJson;
  const out = new Map<number, Statement>();
  for (const k of rows) {
    const church = statementTenant(k, tenant);
    const statement: Statement = {
      tenant: church.tenant,
      contact: { id: Number(k.id), firstName: k.first_name, lastName: k.last_name, address: k.has_address ? { street: k.street, city: k.city, country: k.country } : null },
      period: { from: scope.from, to: scope.to },
      currency: church.currency,
      lines: json<[unknown, string, unknown, string, boolean, string, ContributionMethod, string | null]>(k.lines).map(([contributionId, date, fundId, fundName, isTaxDeductible, net, method, reference]) => ({
        contributionId: Number(contributionId), date, fund: { id: Number(fundId), name: fundName }, amount: toMinor(net), method, reference, isTaxDeductible,
      })),
      totals: totalsOf(k.totals),
    };
    out.set(Number(k.id), statement);
  }
  return out;
}

/** A JSON column (an array, or its text), null as empty. */
function parseJson<T>(v: unknown): T[] {
  return v === null || v === undefined ? [] : ((typeof v === 'string' ? JSON.parse(v) : v) as T[]);
}

/** The totals column of a statement's row: per fund `[fundId, name, amount, deductible]`, then all funds (fundId null). */
function totalsOf(column: unknown): Statement['totals'] {
  const totals: Statement['totals'] = { total: 0, deductible: 0, byFund: [] };
  for (const [fundId, fundName, amount, deductible] of parseJson<[unknown, string | null, string, string]>(column)) {
    if (fundId === null) {
      totals.total = toMinor(amount);
      totals.deductible = toMinor(deductible);
    } else totals.byFund.push({ fund: { id: Number(fundId), name: fundName ?? '' }, amount: toMinor(amount) });
  }
  return totals;
}
