import { and, eq } from 'drizzle-orm';
import { fieldChanges, recordChanges } from '../../changes/recorder.js';
import { bindTenant, transaction, withTenant, type Db } from '../../db/client.js';
import { eventCategories, groupCategories, roles } from '../../db/schema/index.js';
import { BadRequestError, ConflictError, NotFoundError } from '../../lib/errors.js';
import { toPage, pageResult, type PageRequest } from '../../lib/pagination.js';
import { hashPassword } from '../../lib/passwords.js';
import { ALL_PERMISSIONS, SYSTEM_ROLES } from '../../lib/permissions.js';
import { isCurrency, isTimeZone } from '../../lib/periods.js';
import type { Principal } from '../../plugins/auth.js';
import { insertPersonContact } from '../contacts/contacts.repository.js';
import { findRoleIdsByName, insertUser } from '../users/users.repository.js';
import { TENANT_SEEDERS } from './seeders.js';
import * as repo from './tenants.repository.js';

export const SLUG_PATTERN = /^[a-z0-9][a-z0-9-]{1,62}$/;

export const HIERARCHY_CATEGORIES = [
  { name: 'Church', level: 1, description: 'The whole church: the root of the hierarchy' },
  { name: 'Network', level: 2, description: 'A network of locations' },
  { name: 'Location', level: 3, description: 'A campus or congregation' },
  { name: 'Zone', level: 4, description: 'A geographic zone of a location' },
  { name: 'Cluster', level: 5, description: 'A cluster of fellowships' },
  { name: 'Fellowship', level: 6, description: 'A home fellowship or cell group' },
];

export const DEFAULT_EVENT_CATEGORIES = [
  { name: 'Sunday Service', description: 'Weekly worship service' },
  { name: 'Midweek Service', description: 'Midweek teaching or worship' },
  { name: 'Prayer Meeting', description: 'Corporate prayer' },
  { name: 'Fellowship Meeting', description: 'A home fellowship or cell meeting' },
  { name: 'Conference', description: 'Conference, retreat or camp' },
  { name: 'Outreach', description: 'Evangelism and community outreach' },
];

export interface NewTenant {
  slug: string;
  name: string;
  adminUsername: string;
  adminPassword: string;
  adminEmail?: string;
  allowRegistration?: boolean;
  /** IANA time zone (default UTC). */
  timeZone?: string;
  /** ISO 4217 code (default USD). */
  currency?: string;
}

/**
 * Creates a tenant with everything a church starts with: hierarchy categories, event categories,
 * the system roles and an admin user linked to a Person contact. One code path for the CLI, the
 * demo seed and the test factories.
 */
export async function createTenant(db: Db, input: NewTenant) {
  const slug = validateNewTenant(input);
  if (await repo.findTenantBySlug(db, slug)) throw new ConflictError(`A tenant with slug ${slug} already exists`);
  const passwordHash = await hashPassword(input.adminPassword);
  return transaction(db, async (tx) => {
    // A concurrent create of the same slug loses on the unique index: the same message as above.
    const tenant = await repo.insertTenant(tx, { slug, name: input.name.trim(), allowRegistration: input.allowRegistration, timeZone: input.timeZone, currency: input.currency?.toUpperCase() }).catch((err: unknown) => {
      if (isUniqueViolation(err)) throw new ConflictError(`A tenant with slug ${slug} already exists`);
      throw err;
    });
    await bindTenant(tx, tenant.id);
    const tenantId = tenant.id;
    await tx.insert(groupCategories).values(HIERARCHY_CATEGORIES.map((c) => ({ tenantId, ...c, purpose: 'Hierarchy' })));
    await tx.insert(eventCategories).values(DEFAULT_EVENT_CATEGORIES.map((c) => ({ tenantId, ...c })));
    await tx.insert(roles).values(SYSTEM_ROLES.map((r) => ({ tenantId, ...r, isSystem: true })));
    const contactId = await insertPersonContact(tx, tenantId, { firstName: 'Church', lastName: 'Administrator', email: input.adminEmail });
    const roleIds = await findRoleIdsByName(tx, tenantId, ['Admin']);
    const admin = await insertUser(tx, tenantId, { username: input.adminUsername, email: input.adminEmail ?? null, passwordHash, contactId, roleIds });
    for (const seed of TENANT_SEEDERS) await seed(tx, tenantId);
    return { tenant, admin };
  });
}

