import { and, asc, count, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { companies, eventActivities as a, eventActivityContacts as ac, persons } from '../../db/schema/index.js';
import type { ACTIVITY_TYPES } from '../../db/schema/enums.js';
import type { Page } from '../../lib/pagination.js';
import { companyJoin, contactRefColumns, idArray, personJoin } from './contact-refs.repository.js';
import type { ActivityItem, ContactRef } from './events.schemas.js';

const activityColumns = { id: a.id, eventId: a.eventId, activityType: a.activityType, notes: a.notes, createdAt: a.createdAt };
type ActivityRow = typeof a.$inferSelect;
type ActivityType = (typeof ACTIVITY_TYPES)[number];

/** Attaches each activity's contacts, loaded for all of them in one query. */
async function withContacts(tx: Db, tenantId: number, rows: Omit<ActivityRow, 'tenantId'>[]): Promise<ActivityItem[]> {
  if (rows.length === 0) return [];
  const links = await tx
    .select({ activityId: ac.activityId, id: ac.contactId, ...contactRefColumns })
    .from(ac)
    .leftJoin(persons, personJoin(tenantId, ac.contactId))
    .leftJoin(companies, companyJoin(tenantId, ac.contactId))
    .where(and(eq(ac.tenantId, tenantId), inArray(ac.activityId, rows.map((r) => r.id))))
    .orderBy(asc(ac.activityId), asc(ac.contactId));
  const byActivity = new Map<number, ContactRef[]>();
  for (const { activityId, ...contact } of links) {
    const list = byActivity.get(activityId) ?? [];
    list.push(contact);
    byActivity.set(activityId, list);
  }
  return rows.map((r) => {
    const contacts = byActivity.get(r.id) ?? [];
    return { ...r, contactIds: contacts.map((c) => c.id), contacts, createdAt: r.createdAt.toISOString() };
  });
}

const ofEvent = (tenantId: number, eventId: number) => and(eq(a.tenantId, tenantId), eq(a.eventId, eventId));

export async function pageActivities(tx: Db, tenantId: number, eventId: number, page: Page) {
  const rows = await tx.select(activityColumns).from(a).where(ofEvent(tenantId, eventId)).orderBy(asc(a.id)).limit(page.limit).offset(page.offset);
  const [{ total }] = await tx.select({ total: count() }).from(a).where(ofEvent(tenantId, eventId));
  return { items: await withContacts(tx, tenantId, rows), total: Number(total) };
}

export async function insertActivity(
  tx: Db,
  tenantId: number,
  eventId: number,
  input: { activityType: ActivityType; notes: string | null; contactIds: readonly number[] },
): Promise<ActivityItem> {
  const [row] = await tx.insert(a).values({ tenantId, eventId, activityType: input.activityType, notes: input.notes }).returning(activityColumns);
  await tx.execute(sql`INSERT INTO event_activity_contacts (tenant_id, activity_id, contact_id)
    SELECT ${tenantId}::bigint, ${row.id}::bigint, c FROM unnest(${idArray(input.contactIds)}) AS c`);
  return (await withContacts(tx, tenantId, [row]))[0];
}
