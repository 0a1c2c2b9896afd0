import { and, asc, count, eq, gte, ilike, isNull, lte, or, sql, type Placeholder, type SQL } from 'drizzle-orm';
import { perHandle, UNNAMED, type Db } from '../../db/client.js';
import { eventCategories, events, groups } from '../../db/schema/index.js';
import type { Page } from '../../lib/pagination.js';
import { scopeTerms, subtreeFilter, visibleGroupFilter, type GroupScope, type ScopeTerms } from '../groups/groups.visibility.js';
import type { EventItem } from './events.schemas.js';
import { containsPattern } from '../../lib/like.js';

export type EventRow = typeof events.$inferSelect;
export type NewEventValues = Omit<typeof events.$inferInsert, 'tenantId' | 'id'>;

/** A group as the event rules need it: its name for output, path and privacy for visibility. */
export interface HostGroup {
  id: number;
  name: string;
  path: string;
  privacy: string;
}

const hostGroupColumns = { id: groups.id, name: groups.name, path: groups.path, privacy: groups.privacy };

export async function findHostGroup(tx: Db, tenantId: number, groupId: number): Promise<HostGroup | undefined> {
  const [row] = await tx.select(hostGroupColumns).from(groups).where(and(eq(groups.tenantId, tenantId), eq(groups.id, groupId)));
  return row;
}

export async function categoryExists(tx: Db, tenantId: number, categoryId: number): Promise<boolean> {
  const [row] = await tx
    .select({ id: eventCategories.id })
    .from(eventCategories)
    .where(and(eq(eventCategories.tenantId, tenantId), eq(eventCategories.id, categoryId)));
  return row !== undefined;
}

export interface EventWithHost {
  event: EventRow;
  group: HostGroup | null;
  category: { id: number; name: string } | null;
}

/** The stored event with its hosting group (null when it has none) and category: access rules and output in one query. */
export async function findEventWithHost(tx: Db, tenantId: number, id: number): Promise<EventWithHost | undefined> {
  const [row] = await tx
    .select({ event: events, group: hostGroupColumns, category: { id: eventCategories.id, name: eventCategories.name } })
    .from(events)
    .leftJoin(groups, and(eq(groups.tenantId, events.tenantId), eq(groups.id, events.groupId)))
    .leftJoin(eventCategories, and(eq(eventCategories.tenantId, events.tenantId), eq(eventCategories.id, events.categoryId)))
    .where(and(eq(events.tenantId, tenantId), eq(events.id, id)));
  return row;
}

export function eventItemOf({ event, group, category }: EventWithHost): EventItem {
  return {
    id: event.id,
    name: event.name,
    description: event.description,
    startDate: event.startDate,
    endDate: event.endDate,
    group: group ? { id: group.id, name: group.name } : null,
    category,
    metaData: event.metaData,
    createdAt: event.createdAt.toISOString(),
    updatedAt: event.updatedAt.toISOString(),
  };
}

const eventColumns = {
  id: events.id,
  name: events.name,
  description: events.description,
  startDate: events.startDate,
  endDate: events.endDate,
  groupId: events.groupId,
  groupName: groups.name,
  categoryId: events.categoryId,
  categoryName: eventCategories.name,
  metaData: events.metaData,
  createdAt: events.createdAt,
  updatedAt: events.updatedAt,
};

function selectEventPage(tx: Db) {
  return tx
    .select({ ...eventColumns, total: sql<number>`count(*) over()`.mapWith(Number) })
    .from(events)
    .leftJoin(groups, and(eq(groups.tenantId, events.tenantId), eq(groups.id, events.groupId)))
    .leftJoin(eventCategories, and(eq(eventCategories.tenantId, events.tenantId), eq(eventCategories.id, events.categoryId)));
}

type EventSelectRow = Awaited<ReturnType<typeof selectEventPage>>[number];

function toEventItem(r: EventSelectRow): EventItem {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    startDate: r.startDate,
    endDate: r.endDate,
    group: r.groupId !== null && r.groupName !== null ? { id: r.groupId, name: r.groupName } : null,
    category: r.categoryId !== null && r.categoryName !== null ? { id: r.categoryId, name: r.categoryName } : null,
    metaData: r.metaData,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}

export async function findEvent(tx: Db, tenantId: number, id: number): Promise<EventItem | undefined> {
  const row = await findEventWithHost(tx, tenantId, id);
  return row ? eventItemOf(row) : undefined;
}

export interface EventFilter {
  groupId?: number;
  /** With groupId: the subtree under this path instead of the group alone. */
  subtreePath?: string;
  categoryId?: number;
  from?: string;
  to?: string;
  q?: string;
}

/** The filter's values, or placeholders in their place (listQuery); the same conditions either way. */
type FilterTerms = { [K in keyof EventFilter]: EventFilter[K] | Placeholder };

