import { bindTenant, transaction, type Db } from '../db/client.js';
import { eventCategories, groupCategories, roles } from '../db/schema/index.js';
import { BadRequestError, ConflictError } from '../lib/errors.js';
import { hashPassword } from '../lib/passwords.js';
import { SYSTEM_ROLES } from '../lib/permissions.js';
import { isCurrency, isTimeZone } from '../lib/periods.js';
import { insertPersonContact } from '../modules/contacts/contacts.repository.js';
import { MODULES } from '../modules/index.js';
import * as repo from '../modules/tenants/tenants.repository.js';
import { findRoleIdsByName, insertUser } from '../modules/users/users.repository.js';

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
 * the system roles, an admin user linked to a Person contact, and each module's defaults (its
 * `seedTenant`). One code path for the CLI, the demo seed and the test factories; it sits above the
 * modules because it composes them.
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
    for (const module of MODULES) await module.seedTenant?.(tx, tenantId);
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
