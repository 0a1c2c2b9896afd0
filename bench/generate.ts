import { Faker, en } from '@faker-js/faker';
import { and, eq, sql } from 'drizzle-orm';
import { withTenant, type Db } from '../src/db/client.js';
import { roles, userRoles, users } from '../src/db/schema/index.js';
import { hashPassword } from '../src/lib/passwords.js';
import { createTenant } from '../src/provisioning/create-tenant.js';
import type { Analyze, InTenant } from './bulk-insert.js';
import { fakeContact, insertContacts, type GenContact } from './gen-contacts.js';
import { EVENTS_FROM, insertEvents } from './gen-events.js';
import { insertMemberships, insertTree } from './gen-groups.js';
import { insertHouseholds } from './gen-households.js';
import { insertChanges, insertFollowUp, insertGiving, insertMeetings, modulesDataset, type ModulesDataset } from './gen-modules.js';
import { SIZES, type SizeName, type SizeSpec } from './sizes.js';

export const BENCH_PASSWORD = 'bench-password-2026';
/** Contacts with every nested array filled (the first one is read by scenario 3). */
const FULL_CONTACTS = 10;

/** What the scenarios need to know about the main tenant. */
export interface Dataset extends ModulesDataset {
  size: SizeName;
  /** The tenants of the small size loaded beside the main one (a report on a reused database says these, not --other-tenants). */
  otherTenants: number;
  tenantId: number;
  slug: string;
  adminUsername: string;
  zoneLeaderUsername: string;
  password: string;
  sampleContactId: number;
  networkId: number;
  zoneId: number;
  /** A Cluster: has children and members (scenario 6). */
  clusterId: number;
  bigEventId: number;
  eventIds: number[];
  contactIds: { first: number; last: number };
  nameFragment: string;
  phoneFragment: string;
  eventWindow: { from: string; to: string };
  /** The start of a common last name, as a check-in kiosk's family lookup is typed (issue 30's h1). */
  lookupPrefix: string;
}

export interface GenerateOptions {
  size: SizeName;
  seed?: number;
  /** Other tenants in the same database (20 in the benchmark), each of `otherSize`. */
  otherTenants?: number;
  otherSize?: SizeName;
  slugPrefix?: string;
  log?: (message: string) => void;
}

function newFaker(seed: number): Faker {
  const faker = new Faker({ locale: [en] });
  faker.seed(seed);
  faker.setDefaultRefDate('2026-01-01T00:00:00.000Z');
  return faker;
}

