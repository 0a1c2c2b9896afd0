import crypto from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { withTenant } from '../../src/db/client.js';
import { roles } from '../../src/db/schema/index.js';
import type { Permission } from '../../src/lib/permissions.js';
import { insertPersonContact } from '../../src/modules/contacts/contacts.repository.js';
import { createTenant } from '../../src/provisioning/create-tenant.js';
import { insertUser } from '../../src/modules/users/users.repository.js';
import type { TestContext } from './app.js';

export const PASSWORD = 'correct horse battery';

// One precomputed hash for factory users: argon2 per user would dominate the suite's time.
let passwordHash: Promise<string> | undefined;
async function factoryHash() {
  const { hashPassword } = await import('../../src/lib/passwords.js');
  passwordHash ??= hashPassword(PASSWORD);
  return passwordHash;
}

export interface TestTenant {
  id: number;
  slug: string;
  admin: TestUser;
}

export interface TestUser {
  id: number;
  tenantId: number;
  username: string;
  contactId: number;
  token: string;
}

/** An access token as login would issue it (a fresh session id). */
export function tokenFor(ctx: TestContext, tenantId: number, userId: number): string {
  return ctx.app.jwt.sign({ sub: String(userId), tid: tenantId, sid: crypto.randomUUID(), typ: 'access' });
}

/** A seeded tenant (categories, roles, admin) exactly as the CLI creates one. */
export async function newTenant(ctx: TestContext, opts: { allowRegistration?: boolean } = {}): Promise<TestTenant> {
  const slug = `t-${crypto.randomBytes(5).toString('hex')}`;
  const { tenant, admin } = await createTenant(ctx.db, {
    slug, name: `Church ${slug}`, adminUsername: 'admin', adminPassword: PASSWORD, adminEmail: `admin@${slug}.example.org`, ...opts,
  });
  return { id: tenant.id, slug, admin: { id: admin.id, tenantId: tenant.id, username: 'admin', contactId: admin.contactId, token: tokenFor(ctx, tenant.id, admin.id) } };
}

/**
 * A user holding exactly the given permissions (through a role made for it), linked to a new
 * Person contact — or to `contactId` when given.
 */
export async function newUser(
  ctx: TestContext,
  tenant: TestTenant,
  permissions: Permission[] | 'Admin' | 'Leader' | 'Member' | 'Treasurer' | 'Check-in',
  opts: { username?: string; email?: string; contactId?: number; firstName?: string; lastName?: string } = {},
): Promise<TestUser> {
  const hash = await factoryHash();
  const username = opts.username ?? `user-${crypto.randomBytes(4).toString('hex')}`;
  const user = await withTenant(ctx.db, tenant.id, async (tx) => {
    let roleId: number;
    if (typeof permissions === 'string') {
      [{ id: roleId }] = await tx.select({ id: roles.id }).from(roles).where(and(eq(roles.tenantId, tenant.id), eq(roles.name, permissions)));
    } else {
      [{ id: roleId }] = await tx.insert(roles).values({ tenantId: tenant.id, name: `role-${username}`, permissions }).returning({ id: roles.id });
    }
    const contactId = opts.contactId ?? (await insertPersonContact(tx, tenant.id, { firstName: opts.firstName ?? 'Test', lastName: opts.lastName ?? username, email: opts.email }));
    return insertUser(tx, tenant.id, { username, email: opts.email ?? null, passwordHash: hash, contactId, roleIds: [roleId] });
  });
  return { id: user.id, tenantId: tenant.id, username, contactId: user.contactId, token: tokenFor(ctx, tenant.id, user.id) };
}
