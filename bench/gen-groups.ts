import type { Faker } from '@faker-js/faker';
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Db } from '../src/db/client.js';
import { groupCategories, groupMemberships, groups } from '../src/db/schema/index.js';
import { HIERARCHY_CATEGORIES } from '../src/provisioning/create-tenant.js';
import { insertMany, insertReturningIds } from './bulk-insert.js';
import { levelCounts } from './sizes.js';

export interface GenTree {
  /** Group ids per level (0 = Church … 5 = Fellowship). */
  levels: number[][];
  all: number[];
}

const NAMES = ['Church', 'Network', 'Campus', 'Zone', 'Cluster', 'Fellowship'];

/**
 * A 6-level tree, inserted level by level; each level's children are spread round-robin over the
 * level above, and `path` ('/<ancestor ids>/<own id>/') is filled in one UPDATE per level.
 */
export async function insertTree(tx: Db, faker: Faker, tenantId: number, total: number): Promise<GenTree> {
  const cats = await tx.select({ id: groupCategories.id, name: groupCategories.name }).from(groupCategories).where(eq(groupCategories.tenantId, tenantId));
  const counts = levelCounts(total);
  const levels: number[][] = [];
  for (let level = 0; level < 6; level++) {
    const categoryId = cats.find((c) => c.name === HIERARCHY_CATEGORIES[level].name)!.id;
    const parents = level === 0 ? [null] : levels[level - 1];
    const rows = [];
    for (let i = 0; i < counts[level]; i++) {
      const city = faker.location.city();
      rows.push({
        tenantId, categoryId,
        name: level === 0 ? `${city} Community Church` : `${city} ${NAMES[level]} ${i + 1}`,
        parentId: parents[i % parents.length],
        path: '/',
        // Private branches from the Zone level down, so visibility has something to hide.
        privacy: level >= 3 && faker.number.float() < 0.2 ? 'Private' : 'Public',
        details: level === 5 ? faker.lorem.sentence() : null,
        street: faker.location.streetAddress(), city, country: 'United States',
      });
    }
    levels.push(await insertReturningIds(tx, groups, rows));
    await fillPaths(tx, tenantId, level === 0);
  }
  return { levels, all: levels.flat() };
}

async function fillPaths(tx: Db, tenantId: number, isRoot: boolean) {
  if (isRoot) {
    await tx.update(groups).set({ path: sql`'/' || ${groups.id} || '/'` }).where(and(eq(groups.tenantId, tenantId), isNull(groups.parentId), eq(groups.path, '/')));
    return;
  }
  await tx.execute(sql`
    update ${groups} as g set path = p.path || g.id || '/'
    from ${groups} as p
    where g.tenant_id = ${tenantId} and p.tenant_id = g.tenant_id and p.id = g.parent_id and g.path = '/'`);
}

/**
 * A Leader for every group (distinct contacts), an Assistant for every third, and members spread
 * over all levels (most in fellowships) until `total` memberships exist.
 * Returns the leader contact id of each group.
 */
export async function insertMemberships(tx: Db, faker: Faker, tenantId: number, tree: GenTree, contactIds: number[], total: number) {
  const rows: Record<string, unknown>[] = [];
  const seen = new Set<string>();
  const add = (groupId: number, contactId: number, role: string, isActive = true) => {
    const key = `${groupId}:${contactId}`;
    if (seen.has(key)) return false;
    seen.add(key);
    rows.push({ tenantId, groupId, contactId, role, isActive });
    return true;
  };
  const n = contactIds.length;
  const leaders = new Map<number, number>();
  tree.all.forEach((groupId, i) => {
    leaders.set(groupId, contactIds[(i + 1) % n]);
    add(groupId, contactIds[(i + 1) % n], 'Leader');
    if (i % 3 === 0) add(groupId, contactIds[(tree.all.length + i + 1) % n], 'Assistant');
  });
  const fellowships = tree.levels[5];
  // The sample contact of the single-read scenario belongs to a few groups.
  for (const groupId of fellowships.slice(0, 3)) add(groupId, contactIds[0], 'Member');
  let attempts = 0;
  while (rows.length < total && attempts++ < total * 4) {
    const groupId = faker.number.float() < 0.85 ? faker.helpers.arrayElement(fellowships) : faker.helpers.arrayElement(tree.all);
    add(groupId, contactIds[faker.number.int({ min: 0, max: n - 1 })], 'Member', faker.number.float() < 0.95);
  }
  await insertMany(tx, groupMemberships, rows);
  return leaders;
}
