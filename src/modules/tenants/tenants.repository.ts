import { and, asc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { tenants } from '../../db/schema/index.js';

export type Tenant = typeof tenants.$inferSelect;

export async function findTenantBySlug(db: Db, slug: string): Promise<Tenant | undefined> {
  const [row] = await db.select().from(tenants).where(eq(tenants.slug, slug.toLowerCase()));
  return row;
}

export async function listTenants(db: Db, limit: number, offset: number) {
  const rows = await db.select({ slug: tenants.slug, name: tenants.name }).from(tenants).orderBy(asc(tenants.name), asc(tenants.id)).limit(limit).offset(offset);
  const total = await db.$count(tenants);
  return { rows, total };
}

export async function findTenantById(db: Db, id: number): Promise<Tenant | undefined> {
  const [row] = await db.select().from(tenants).where(eq(tenants.id, id));
  return row;
}

export type TenantSettingsPatch = Partial<Pick<Tenant, 'name' | 'timeZone' | 'currency' | 'allowRegistration' | 'address' | 'taxNumber' | 'statementClosing' | 'paperSize' | 'replyTo'>>;

export async function updateTenant(db: Db, id: number, values: TenantSettingsPatch): Promise<Tenant | undefined> {
  if (Object.keys(values).length === 0) return findTenantById(db, id);
  const [row] = await db.update(tenants).set(values).where(and(eq(tenants.id, id))).returning();
  return row;
}

/**
 * The tenant's stored amounts, which are integers in its currency: contributions, pledges and batches
 * with control amounts (read here, not through finance: finance reads the currency from this module).
 */
export async function countAmounts(db: Db, id: number): Promise<{ gifts: number; pledges: number; batches: number }> {
  const result = await db.execute(sql`select
    (select count(*) from contributions where tenant_id = ${id}) as gifts,
    (select count(*) from pledges where tenant_id = ${id}) as pledges,
    (select count(*) from batches where tenant_id = ${id} and control_amount > 0) as batches`);
  const [row] = (result as unknown as { rows: Record<'gifts' | 'pledges' | 'batches', unknown>[] }).rows;
  return { gifts: Number(row.gifts), pledges: Number(row.pledges), batches: Number(row.batches) };
}

export async function insertTenant(db: Db, values: { slug: string; name: string; allowRegistration?: boolean; timeZone?: string; currency?: string }): Promise<Tenant> {
  const [row] = await db.insert(tenants).values(values).returning();
  return row;
}
