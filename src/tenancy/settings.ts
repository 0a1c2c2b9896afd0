import { eq } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { tenants } from '../db/schema/index.js';
import { NotFoundError } from '../lib/errors.js';

/**
 * The settings every module reads: time zone for "today" and periods, currency beside amounts. They
 * live below the modules (any module may read them, the tenants module included) so that reading
 * them never pulls in the module that edits them.
 */
export interface TenantSettings {
  slug: string;
  name: string;
  timeZone: string;
  currency: string;
  allowRegistration: boolean;
}

export function toTenantSettings(t: typeof tenants.$inferSelect): TenantSettings {
  return { slug: t.slug, name: t.name, timeZone: t.timeZone, currency: t.currency, allowRegistration: t.allowRegistration };
}

/** The tenant's settings, read in the caller's transaction. */
export async function loadTenantSettings(tx: Db, tenantId: number): Promise<TenantSettings> {
  const [tenant] = await tx.select().from(tenants).where(eq(tenants.id, tenantId));
  if (!tenant) throw new NotFoundError('Tenant', tenantId);
  return toTenantSettings(tenant);
}
