import { and, count, desc, eq, isNotNull, isNull, sql, type SQL } from 'drizzle-orm';
import { perHandle, preparedText, UNNAMED, type Db, type LeadingStatement } from '../../db/client.js';
import { notificationPreferences as prefs, notifications as n } from '../../db/schema/index.js';
import type { Page } from '../../lib/pagination.js';
import type { NotificationItem } from './notifications.schemas.js';

const columns = { id: n.id, type: n.type, title: n.title, body: n.body, entityType: n.entityType, entityId: n.entityId, createdAt: n.createdAt, readAt: n.readAt };
type Row = { id: number; type: string; title: string; body: string; entityType: string | null; entityId: number | null; createdAt: Date; readAt: Date | null };

function toItem(r: Row): NotificationItem {
  return {
    id: r.id,
    type: r.type,
    title: r.title,
    body: r.body,
    link: r.entityType && r.entityId !== null ? { entityType: r.entityType, entityId: r.entityId } : null,
    createdAt: r.createdAt.toISOString(),
    readAt: r.readAt ? r.readAt.toISOString() : null,
  };
}

export async function pageNotifications(tx: Db, tenantId: number, userId: number, unread: boolean | undefined, page: Page) {
  const where: SQL[] = [eq(n.tenantId, tenantId), eq(n.userId, userId)];
  if (unread === true) where.push(isNull(n.readAt));
  if (unread === false) where.push(isNotNull(n.readAt));
  const rows = await tx.select(columns).from(n).where(and(...where)).orderBy(desc(n.id)).limit(page.limit).offset(page.offset);
  const [{ total }] = await tx.select({ total: count() }).from(n).where(and(...where));
  return { items: rows.map(toItem), total: Number(total) };
}

const unreadCountSelect = (tx: Db) =>
  tx
    .select({ total: count() })
    .from(n)
    .where(and(eq(n.tenantId, sql.placeholder('tenantId')), eq(n.userId, sql.placeholder('userId')), isNull(n.readAt)));

/** Built once per database handle (perHandle): the count is polled often and its SQL costs less than building it. */
const unreadCountQuery = perHandle((tx) => unreadCountSelect(tx).prepare(UNNAMED));

/**
 * The same count as a read ahead (args: tenant id, user id): on PostgreSQL it runs in the principal
 * check's message, with BEGIN and COMMIT, so the polled count costs one round trip (AheadOptions in
 * src/db/client.ts). Its one row holds the count.
 */
export function unreadCountAhead(db: Db): LeadingStatement {
  return { name: 'parish_unread_count', types: ['bigint', 'bigint'], sql: preparedText(unreadCountSelect(db).toSQL(), ['tenantId', 'userId']) };
}

/** Served by the partial index notifications_unread_idx. */
export async function unreadCount(tx: Db, tenantId: number, userId: number): Promise<number> {
  const [{ total }] = await unreadCountQuery(tx).execute({ tenantId, userId });
  return Number(total);
}

/** Marks one of the user's notifications read (keeping the first read time); undefined when not theirs. */
export async function markRead(tx: Db, tenantId: number, userId: number, id: number): Promise<NotificationItem | undefined> {
  const [row] = await tx
    .update(n)
    .set({ readAt: sql`coalesce(${n.readAt}, now())` })
    .where(and(eq(n.tenantId, tenantId), eq(n.userId, userId), eq(n.id, id)))
    .returning(columns);
  return row && toItem(row);
}

export async function markAllRead(tx: Db, tenantId: number, userId: number): Promise<number> {
  const rows = await tx
    .update(n)
    .set({ readAt: sql`now()` })
    .where(and(eq(n.tenantId, tenantId), eq(n.userId, userId), isNull(n.readAt)))
    .returning({ id: n.id });
  return rows.length;
}

export async function findPreferences(tx: Db, tenantId: number, userId: number) {
  const [row] = await tx.select({ email: prefs.email, inApp: prefs.inApp }).from(prefs).where(and(eq(prefs.tenantId, tenantId), eq(prefs.userId, userId)));
  return row;
}

export async function savePreferences(tx: Db, tenantId: number, userId: number, email: Record<string, boolean>, inApp: Record<string, boolean>) {
  await tx
    .insert(prefs)
    .values({ tenantId, userId, email, inApp })
    .onConflictDoUpdate({
      target: [prefs.tenantId, prefs.userId],
      set: { email: sql`${prefs.email} || excluded.email`, inApp: sql`${prefs.inApp} || excluded.in_app`, updatedAt: sql`now()` },
    });
}

export interface NewNotification {
  userId: number;
  type: string;
  title: string;
  body: string;
  entityType: string | null;
  entityId: number | null;
  changeId: number | null;
}

export async function insertNotifications(tx: Db, tenantId: number, rows: NewNotification[]): Promise<void> {
  if (rows.length) await tx.insert(n).values(rows.map((r) => ({ tenantId, ...r })));
}