function isUniqueViolation(err: unknown): boolean {
  for (let e = err as { code?: unknown; cause?: unknown } | undefined, i = 0; e && i < 4; e = e.cause as typeof e, i++) {
    if (e.code === '23505') return true;
  }
  return false;
}

/** Checks a new tenant's input (the CLI calls it before opening the database); returns the slug. */
export function validateNewTenant(input: NewTenant): string {
  const slug = input.slug.trim().toLowerCase();
  if (!SLUG_PATTERN.test(slug)) throw new BadRequestError('slug must be 2–63 lowercase letters, digits or dashes, starting with a letter or digit');
  if (!input.name.trim() || input.name.length > 200) throw new BadRequestError('name must be 1–200 characters');
  if (input.adminPassword.length < 8 || input.adminPassword.length > 256) throw new BadRequestError('admin password must be 8–256 characters');
  if (!/^[^\s@]{3,100}$/.test(input.adminUsername)) throw new BadRequestError('admin username must be 3–100 characters without spaces or @');
  if (input.adminEmail !== undefined && (input.adminEmail.length > 254 || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(input.adminEmail))) {
    throw new BadRequestError('admin email must be an email address');
  }
  if (input.timeZone !== undefined && !isTimeZone(input.timeZone)) throw new BadRequestError(`time zone ${input.timeZone} is not an IANA time zone`);
  if (input.currency !== undefined && !isCurrency(input.currency)) throw new BadRequestError(`currency ${input.currency} is not an ISO 4217 code`);
  if (/\u0000/.test(input.slug + input.name + input.adminUsername + input.adminPassword + (input.adminEmail ?? ''))) {
    throw new BadRequestError('values must not contain NUL characters');
  }
  return slug;
}

/** Keeps every tenant's Admin role holding the whole catalog when modules add permissions. */
export async function syncSystemRoles(db: Db): Promise<void> {
  await db.update(roles).set({ permissions: ALL_PERMISSIONS }).where(and(eq(roles.isSystem, true), eq(roles.name, 'Admin')));
}

export async function listTenants(db: Db, query: PageRequest) {
  const page = toPage(query);
  const { rows, total } = await repo.listTenants(db, page.limit, page.offset);
  return pageResult(page, rows, total);
}

/** The settings every module reads: time zone for "today" and periods, currency beside amounts. */
export interface TenantSettings {
  slug: string;
  name: string;
  timeZone: string;
  currency: string;
  allowRegistration: boolean;
}

function toSettings(t: repo.Tenant): TenantSettings {
  return { slug: t.slug, name: t.name, timeZone: t.timeZone, currency: t.currency, allowRegistration: t.allowRegistration };
}

/** The tenant's settings, read in the caller's transaction (any module may call this). */
export async function loadTenantSettings(tx: Db, tenantId: number): Promise<TenantSettings> {
  const tenant = await repo.findTenantById(tx, tenantId);
  if (!tenant) throw new NotFoundError('Tenant', tenantId);
  return toSettings(tenant);
}

export function getCurrentTenant(db: Db, auth: Principal): Promise<TenantSettings> {
  return withTenant(db, auth, (tx) => loadTenantSettings(tx, auth.tenantId));
}

export async function updateCurrentTenant(db: Db, auth: Principal, patch: repo.TenantSettingsPatch): Promise<TenantSettings> {
  if (patch.timeZone !== undefined && !isTimeZone(patch.timeZone)) throw new BadRequestError(`body/timeZone ${patch.timeZone} is not an IANA time zone`);
  if (patch.currency !== undefined && !isCurrency(patch.currency)) throw new BadRequestError(`body/currency ${patch.currency} is not an ISO 4217 code`);
  const values = { ...patch, ...(patch.currency ? { currency: patch.currency.toUpperCase() } : {}) };
  return withTenant(db, auth, async (tx) => {
    const before = await loadTenantSettings(tx, auth.tenantId);
    const updated = await repo.updateTenant(tx, auth.tenantId, values);
    if (!updated) throw new NotFoundError('Tenant', auth.tenantId);
    const after = toSettings(updated);
    const changes = fieldChanges({ ...before }, { ...after });
    if (changes) await recordChanges(tx, auth, [{ type: 'tenant.updated', entityId: auth.tenantId, changes, data: { tenantId: auth.tenantId, slug: after.slug, name: after.name } }]);
    return after;
  });
}
