import { eq } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { tenants, type PaperSize } from '../db/schema/index.js';
import { NotFoundError } from '../lib/errors.js';

/**
 * The settings every module reads: time zone for "today" and periods, currency beside amounts, what
 * statements print and where replies to messages go. They
 * live below the modules (any module may read them, the tenants module included) so that reading
 * them never pulls in the module that edits them.
 */
export interface TenantSettings {
  slug: string;
  name: string;
  timeZone: string;
  currency: string;
  allowRegistration: boolean;
  /** The church's postal address (free text), printed in a statement's header. */
  address: string | null;
  /** The church's registration or tax number, printed in a statement's header. */
  taxNumber: string | null;
  /** A closing sentence printed at the end of statements. */
  statementClosing: string | null;
  /** The paper statements are laid out on. */
  paperSize: PaperSize;
  /** Where replies to the church's messages go; null: the sending user's email. */
  replyTo: string | null;
}

export function toTenantSettings(t: typeof tenants.$inferSelect): TenantSettings {
  return {
    slug: t.slug, name: t.name, timeZone: t.timeZone, currency: t.currency, allowRegistration: t.allowRegistration,
    address: t.address, taxNumber: t.taxNumber, statementClosing: t.statementClosing, paperSize: t.paperSize, replyTo: t.replyTo,
  };
}

/** The tenant's settings, read in the caller's transaction. */
export async function loadTenantSettings(tx: Db, tenantId: number): Promise<TenantSettings> {
  const [tenant] = await tx.select().from(tenants).where(eq(tenants.id, tenantId));
  if (!tenant) throw new NotFoundError('Tenant', tenantId);
  return toTenantSettings(tenant);
}
