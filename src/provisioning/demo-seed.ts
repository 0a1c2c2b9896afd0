import crypto from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { withTenant, type Db } from '../db/client.js';
import { groupCategories, groupMemberships, groups } from '../db/schema/index.js';
import { insertPersonContact } from '../modules/contacts/contacts.repository.js';
import { MODULES } from '../modules/index.js';
import type { DemoContext } from '../modules/module.js';
import { createTenant } from './create-tenant.js';

export const DEMO_SLUG = 'demo';

// [name, category, parent name, privacy]
const TREE: [string, string, string | null, 'Public' | 'Private'][] = [
  ['Grace Church', 'Church', null, 'Public'],
  ['North Network', 'Network', 'Grace Church', 'Public'],
  ['Downtown Campus', 'Location', 'North Network', 'Public'],
  ['Zone A', 'Zone', 'Downtown Campus', 'Public'],
  ['Cluster A1', 'Cluster', 'Zone A', 'Public'],
  ['Riverside Fellowship', 'Fellowship', 'Cluster A1', 'Public'],
  ['Hillside Fellowship', 'Fellowship', 'Cluster A1', 'Private'],
];

const PEOPLE: [string, string, string][] = [
  ['Grace', 'Okafor', 'grace.okafor@example.org'],
  ['Samuel', 'Mensah', 'samuel.mensah@example.org'],
  ['Ruth', 'Kamau', 'ruth.kamau@example.org'],
  ['Daniel', 'Achieng', 'daniel.achieng@example.org'],
  ['Esther', 'Nakato', 'esther.nakato@example.org'],
  ['Joseph', 'Banda', 'joseph.banda@example.org'],
];

// Members and guests for the modules' demo data (attendance, follow-up, giving); the first 8 join fellowships.
const MORE_PEOPLE: [string, string][] = [
  ['Peter', 'Otieno'], ['Mary', 'Wanjiru'], ['John', 'Mwangi'], ['Lydia', 'Nambi'], ['Paul', 'Ssempala'],
  ['Martha', 'Akinyi'], ['David', 'Kato'], ['Sarah', 'Atieno'], ['James', 'Omondi'], ['Hannah', 'Nalwoga'],
  ['Timothy', 'Mugisha'], ['Deborah', 'Chebet'],
];

/** The demo tenant of a first start: a small hierarchy, a few people, leaders and members. */
export async function seedDemoTenant(db: Db, password = crypto.randomBytes(12).toString('base64url')) {
  const { tenant, admin } = await createTenant(db, { slug: DEMO_SLUG, name: 'Grace Demo Church', adminUsername: 'admin', adminPassword: password });
  const demo = await withTenant(db, tenant.id, async (tx): Promise<DemoContext> => {
    const categories = await tx.select().from(groupCategories).where(eq(groupCategories.tenantId, tenant.id));
    const categoryId = (name: string) => categories.find((c) => c.name === name)!.id;
    const byName = new Map<string, { id: number; path: string }>();
    for (const [name, category, parentName, privacy] of TREE) {
      const parent = parentName ? byName.get(parentName)! : undefined;
      const [row] = await tx
        .insert(groups)
        .values({ tenantId: tenant.id, name, categoryId: categoryId(category), parentId: parent?.id ?? null, privacy, path: '/' })
        .returning({ id: groups.id });
      const path = `${parent?.path ?? '/'}${row.id}/`;
      await tx.update(groups).set({ path }).where(and(eq(groups.tenantId, tenant.id), eq(groups.id, row.id)));
      byName.set(name, { id: row.id, path });
    }
    const people = [];
    for (const [firstName, lastName, email] of PEOPLE) people.push(await insertPersonContact(tx, tenant.id, { firstName, lastName, email }));
    const member = (groupName: string, contactId: number, role: 'Leader' | 'Assistant' | 'Member') => ({
      tenantId: tenant.id, groupId: byName.get(groupName)!.id, contactId, role,
    });
    await tx.insert(groupMemberships).values([
      member('Zone A', people[0], 'Leader'),
      member('Riverside Fellowship', people[1], 'Leader'),
      member('Riverside Fellowship', people[2], 'Assistant'),
      member('Riverside Fellowship', people[3], 'Member'),
      member('Hillside Fellowship', people[4], 'Leader'),
      member('Hillside Fellowship', people[5], 'Member'),
    ]);
    const morePeople = [];
    for (const [firstName, lastName] of MORE_PEOPLE) morePeople.push(await insertPersonContact(tx, tenant.id, { firstName, lastName }));
    await tx.insert(groupMemberships).values(morePeople.slice(0, 8).map((id, i) => member(i % 2 ? 'Hillside Fellowship' : 'Riverside Fellowship', id, 'Member')));
    const groupIds = new Map([...byName].map(([name, g]) => [name, g.id]));
    return { tenantId: tenant.id, adminUserId: admin.id, groups: groupIds, people, morePeople };
  });
  for (const module of MODULES) await module.seedDemo?.(db, demo);
  return { tenant, admin, password };
}