function listWhere(tenantId: number | Placeholder, scope: ScopeTerms, f: FilterTerms): SQL {
  const conditions: (SQL | undefined)[] = [
    eq(events.tenantId, tenantId),
    // Events without a group are visible to every reader; others follow their group.
    scope.all ? undefined : or(isNull(events.groupId), visibleGroupFilter(scope, groups)),
    f.subtreePath !== undefined ? subtreeFilter(groups.path, f.subtreePath as string) : f.groupId !== undefined ? eq(events.groupId, f.groupId) : undefined,
    f.categoryId !== undefined ? eq(events.categoryId, f.categoryId) : undefined,
    // Overlap with the window: starts before it ends and ends after it starts.
    f.to !== undefined ? lte(events.startDate, f.to) : undefined,
    f.from !== undefined ? gte(events.endDate, f.from) : undefined,
    f.q ? ilike(events.name, typeof f.q === 'string' ? containsPattern(f.q) : f.q) : undefined,
  ];
  return and(...conditions)!;
}

const LIST_FILTERS = ['groupId', 'categoryId', 'from', 'to', 'q'] as const;

/**
 * The list statement per shape (the scope's shape: scopeTerms; which filters are given), built once
 * per database handle (perHandle) with every value a placeholder, as the contacts and tasks lists
 * are: building the Drizzle select was a tenth of a list request's CPU (bench 8). The SQL text is
 * the one built with the values but for an explicit OFFSET. A subtree filter, and shapes past
 * MAX_LIST_SHAPES, are built per call.
 */
const listQueries = new Map<string, ReturnType<typeof listQuery>>();
const MAX_LIST_SHAPES = 256;

function listQuery(scope: ScopeTerms, given: readonly (typeof LIST_FILTERS)[number][]) {
  const f: FilterTerms = Object.fromEntries(given.map((k) => [k, sql.placeholder(k)]));
  return perHandle((tx) =>
    selectEventPage(tx)
      .where(listWhere(sql.placeholder('tenantId'), scope, f))
      .orderBy(asc(events.startDate), asc(events.id))
      .limit(sql.placeholder('limit'))
      .offset(sql.placeholder('offset'))
      .prepare(UNNAMED),
  );
}

async function listPage(tx: Db, tenantId: number, scope: GroupScope, filter: EventFilter, page: Page) {
  const given = LIST_FILTERS.filter((k) => (k === 'q' ? Boolean(filter.q) : filter[k] !== undefined));
  if (filter.subtreePath === undefined) {
    const { key: scopeKey, terms, values } = scopeTerms(scope);
    const key = `${scopeKey}|${given.join(',')}`;
    let query = listQueries.get(key);
    if (!query && listQueries.size < MAX_LIST_SHAPES) listQueries.set(key, (query = listQuery(terms, given)));
    if (query) {
      const filterValues = Object.fromEntries(given.map((k) => [k, k === 'q' ? containsPattern(filter.q!) : filter[k]]));
      return query(tx).execute({ ...values, ...filterValues, tenantId, limit: page.limit, offset: page.offset });
    }
  }
  return selectEventPage(tx)
    .where(listWhere(tenantId, scope, filter))
    .orderBy(asc(events.startDate), asc(events.id))
    .limit(page.limit)
    .offset(page.offset);
}

/** One round trip in the common case: the total rides along as a window count. */
export async function listEvents(tx: Db, tenantId: number, scope: GroupScope, filter: EventFilter, page: Page) {
  const rows = await listPage(tx, tenantId, scope, filter, page);
  if (rows.length > 0 || page.offset === 0) return { items: rows.map(toEventItem), total: rows[0]?.total ?? 0 };
  const where = listWhere(tenantId, scope, filter);
  // A page past the end still reports the true total.
  const [{ total }] = await tx
    .select({ total: count() })
    .from(events)
    .leftJoin(groups, and(eq(groups.tenantId, events.tenantId), eq(groups.id, events.groupId)))
    .where(where);
  return { items: [], total: Number(total) };
}

export async function insertEvent(tx: Db, tenantId: number, values: NewEventValues): Promise<number> {
  const [row] = await tx.insert(events).values({ ...values, tenantId }).returning({ id: events.id });
  return row.id;
}

export async function updateEvent(tx: Db, tenantId: number, id: number, values: Partial<NewEventValues>): Promise<void> {
  await tx
    .update(events)
    .set({ ...values, updatedAt: sql`now()` })
    .where(and(eq(events.tenantId, tenantId), eq(events.id, id)));
}

export async function deleteEvent(tx: Db, tenantId: number, id: number): Promise<void> {
  await tx.delete(events).where(and(eq(events.tenantId, tenantId), eq(events.id, id)));
}