/** Loads the main tenant and the other tenants; deterministic for a given seed. */
export async function generate(db: Db, opts: GenerateOptions): Promise<Dataset> {
  const log = opts.log ?? (() => {});
  const seed = opts.seed ?? 2026;
  const prefix = opts.slugPrefix ?? 'bench';
  const started = Date.now();
  for (let k = 0; k < (opts.otherTenants ?? 0); k++) {
    await generateTenant(db, `${prefix}-other-${k + 1}`, SIZES[opts.otherSize ?? 'small'], seed + k + 1);
  }
  log(`other tenants: ${opts.otherTenants ?? 0} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const mainStarted = Date.now();
  const dataset = await generateTenant(db, `${prefix}-${opts.size}`, SIZES[opts.size], seed, log);
  log(`main tenant (${opts.size}) in ${((Date.now() - mainStarted) / 1000).toFixed(1)} s`);
  // VACUUM too: index-only scans (counts) need the visibility map a live database's autovacuum keeps.
  await db.execute(sql`vacuum analyze`);
  log(`total ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return { ...dataset, size: opts.size, otherTenants: opts.otherTenants ?? 0 };
}

async function generateTenant(db: Db, slug: string, spec: SizeSpec, seed: number, log: (m: string) => void = () => {}): Promise<Omit<Dataset, 'size' | 'otherTenants'>> {
  const faker = newFaker(seed);
  const { tenant, admin } = await createTenant(db, { slug, name: `${faker.location.city()} Church`, adminUsername: 'admin', adminPassword: BENCH_PASSWORD });
  const tenantId = tenant.id;
  let t = Date.now();
  const step = (what: string) => {
    log(`  ${what}: ${((Date.now() - t) / 1000).toFixed(1)} s`);
    t = Date.now();
  };
  const list: GenContact[] = [];
  for (let i = 0; i < spec.contacts; i++) list.push(fakeContact(faker, i, FULL_CONTACTS));
  step(`faked ${spec.contacts} contacts`);
  // Part by part, each in a transaction of its own (InTenant): the rollups the statement triggers queue
  // (counters, first visits, giving periods, retention) are applied at each commit, instead of piling
  // up in one transaction whose commit then applied them all (huge's load, issue 35).
  const inTenant: InTenant = (fn) => withTenant(db, tenantId, fn);
  const analyze: Analyze = async (tables) => {
    await db.execute(sql.raw(`analyze ${tables.join(', ')}`));
  };
  const contactIds = await inTenant((tx) => insertContacts(tx, faker, tenantId, list, FULL_CONTACTS));
  step('contacts');
  const tree = await inTenant((tx) => insertTree(tx, faker, tenantId, spec.groups));
  step(`${tree.all.length} groups`);
  const leaders = await inTenant((tx) => insertMemberships(tx, faker, tenantId, tree, contactIds, spec.memberships));
  step('memberships');
  const zoneId = tree.levels[3][0];
  const zoneLeaderUsername = 'zone.leader';
  await inTenant((tx) => insertLeaderUser(tx, tenantId, zoneLeaderUsername, leaders.get(zoneId)!));
  // Two lanes at once, each a connection of its own (one core each: every part is one backend's work):
  // attendance and follow-up beside households, giving and changes. No table one lane writes is
  // written or read by the other's triggers, so the data is the same as in one lane.
  const lane = (name: string) => {
    let at = Date.now();
    return (what: string) => {
      log(`  [${name}] ${what}: ${((Date.now() - at) / 1000).toFixed(1)} s`);
      at = Date.now();
    };
  };
  const [{ eventIds, pipelineId }, auditContactId] = await Promise.all([
    (async () => {
      const done = lane('attendance');
      const eventIds = await insertEvents(inTenant, analyze, faker, tenantId, spec, tree, contactIds);
      done('events, registrations, attendance');
      await insertMeetings(inTenant, analyze, tenantId, tree);
      done('attendance sessions and records');
      const pipelineId = await insertFollowUp(inTenant, tenantId, spec, tree, contactIds, admin.id);
      done('tasks, pipeline cards');
      return { eventIds, pipelineId };
    })(),
    (async () => {
      const done = lane('giving');
      const made = await inTenant((tx) => insertHouseholds(tx, tenantId, spec.householdShare));
      done(`${made.households} households of ${made.members} people`);
      await insertGiving(inTenant, analyze, tenantId, spec, contactIds, admin.id);
      done('giving');
      const auditContactId = await insertChanges(inTenant, tenantId, spec, contactIds, admin.id);
      done('changes');
      return auditContactId;
    })(),
  ]);
  step('both lanes');
  const modules = await modulesDataset(inTenant, tenantId, contactIds, pipelineId, auditContactId);
  const probe = list[Math.min(100, list.length - 1)];
  const phone = list.find((c, i) => i >= 100 && c.phones.length)?.phones[0] ?? '5551234';
  const digits = phone.replace(/\D/g, '');
  const lookupName = (list.slice(Math.min(100, list.length - 1)).find((c) => c.person) ?? list.find((c) => c.person))?.person?.lastName ?? 'Smith';
  return {
    ...modules, tenantId, slug, adminUsername: 'admin', zoneLeaderUsername, password: BENCH_PASSWORD,
    sampleContactId: contactIds[0], networkId: tree.levels[1][0], zoneId, clusterId: tree.levels[4][0],
    bigEventId: eventIds[0], eventIds, contactIds: { first: contactIds[0], last: contactIds[contactIds.length - 1] },
    nameFragment: (probe.person?.lastName ?? probe.company!.name).slice(0, 4).toLowerCase(),
    phoneFragment: digits.slice(Math.max(0, digits.length - 7), digits.length - 2),
    eventWindow: { from: isoDate(EVENTS_FROM + 180 * 86_400_000), to: isoDate(EVENTS_FROM + 210 * 86_400_000) },
    lookupPrefix: lookupName.replace(/\P{L}/gu, '').slice(0, 3).toLowerCase(),
  };
}

const isoDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);

let leaderHash: Promise<string> | undefined;

/** A user with the Leader role whose contact leads the given group (scenario 4 logs in as this user). */
async function insertLeaderUser(tx: Db, tenantId: number, username: string, contactId: number) {
  leaderHash ??= hashPassword(BENCH_PASSWORD);
  const [role] = await tx.select({ id: roles.id }).from(roles).where(and(eq(roles.tenantId, tenantId), eq(roles.name, 'Leader')));
  const [user] = await tx.insert(users).values({ tenantId, username, passwordHash: await leaderHash, contactId }).returning({ id: users.id });
  await tx.insert(userRoles).values({ tenantId, userId: user.id, roleId: role.id });
}
