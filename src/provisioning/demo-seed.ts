import crypto from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { withholdQueuedChanges } from '../changes/recorder.js';
import { withTenant, type Db } from '../db/client.js';
import { groupCategories, groupMemberships, groups } from '../db/schema/index.js';
import { addDays, todayIn } from '../lib/periods.js';
import { ALL_PERMISSIONS } from '../lib/permissions.js';
import { insertContact, insertPersonContact } from '../modules/contacts/contacts.repository.js';
import { createHouseholdsService } from '../modules/households/households.service.js';
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

// The kids' check-in rooms (Public groups of the campus, so a kiosk reaches the children in them) and
// the Otieno children in them: [room, first name, age in years on the day of the seed].
const KIDS_ROOMS = ['Nursery (0–3)', 'Preschool (4–5)', 'Kids Church (6–11)'];
const CHILDREN: [string, string, number][] = [
  ['Nursery (0–3)', 'Amani', 2],
  ['Preschool (4–5)', 'Baraka', 5],
  ['Kids Church (6–11)', 'Zawadi', 8],
];

/**
 * The demo tenant of a first start: a small hierarchy, a few people, leaders and members, the
 * modules' demo data, and households (see seedHouseholds).
 */
export async function seedDemoTenant(db: Db, password = crypto.randomBytes(12).toString('base64url')) {
  const { tenant, admin } = await createTenant(db, { slug: DEMO_SLUG, name: 'Grace Demo Church', adminUsername: 'admin', adminPassword: password });
  const kids: number[] = [];
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
    // The kids' rooms (a custom category) under the campus, and a family's children in them.
    const [kidsCategory] = await tx
      .insert(groupCategories)
      .values({ tenantId: tenant.id, name: 'Kids Room', description: "A children's check-in room", purpose: 'Check-in' })
      .returning({ id: groupCategories.id });
    const campus = byName.get('Downtown Campus')!;
    for (const name of KIDS_ROOMS) {
      const [row] = await tx.insert(groups).values({ tenantId: tenant.id, name, categoryId: kidsCategory.id, parentId: campus.id, privacy: 'Public', path: '/' }).returning({ id: groups.id });
      const path = `${campus.path}${row.id}/`;
      await tx.update(groups).set({ path }).where(and(eq(groups.tenantId, tenant.id), eq(groups.id, row.id)));
      byName.set(name, { id: row.id, path });
    }
    const today = todayIn('UTC');
    for (const [room, firstName, age] of CHILDREN) {
      // Born 40 days after the date `age` years ago: `age` whole years old today.
      const dateOfBirth = addDays(`${Number(today.slice(0, 4)) - age}${today.slice(4)}`.replace(/-02-29$/, '-02-28'), -40);
      const id = await insertContact(tx, tenant.id, { category: 'Person', person: { firstName, lastName: 'Otieno', dateOfBirth } });
      kids.push(id);
      await tx.insert(groupMemberships).values(member(room, id, 'Member'));
    }
    const groupIds = new Map([...byName].map(([name, g]) => [name, g.id]));
    return { tenantId: tenant.id, adminUserId: admin.id, groups: groupIds, people, morePeople };
  });
  for (const module of MODULES) await module.seedDemo?.(db, demo);
  await seedHouseholds(db, demo, admin, kids);
  // The demo's weeks are history, written at once: its first visits must not put long-time members on
  // the New people board, nor its tasks notify anyone now (the seeders place the board's cards).
  await withTenant(db, tenant.id, (tx) => withholdQueuedChanges(tx, tenant.id));
  return { tenant, admin, password };
}

/**
 * The demo's households, through the households service (its changes recorded): two couples who
 * give together (both spouses are among the demo's donors, so each household statement has both
 * givers' gifts), and the Otieno family, whose children (dates of birth, in the kids' rooms) a
 * check-in kiosk finds by "Oti".
 */
async function seedHouseholds(db: Db, demo: DemoContext, admin: { id: number; contactId: number }, kids: number[]) {
  const auth = { userId: admin.id, tenantId: demo.tenantId, contactId: admin.contactId, username: 'admin', sessionId: 'demo-seed', permissions: new Set(ALL_PERMISSIONS) };
  const households = createHouseholdsService(db);
  const [peter, mary, john, lydia, paul] = demo.morePeople;
  // The spouse belongs to no private group: a kiosk does not reach people known only through one (Hillside).
  const deborah = demo.morePeople[11];
  await households.create(auth, {
    givingTogether: true, address: { street: '14 Riverside Drive', city: 'Nairobi', country: 'KE' },
    members: [{ contactId: john, role: 'Head' }, { contactId: mary, role: 'Spouse' }],
  });
  await households.create(auth, {
    givingTogether: true, address: { street: 'Plot 7, Ntinda Road', city: 'Kampala', country: 'UG' },
    members: [{ contactId: paul, role: 'Head' }, { contactId: lydia, role: 'Spouse' }],
  });
  await households.create(auth, {
    address: { street: '3 Mombasa Road', city: 'Nairobi', country: 'KE' },
    members: [{ contactId: peter, role: 'Head' }, { contactId: deborah, role: 'Spouse' }, ...kids.map((contactId) => ({ contactId, role: 'Child' as const }))],
  });
}
