import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { NotFoundError } from '../../lib/errors.js';
import { loadTenantSettings } from '../../tenancy/settings.js';

/** Pieces every finance sub-resource shares: id arrays, the currency, existence checks. */

/** Rows: the result of tx.execute on either driver. */
export function rowsOf<T>(result: unknown): T[] {
  return (result as { rows: T[] }).rows;
}

/** A list of ids as ONE bigint[] parameter. */
export function idArray(ids: readonly number[]): SQL {
  if (!ids.every((id) => Number.isSafeInteger(id))) throw new TypeError('ids must be integers');
  return sql`${`{${ids.join(',')}}`}::bigint[]`;
}

export async function currencyOf(tx: Db, tenantId: number): Promise<string> {
  return (await loadTenantSettings(tx, tenantId)).currency;
}

/** `{id, firstName, lastName}` of a contact row joined as `p` (persons) and `co` (companies). */
export const contactNameSql = sql`coalesce(p.first_name, co.name, '') as first_name, coalesce(p.last_name, '') as last_name`;

/** Checks a contact exists in the tenant (404 naming it otherwise). */
export async function assertContact(tx: Db, tenantId: number, contactId: number): Promise<void> {
  const rows = rowsOf(await tx.execute(sql`select 1 from contacts where tenant_id = ${tenantId} and id = ${contactId}`));
  if (rows.length === 0) throw new NotFoundError('Contact', contactId);
}

export interface FundRow {
  id: number;
  name: string;
  isActive: boolean;
  isTaxDeductible: boolean;
}

/** The tenant's funds among `ids`, by id (one query). */
export async function fundsById(tx: Db, tenantId: number, ids: readonly number[]): Promise<Map<number, FundRow>> {
  if (ids.length === 0) return new Map();
  const rows = rowsOf<{ id: unknown; name: string; is_active: boolean; is_tax_deductible: boolean }>(
    await tx.execute(sql`select id, name, is_active, is_tax_deductible from funds where tenant_id = ${tenantId} and id = any(${idArray(ids)})`),
  );
  return new Map(rows.map((r) => [Number(r.id), { id: Number(r.id), name: r.name, isActive: r.is_active, isTaxDeductible: r.is_tax_deductible }]));
}

export const isoOf = (value: unknown): string => (value instanceof Date ? value : new Date(String(value))).toISOString();
export const dateOf = (value: unknown): string => (value instanceof Date ? value.toISOString().slice(0, 10) : String(value));
