import { sql } from 'drizzle-orm';
import { fieldChanges, recordChanges } from '../../changes/recorder.js';
import { withTenant, type Db } from '../../db/client.js';
import { ConflictError, NotFoundError } from '../../lib/errors.js';
import { pageResult, toPage } from '../../lib/pagination.js';
import type { Principal } from '../../plugins/auth.js';
import { rowsOf } from './finance.common.js';
import type { CreateFundBody, FundItem, ListFundsQuery, UpdateFundBody } from './finance.schemas.js';

/** Funds: tenant-wide, names (and codes) unique case-insensitively; a fund in use is deactivated, not deleted. */

interface FundRow { id: unknown; name: string; code: string | null; description: string | null; is_tax_deductible: boolean; is_active: boolean }
const COLUMNS = sql`id, name, code, description, is_tax_deductible, is_active`;
const toFund = (r: FundRow): FundItem => ({ id: Number(r.id), name: r.name, code: r.code, description: r.description, isTaxDeductible: r.is_tax_deductible, isActive: r.is_active });

/** What every fund change carries in data. */
const fundData = (f: FundItem) => ({ fundId: f.id, fundName: f.name, code: f.code, isActive: f.isActive, isTaxDeductible: f.isTaxDeductible });
const fieldsOf = ({ id: _id, ...fields }: FundItem) => fields;

async function findFund(tx: Db, tenantId: number, id: number): Promise<FundItem> {
  const [row] = rowsOf<FundRow>(await tx.execute(sql`select ${COLUMNS} from funds where tenant_id = ${tenantId} and id = ${id}`));
  if (!row) throw new NotFoundError('Fund', id);
  return toFund(row);
}

async function checkUnique(tx: Db, tenantId: number, name: string | undefined, code: string | null | undefined, exceptId = 0): Promise<void> {
  if (name !== undefined) {
    const rows = rowsOf(await tx.execute(sql`select 1 from funds where tenant_id = ${tenantId} and lower(name) = lower(${name}) and id <> ${exceptId}`));
    if (rows.length) throw new ConflictError(`A fund named ${name} already exists`);
  }
  if (code != null) {
    const rows = rowsOf(await tx.execute(sql`select 1 from funds where tenant_id = ${tenantId} and lower(code) = lower(${code}) and id <> ${exceptId}`));
    if (rows.length) throw new ConflictError(`A fund with code ${code} already exists`);
  }
}

export function createFundsService({ db }: { db: Db }) {
  return {
    list: (auth: Principal, query: ListFundsQuery) =>
      withTenant(db, auth, async (tx) => {
        const page = toPage(query);
        const active = query.isActive === undefined ? sql`` : sql`and is_active = ${query.isActive}`;
        const rows = rowsOf<FundRow & { total: unknown }>(
          await tx.execute(sql`select ${COLUMNS}, count(*) over () as total from funds where tenant_id = ${auth.tenantId} ${active}
            order by lower(name), id limit ${page.limit} offset ${page.offset}`),
        );
        let total = rows.length ? Number(rows[0].total) : 0;
        if (!rows.length && page.offset > 0) {
          total = Number(rowsOf<{ n: unknown }>(await tx.execute(sql`select count(*) as n from funds where tenant_id = ${auth.tenantId} ${active}`))[0].n);
        }
        return pageResult(page, rows.map(toFund), total);
      }),

    get: (auth: Principal, id: number) => withTenant(db, auth, (tx) => findFund(tx, auth.tenantId, id)),

    create: (auth: Principal, body: CreateFundBody) =>
      withTenant(db, auth, async (tx) => {
        await checkUnique(tx, auth.tenantId, body.name, body.code);
        const [row] = rowsOf<FundRow>(
          await tx.execute(sql`insert into funds (tenant_id, name, code, description, is_tax_deductible, is_active)
            values (${auth.tenantId}, ${body.name}, ${body.code ?? null}, ${body.description ?? null}, ${body.isTaxDeductible ?? true}, ${body.isActive ?? true})
            returning ${COLUMNS}`),
        );
        const fund = toFund(row);
        await recordChanges(tx, auth, [{ type: 'fund.created', entityId: fund.id, data: fundData(fund) }]);
        return fund;
      }),

    update: (auth: Principal, id: number, body: UpdateFundBody) =>
      withTenant(db, auth, async (tx) => {
        const before = await findFund(tx, auth.tenantId, id);
        await checkUnique(tx, auth.tenantId, body.name, body.code, id);
        const next = { ...before, ...Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined)) } as FundItem;
        const [row] = rowsOf<FundRow>(
          await tx.execute(sql`update funds set name = ${next.name}, code = ${next.code}, description = ${next.description},
            is_tax_deductible = ${next.isTaxDeductible}, is_active = ${next.isActive}, updated_at = now()
            where tenant_id = ${auth.tenantId} and id = ${id} returning ${COLUMNS}`),
        );
        const after = toFund(row);
        const changes = fieldChanges(fieldsOf(before), fieldsOf(after));
        if (changes) await recordChanges(tx, auth, [{ type: 'fund.updated', entityId: id, changes, data: fundData(after) }]);
        return after;
      }),

    remove: (auth: Principal, id: number) =>
      withTenant(db, auth, async (tx) => {
        const fund = await findFund(tx, auth.tenantId, id);
        const used = rowsOf(
          await tx.execute(sql`select 1 where exists (select 1 from contribution_lines where tenant_id = ${auth.tenantId} and fund_id = ${id})
            or exists (select 1 from pledges where tenant_id = ${auth.tenantId} and fund_id = ${id})`),
        );
        if (used.length) throw new ConflictError(`Fund ${fund.name} is used by contributions or pledges: deactivate it instead`);
        await tx.execute(sql`delete from funds where tenant_id = ${auth.tenantId} and id = ${id}`);
        await recordChanges(tx, auth, [{ type: 'fund.deleted', entityId: id, data: fundData(fund) }]);
      }),
  };
}
