import { and, eq } from 'drizzle-orm';
import { fieldChanges, recordChanges } from '../../changes/recorder.js';
import { withTenant, type Db } from '../../db/client.js';
import { roles } from '../../db/schema/index.js';
import { BadRequestError, ConflictError, NotFoundError } from '../../lib/errors.js';
import { toPage, pageResult, type PageRequest } from '../../lib/pagination.js';
import { ALL_PERMISSIONS } from '../../lib/permissions.js';
import { isCurrency, isTimeZone } from '../../lib/periods.js';
import type { Principal } from '../../plugins/auth.js';
import { loadTenantSettings, toTenantSettings, type TenantSettings } from '../../tenancy/settings.js';
import * as repo from './tenants.repository.js';

/** Keeps every tenant's Admin role holding the whole catalog when modules add permissions. */
export async function syncSystemRoles(db: Db): Promise<void> {
  await db.update(roles).set({ permissions: ALL_PERMISSIONS }).where(and(eq(roles.isSystem, true), eq(roles.name, 'Admin')));
}

export async function listTenants(db: Db, query: PageRequest) {
  const page = toPage(query);
  const { rows, total } = await repo.listTenants(db, page.limit, page.offset);
  return pageResult(page, rows, total);
}

export function getCurrentTenant(db: Db, auth: Principal): Promise<TenantSettings> {
  return withTenant(db, auth, (tx) => loadTenantSettings(tx, auth.tenantId));
}

/**
 * Amounts are stored as integers of the currency's minor unit: a new currency would re-read every
 * stored amount in it (45050 USD cents as 45050 UGX). Refused (409) while any amount is stored.
 */
async function checkNoAmounts(tx: Db, tenantId: number, currency: string): Promise<void> {
  const n = await repo.countAmounts(tx, tenantId);
  const count = (k: number, one: string, many: string) => (k === 0 ? [] : [`${k} ${k === 1 ? one : many}`]);
  const held = [...count(n.gifts, 'gift', 'gifts'), ...count(n.pledges, 'pledge', 'pledges'), ...count(n.batches, 'batch with a control amount', 'batches with a control amount')];
  if (held.length === 0) return;
  throw new ConflictError(`The currency cannot change from ${currency} while amounts are recorded in it (${held.join(', ')}): they would be read in the new currency`);
}

export async function updateCurrentTenant(db: Db, auth: Principal, patch: repo.TenantSettingsPatch): Promise<TenantSettings> {
  if (patch.timeZone !== undefined && !isTimeZone(patch.timeZone)) throw new BadRequestError(`body/timeZone ${patch.timeZone} is not an IANA time zone`);
  if (patch.currency !== undefined && !isCurrency(patch.currency)) throw new BadRequestError(`body/currency ${patch.currency} is not an ISO 4217 code`);
  const values: repo.TenantSettingsPatch = { ...patch, ...(patch.currency ? { currency: patch.currency.toUpperCase() } : {}) };
  // Free text is kept trimmed; blank clears it (null), as null does.
  for (const key of ['address', 'taxNumber', 'statementClosing', 'replyTo'] as const) {
    const v = values[key];
    if (typeof v === 'string') values[key] = v.trim() === '' ? null : v.trim();
  }
  return withTenant(db, auth, async (tx) => {
    const before = await loadTenantSettings(tx, auth.tenantId);
    if (values.currency !== undefined && values.currency !== before.currency) await checkNoAmounts(tx, auth.tenantId, before.currency);
    const updated = await repo.updateTenant(tx, auth.tenantId, values);
    if (!updated) throw new NotFoundError('Tenant', auth.tenantId);
    const after = toTenantSettings(updated);
    const changes = fieldChanges({ ...before }, { ...after });
    if (changes) await recordChanges(tx, auth, [{ type: 'tenant.updated', entityId: auth.tenantId, changes, data: { tenantId: auth.tenantId, slug: after.slug, name: after.name } }]);
    return after;
  });
}
