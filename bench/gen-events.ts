import type { Faker } from '@faker-js/faker';
import { eq } from 'drizzle-orm';
import type { Db } from '../src/db/client.js';
import { attendanceRecords, eventActivities, eventActivityContacts, eventCategories, eventRegistrations, events } from '../src/db/schema/index.js';
import { ACTIVITY_TYPES } from '../src/db/schema/enums.js';
import { insertMany, insertReturningIds, type InTenant } from './bulk-insert.js';
import type { SizeSpec } from './sizes.js';
import type { GenTree } from './gen-groups.js';

/** Events span two years from here; the list scenario asks for a one-month window inside it. */
export const EVENTS_FROM = Date.UTC(2025, 0, 1);
const DAY = 86_400_000;

const isoDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * Events hosted across the tree (one in ten without a group), registrations (the first event is the
 * "big" one of scenario 7) and attendance spread evenly, `spec.attendance` rows in all.
 */
export async function insertEvents(inTenant: InTenant, faker: Faker, tenantId: number, spec: SizeSpec, tree: GenTree, contactIds: number[]): Promise<number[]> {
  const ids = await inTenant((tx) => insertEventRows(tx, faker, tenantId, spec, tree, contactIds));
  await insertAttendance(inTenant, tenantId, spec.attendance, ids.ids, ids.starts, contactIds);
  await inTenant((tx) => insertActivities(tx, faker, tenantId, ids.ids, contactIds));
  return ids.ids;
}

/** The events and their registrations. */
async function insertEventRows(tx: Db, faker: Faker, tenantId: number, spec: SizeSpec, tree: GenTree, contactIds: number[]) {
  const cats = await tx.select({ id: eventCategories.id }).from(eventCategories).where(eq(eventCategories.tenantId, tenantId));
  const starts: number[] = [];
  const rows = [];
  for (let i = 0; i < spec.events; i++) {
    const start = EVENTS_FROM + faker.number.int({ min: 0, max: 729 }) * DAY;
    starts.push(start);
    const groupId = i === 0 ? tree.levels[0][0] : faker.number.float() < 0.1 ? null : faker.helpers.arrayElement(tree.all);
    rows.push({
      tenantId, name: `${faker.company.buzzNoun()} ${faker.helpers.arrayElement(['Service', 'Meeting', 'Gathering', 'Retreat', 'Outreach'])}`,
      description: faker.lorem.sentence(), startDate: isoDate(start), endDate: isoDate(start + (faker.number.float() < 0.1 ? DAY : 0)),
      groupId, categoryId: faker.helpers.arrayElement(cats).id, metaData: { seats: faker.number.int({ min: 20, max: 500 }) },
    });
  }
  const ids = await insertReturningIds(tx, events, rows);
  const n = contactIds.length;
  const registrations = [];
  for (let e = 0; e < ids.length; e++) {
    const count = Math.min(n, e === 0 ? spec.bigEventRegistrations : spec.registrationsPerEvent);
    const first = (e * 7919) % n;
    for (let j = 0; j < count; j++) registrations.push({ tenantId, eventId: ids[e], contactId: contactIds[(first + j) % n] });
  }
  await insertMany(tx, eventRegistrations, registrations);
  return { ids, starts };
}

/** Each statement of a few thousand records commits on its own (see InTenant). */
async function insertAttendance(inTenant: InTenant, tenantId: number, total: number, eventIds: number[], starts: number[], contactIds: number[]) {
  const n = contactIds.length;
  const perEvent = Math.min(n, Math.ceil(total / eventIds.length));
  let left = total;
  // Batched across events so each statement carries a few thousand rows.
  let batch: Record<string, unknown>[] = [];
  for (let e = 0; e < eventIds.length && left > 0; e++) {
    const count = Math.min(perEvent, left);
    const first = (e * 104_729) % n;
    const attendedAt = new Date(starts[e] + 10 * 3_600_000);
    for (let j = 0; j < count; j++) batch.push({ tenantId, eventId: eventIds[e], contactId: contactIds[(first + j) % n], attendedAt });
    left -= count;
    if (batch.length >= 5_000) {
      const rows = batch;
      await inTenant((tx) => insertMany(tx, attendanceRecords, rows));
      batch = [];
    }
  }
  await inTenant((tx) => insertMany(tx, attendanceRecords, batch));
}

/** Two activities with a few contacts on every tenth event (and the big one). */
async function insertActivities(tx: Db, faker: Faker, tenantId: number, eventIds: number[], contactIds: number[]) {
  const chosen = eventIds.filter((_, i) => i % 10 === 0);
  const rows = chosen.flatMap((eventId) => [0, 1].map(() => ({ tenantId, eventId, activityType: faker.helpers.arrayElement(ACTIVITY_TYPES), notes: faker.lorem.sentence() })));
  const ids = await insertReturningIds(tx, eventActivities, rows);
  const links = [];
  for (let a = 0; a < ids.length; a++) {
    for (let j = 0; j < 5; j++) links.push({ tenantId, activityId: ids[a], contactId: contactIds[(a * 31 + j) % contactIds.length] });
  }
  await insertMany(tx, eventActivityContacts, links);
}
