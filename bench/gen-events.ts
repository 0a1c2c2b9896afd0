import type { Faker } from '@faker-js/faker';
import { eq, sql } from 'drizzle-orm';
import type { Db } from '../src/db/client.js';
import { eventActivities, eventActivityContacts, eventCategories, eventRegistrations, events } from '../src/db/schema/index.js';
import { ACTIVITY_TYPES } from '../src/db/schema/enums.js';
import { insertMany, insertReturningIds, type Analyze, type InTenant } from './bulk-insert.js';
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
export async function insertEvents(inTenant: InTenant, analyze: Analyze, faker: Faker, tenantId: number, spec: SizeSpec, tree: GenTree, contactIds: number[]): Promise<number[]> {
  const ids = await inTenant((tx) => insertEventRows(tx, faker, tenantId, spec, tree, contactIds));
  await insertAttendance(inTenant, analyze, tenantId, spec.attendance, ids.ids, ids.starts, contactIds);
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

/**
 * The events' attendance, `total` records spread evenly over the events in order. Each event's session
 * is made first, in one statement, with the values the attendance insert trigger gives one
 * (attendance_records_fill: the event's date and group): a record that names its session skips the
 * trigger's per-row session upsert, whose statement triggers on attendance_sessions then ran for every
 * record (issue 35: 277 s for large's 200,000 records, one core busy). The records are made in SQL from
 * the events' arrays, in event order, a few thousand a statement, each statement committed on its own
 * (see InTenant).
 */
async function insertAttendance(inTenant: InTenant, analyze: Analyze, tenantId: number, total: number, eventIds: number[], starts: number[], contactIds: number[]) {
  const n = contactIds.length;
  const perEvent = Math.min(n, Math.ceil(total / eventIds.length));
  const counts = eventIds.map((_, e) => Math.max(0, Math.min(perEvent, total - e * perEvent)));
  const used = eventIds.filter((_, e) => counts[e] > 0);
  await inTenant((tx) => tx.execute(sql`insert into attendance_sessions (tenant_id, date, source, group_id, event_id)
    select e.tenant_id, e.start_date, 'Event', e.group_id, e.id from events e
    where e.tenant_id = ${tenantId} and e.id = any(${pgArray(used)}::bigint[])
    on conflict do nothing`));
  await analyze(['attendance_sessions']);
  const contacts = pgArray(contactIds);
  const eventsPerStatement = Math.max(1, Math.floor(ATTENDANCE_PER_STATEMENT / Math.max(1, perEvent)));
  for (let from = 0, k = 0; from < used.length; from += eventsPerStatement, k++) {
    // After statements 1, 2, 4, 8, …: the statistics stay within twice the rows there are. Not before the
    // first (analyzed empty, a table is planned as empty until the next ANALYZE), nor at a fixed interval (a
    // tenant that is new to the statistics is planned as a few rows, and retention_apply's lookups then
    // scan all of that tenant's first visits: seconds a commit at medium until its rows reach the sample).
    if (k > 0 && (k & (k - 1)) === 0) await analyze(['contact_first_visits', 'retention_visitors']);
    const part = eventIds.slice(from, from + eventsPerStatement).map((id, i) => ({ id, e: from + i })).filter(({ e }) => counts[e] > 0);
    await inTenant((tx) => tx.execute(sql`insert into attendance_records (tenant_id, session_id, event_id, contact_id, attended_at)
      select ${tenantId}::bigint, s.id, x.event_id, (${contacts}::bigint[])[1 + (x.first + j) % ${n}], x.attended_at
      from unnest(${pgArray(part.map((p) => p.id))}::bigint[], ${pgArray(part.map((p) => (p.e * 104_729) % n))}::bigint[],
        ${pgArray(part.map((p) => counts[p.e]))}::int[], ${pgArray(part.map((p) => new Date(starts[p.e] + 10 * 3_600_000).toISOString()))}::timestamptz[])
        with ordinality as x(event_id, first, count, attended_at, k)
      join events e on e.tenant_id = ${tenantId} and e.id = x.event_id
      join attendance_sessions s on s.tenant_id = e.tenant_id and s.source = 'Event' and s.event_id = e.id and s.date = e.start_date
      cross join generate_series(0, x.count - 1) j
      order by x.k, j`));
  }
}

/** Records per statement of the events' attendance (each statement commits on its own). */
const ATTENDANCE_PER_STATEMENT = 5_000;

/** A PostgreSQL array literal of numbers or ISO strings, for one parameter. */
const pgArray = (values: (number | string)[]) => `{${values.map((v) => (typeof v === 'number' ? v : `"${v}"`)).join(',')}}`;

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
