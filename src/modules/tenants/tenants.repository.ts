import { and, asc, eq } from 'drizzle-orm';
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

export type TenantSettingsPatch = Partial<Pick<Tenant, 'name' | 'timeZone' | 'currency' | 'allowRegistration'>>;

export async function updateTenant(db: Db, id: number, values: TenantSettingsPatch): Promise<Tenant | undefined> {
  if (Object.keys(values).length === 0) return findTenantById(db, id);
  const [row] = await db.update(tenants).set(values).where(and(eq(tenants.id, id))).returning();
  return row;
}

export async function insertTenant(db: Db, values: { slug: string; name: string; allowRegistration?: boolean; timeZone?: string; currency?: string }): Promise<Tenant> {
  const [row] = await db.insert(tenants).values(values).returning();
  return row;
}
