import { and, eq } from 'drizzle-orm';
import { withTenant } from '../../src/db/client.js';
import { groupCategories, groupMemberships, groups } from '../../src/db/schema/index.js';
import type { MembershipRole } from '../../src/db/schema/enums.js';
import type { TestContext } from './app.js';
import { newUser, type TestTenant, type TestUser } from './factories.js';

export interface TestGroup {
  id: number;
  name: string;
  path: string;
  parentId: number | null;
  categoryId: number;
  privacy: 'Public' | 'Private';
}

export async function categoryId(ctx: TestContext, tenant: TestTenant, name: string): Promise<number> {
  const [row] = await ctx.db.select({ id: groupCategories.id }).from(groupCategories).where(and(eq(groupCategories.tenantId, tenant.id), eq(groupCategories.name, name)));
  return row.id;
}

/** Inserts a group straight into the database (path kept as the groups module keeps it). */
export async function newGroup(
  ctx: TestContext,
  tenant: TestTenant,
  opts: { name: string; category?: string; parent?: TestGroup; privacy?: 'Public' | 'Private' },
): Promise<TestGroup> {
  const catId = await categoryId(ctx, tenant, opts.category ?? 'Fellowship');
  const privacy = opts.privacy ?? 'Public';
  return withTenant(ctx.db, tenant.id, async (tx) => {
    const [row] = await tx
      .insert(groups)
      .values({ tenantId: tenant.id, name: opts.name, categoryId: catId, parentId: opts.parent?.id ?? null, privacy, path: '/' })
      .returning({ id: groups.id });
    const path = `${opts.parent?.path ?? '/'}${row.id}/`;
    await tx.update(groups).set({ path }).where(and(eq(groups.tenantId, tenant.id), eq(groups.id, row.id)));
    return { id: row.id, name: opts.name, path, parentId: opts.parent?.id ?? null, categoryId: catId, privacy };
  });
}

export async function addMembership(ctx: TestContext, tenant: TestTenant, group: TestGroup, contactId: number, role: MembershipRole = 'Member', isActive = true) {
  const [row] = await withTenant(ctx.db, tenant.id, (tx) =>
    tx.insert(groupMemberships).values({ tenantId: tenant.id, groupId: group.id, contactId, role, isActive }).returning(),
  );
  return row;
}

/** A user with the Leader role whose contact leads `group` (and so its whole subtree). */
export async function newLeaderOf(ctx: TestContext, tenant: TestTenant, group: TestGroup, role: 'Leader' | 'Assistant' = 'Leader'): Promise<TestUser> {
  const user = await newUser(ctx, tenant, 'Leader');
  await addMembership(ctx, tenant, group, user.contactId, role);
  return user;
}

/** A user with the Member role, optionally an active member of `group`. */
export async function newMemberOf(ctx: TestContext, tenant: TestTenant, group?: TestGroup): Promise<TestUser> {
  const user = await newUser(ctx, tenant, 'Member');
  if (group) await addMembership(ctx, tenant, group, user.contactId, 'Member');
  return user;
}

/**
 * A six-level tree with a private branch:
 * church ─ network ─ location ─ zoneA ─ clusterA ─ fellowshipA1 (Public), fellowshipA2 (Private)
 *                              └ zoneB (Private) ─ clusterB ─ fellowshipB1 (Private)
 */
export async function newTree(ctx: TestContext, tenant: TestTenant) {
  const church = await newGroup(ctx, tenant, { name: 'Church', category: 'Church' });
  const network = await newGroup(ctx, tenant, { name: 'Network', category: 'Network', parent: church });
  const location = await newGroup(ctx, tenant, { name: 'Location', category: 'Location', parent: network });
  const zoneA = await newGroup(ctx, tenant, { name: 'Zone A', category: 'Zone', parent: location });
  const clusterA = await newGroup(ctx, tenant, { name: 'Cluster A', category: 'Cluster', parent: zoneA });
  const fellowshipA1 = await newGroup(ctx, tenant, { name: 'Fellowship A1', category: 'Fellowship', parent: clusterA });
  const fellowshipA2 = await newGroup(ctx, tenant, { name: 'Fellowship A2', category: 'Fellowship', parent: clusterA, privacy: 'Private' });
  const zoneB = await newGroup(ctx, tenant, { name: 'Zone B', category: 'Zone', parent: location, privacy: 'Private' });
  const clusterB = await newGroup(ctx, tenant, { name: 'Cluster B', category: 'Cluster', parent: zoneB, privacy: 'Private' });
  const fellowshipB1 = await newGroup(ctx, tenant, { name: 'Fellowship B1', category: 'Fellowship', parent: clusterB, privacy: 'Private' });
  return { church, network, location, zoneA, clusterA, fellowshipA1, fellowshipA2, zoneB, clusterB, fellowshipB1 };
}

/** A Person contact without a user account. */
export async function newContact(ctx: TestContext, tenant: TestTenant, firstName = 'Pat', lastName = 'Person'): Promise<number> {
  const { insertPersonContact } = await import('../../src/modules/contacts/contacts.repository.js');
  return withTenant(ctx.db, tenant.id, (tx) => insertPersonContact(tx, tenant.id, { firstName, lastName }));
}

/** The five actors of the visibility matrix over a newTree(). */
export async function newActors(ctx: TestContext, tenant: TestTenant, tree: Awaited<ReturnType<typeof newTree>>) {
  const admin = tenant.admin;
  const zoneLeader = await newLeaderOf(ctx, tenant, tree.zoneA);
  const fellowshipLeader = await newLeaderOf(ctx, tenant, tree.fellowshipA2);
  const member = await newMemberOf(ctx, tenant, tree.fellowshipB1);
  const loner = await newMemberOf(ctx, tenant);
  return { admin, zoneLeader, fellowshipLeader, member, loner };
}
