import { and, asc, desc, eq, gte, inArray, isNotNull, isNull, lte, not, or, sql, type Placeholder, type SQL } from 'drizzle-orm';
import { alias, type PgSelect } from 'drizzle-orm/pg-core';
import { perHandle, UNNAMED, type Db } from '../../db/client.js';
import {
  changes, companies, contactRequests, contacts, groups, persons, pipelineCards, taskComments, tasks, users,
  type TaskPriority, type TaskStatus,
} from '../../db/schema/index.js';
import type { Page } from '../../lib/pagination.js';
import { containsPattern } from '../../lib/like.js';
import type { Principal } from '../../plugins/auth.js';
import { subtreeFilter, visibleGroupFilter, type GroupScope } from '../groups/groups.visibility.js';
import type { CommentItem, ContactRef, HistoryItem, TaskItem, TaskSort } from './tasks.schemas.js';

export type TaskRow = typeof tasks.$inferSelect;
export type NewTaskValues = Omit<typeof tasks.$inferInsert, 'tenantId' | 'id'>;

const assignee = alias(users, 'task_assignee');
const creator = alias(users, 'task_creator');

/** `{firstName, lastName}`: a company's name stands in as firstName. */
export const contactNameColumns = {
  firstName: sql<string>`coalesce(${persons.firstName}, ${companies.name}, '')`,
  lastName: sql<string>`coalesce(${persons.lastName}, '')`,
};

/** SQL: the task is overdue against `today` (the tenant's date, a parameter: the partial index serves it). */
export function overdueSql(today: string | SQL): SQL {
  return sql`(${tasks.dueDate} < ${today}::date and ${tasks.status} in ('Open', 'InProgress'))`;
}

/**
 * Who sees a task (modules-contract §2): always its creator and assignee; with tasks:read, tasks of
 * visible groups (without a group: hierarchy:all), a confidential one only with care:read.
 * Expects `groups` joined on the task's group. `userId` may be a placeholder for the caller's id.
 */
export function taskVisibility(auth: Principal, scope: GroupScope, userId: number | Placeholder = auth.userId): SQL | undefined {
  const own = or(eq(tasks.assigneeUserId, userId), eq(tasks.createdByUserId, userId))!;
  if (!auth.permissions.has('tasks:read')) return own;
  const care = auth.permissions.has('care:read');
  if (scope.all && care) return undefined;
  const byGroup = scope.all ? undefined : and(isNotNull(tasks.groupId), visibleGroupFilter(scope, groups));
  const notConfidential = care ? undefined : not(tasks.confidential);
  return or(own, and(byGroup, notConfidential) ?? sql`true`);
}

function selectTasks(tx: Db, tenantId: number, today: string | SQL) {
  return tx
    .select({
      task: tasks,
      overdue: sql<boolean>`${overdueSql(today)}`,
      assigneeName: assignee.username,
      creatorName: creator.username,
      ...contactNameColumns,
      groupName: groups.name,
      requestType: contactRequests.type,
      cardPipelineId: pipelineCards.pipelineId,
      cardStepId: pipelineCards.stepId,
    })
    .from(tasks)
    .leftJoin(assignee, and(eq(assignee.tenantId, tenantId), eq(assignee.id, tasks.assigneeUserId)))
    .leftJoin(creator, and(eq(creator.tenantId, tenantId), eq(creator.id, tasks.createdByUserId)))
    .leftJoin(persons, and(eq(persons.tenantId, tenantId), eq(persons.contactId, tasks.contactId)))
    .leftJoin(companies, and(eq(companies.tenantId, tenantId), eq(companies.contactId, tasks.contactId)))
    .leftJoin(groups, and(eq(groups.tenantId, tenantId), eq(groups.id, tasks.groupId)))
    .leftJoin(contactRequests, and(eq(contactRequests.tenantId, tenantId), eq(contactRequests.id, tasks.requestId)))
    .leftJoin(pipelineCards, and(eq(pipelineCards.tenantId, tenantId), eq(pipelineCards.id, tasks.cardId)));
}

type SelectRow = Awaited<ReturnType<typeof selectTasks>>[number];

/**
 * selectTasks for a page (≤ 100 rows): the same row shape, but every name comes from a scalar
 * subquery on the task's row (one probe per row) instead of a join. Planning selectTasks' eight-table
 * join cost more than running it; this statement plans `tasks` alone.
 */
function selectTaskPage<X extends Record<string, SQL.Aliased | SQL>>(tx: Db, tenantId: number | Placeholder, today: string | SQL, extra: X) {
  const t = tenantId;
  // The outer columns are written qualified (tasks.x): Drizzle leaves a one-table query's columns
  // unqualified, and inside a subquery on persons "contact_id" would name the person's own column.
  return tx
    .select({
      ...extra,
      task: tasks,
      overdue: sql<boolean>`${overdueSql(today)}`,
      assigneeName: sql<string | null>`(select u.username from users u where u.tenant_id = ${t} and u.id = tasks.assignee_user_id)`,
      creatorName: sql<string | null>`(select u.username from users u where u.tenant_id = ${t} and u.id = tasks.created_by_user_id)`,
      firstName: sql<string>`coalesce((select p.first_name from persons p where p.tenant_id = ${t} and p.contact_id = tasks.contact_id),
        (select c.name from companies c where c.tenant_id = ${t} and c.contact_id = tasks.contact_id), '')`,
      lastName: sql<string>`coalesce((select p.last_name from persons p where p.tenant_id = ${t} and p.contact_id = tasks.contact_id), '')`,
      groupName: sql<string | null>`(select g.name from groups g where g.tenant_id = ${t} and g.id = tasks.group_id)`,
      requestType: sql<SelectRow['requestType']>`(select q.type from contact_requests q where q.tenant_id = ${t} and q.id = tasks.request_id)`,
      cardPipelineId: sql<number | null>`(select k.pipeline_id from pipeline_cards k where k.tenant_id = ${t} and k.id = tasks.card_id)`.mapWith(Number),
      cardStepId: sql<number | null>`(select k.step_id from pipeline_cards k where k.tenant_id = ${t} and k.id = tasks.card_id)`.mapWith(Number),
    })
    .from(tasks);
}

function toTaskItem(r: SelectRow): TaskItem {
  const t = r.task;
  return {
    id: t.id,
    title: t.title,
    description: t.description,
    status: t.status,
    priority: t.priority,
    dueDate: t.dueDate,
    overdue: Boolean(r.overdue),
    confidential: t.confidential,
    assignee: t.assigneeUserId !== null && r.assigneeName !== null ? { id: t.assigneeUserId, username: r.assigneeName } : null,
    createdBy: t.createdByUserId !== null && r.creatorName !== null ? { id: t.createdByUserId, username: r.creatorName } : null,
    contact: t.contactId !== null ? { id: t.contactId, firstName: r.firstName, lastName: r.lastName } : null,
    group: t.groupId !== null && r.groupName !== null ? { id: t.groupId, name: r.groupName } : null,
    request: t.requestId !== null && r.requestType !== null ? { id: t.requestId, type: r.requestType } : null,
    card: t.cardId !== null && r.cardPipelineId !== null && r.cardStepId !== null ? { id: t.cardId, pipelineId: r.cardPipelineId, stepId: r.cardStepId } : null,
    createdAt: t.createdAt.toISOString(),
    completedAt: t.completedAt ? t.completedAt.toISOString() : null,
  };
}

/** A task the caller may see, with its output shape; undefined when missing or invisible. */
export async function findVisibleTask(tx: Db, auth: Principal, scope: GroupScope, id: number, today: string): Promise<{ row: TaskRow; item: TaskItem } | undefined> {
  const [r] = await selectTasks(tx, auth.tenantId, today).where(and(eq(tasks.tenantId, auth.tenantId), eq(tasks.id, id), taskVisibility(auth, scope)));
  return r ? { row: r.task, item: toTaskItem(r) } : undefined;
}

/** The stored row, locked until the transaction ends: a transition is checked against the row it changes. */
export async function lockTask(tx: Db, tenantId: number, id: number): Promise<TaskRow | undefined> {
  const [row] = await tx.select().from(tasks).where(and(eq(tasks.tenantId, tenantId), eq(tasks.id, id))).for('update');
  return row;
}

/** Tasks among `ids` the caller may see (bulk actions), by id. */
export async function findVisibleTasks(tx: Db, auth: Principal, scope: GroupScope, ids: readonly number[]): Promise<Map<number, TaskRow>> {
  const rows = await tx
    .select({ task: tasks })
    .from(tasks)
    .leftJoin(groups, and(eq(groups.tenantId, auth.tenantId), eq(groups.id, tasks.groupId)))
    .where(and(eq(tasks.tenantId, auth.tenantId), sql`${tasks.id} = any(${idArray(ids)})`, taskVisibility(auth, scope)))
    .orderBy(asc(tasks.id))
    .for('update', { of: tasks });
  return new Map(rows.map((r) => [r.task.id, r.task]));
}

export async function getTaskItem(tx: Db, tenantId: number, id: number, today: string): Promise<TaskItem> {
  const [r] = await selectTasks(tx, tenantId, today).where(and(eq(tasks.tenantId, tenantId), eq(tasks.id, id)));
  return toTaskItem(r);
}

export interface TaskFilter {
  assignee?: 'me' | 'unassigned' | number;
  status?: TaskStatus;
  priority?: TaskPriority;
  overdue?: boolean;
  dueFrom?: string;
  dueTo?: string;
  contactId?: number;
  groupId?: number;
  subtreePath?: string;
  pipelineId?: number;
  q?: string;
  sort?: TaskSort;
}

const PRIORITY_RANK = sql`(case ${tasks.priority} when 'Urgent' then 4 when 'High' then 3 when 'Normal' then 2 else 1 end)`;

function orderOf(sort: TaskSort = 'dueDate'): SQL[] {
  switch (sort) {
    case 'dueDate': return [sql`${tasks.dueDate} asc nulls last`, asc(tasks.id)];
    case '-dueDate': return [sql`${tasks.dueDate} desc nulls last`, desc(tasks.id)];
    case 'createdAt': return [asc(tasks.createdAt), asc(tasks.id)];
    case '-createdAt': return [desc(tasks.createdAt), desc(tasks.id)];
    case 'priority': return [sql`${PRIORITY_RANK} desc`, sql`${tasks.dueDate} asc nulls last`, asc(tasks.id)];
    case '-priority': return [sql`${PRIORITY_RANK} asc`, sql`${tasks.dueDate} asc nulls last`, asc(tasks.id)];
  }
}

/**
 * The tenant's date as SQL (a scalar subquery, planned once as an init plan: an index condition may
 * use it): saves the round trip of reading the tenant's time zone first.
 */
export function tenantTodaySql(tenantId: number | Placeholder): SQL {
  return sql`(select (now() at time zone tz.time_zone)::date from tenants tz where tz.id = ${tenantId})`;
}

/** The values of a list statement: the request's, or placeholders for them (a statement built once, see listQueryFor). */
type ListValues = {
  tenantId: number | Placeholder;
  userId: number | Placeholder;
  assignee: number | null | Placeholder;
  status: TaskStatus | null | Placeholder;
  priority: TaskPriority | null | Placeholder;
  dueFrom: string | null | Placeholder;
  dueTo: string | null | Placeholder;
  contactId: number | null | Placeholder;
  groupId: number | null | Placeholder;
  pipelineId: number | null | Placeholder;
  pattern: string | null | Placeholder;
  limit: number | Placeholder;
  offset: number | Placeholder;
};

const P: ListValues = {
  tenantId: sql.placeholder('tenantId'), userId: sql.placeholder('userId'), assignee: sql.placeholder('assignee'),
  status: sql.placeholder('status'), priority: sql.placeholder('priority'), dueFrom: sql.placeholder('dueFrom'), dueTo: sql.placeholder('dueTo'),
  contactId: sql.placeholder('contactId'), groupId: sql.placeholder('groupId'), pipelineId: sql.placeholder('pipelineId'),
  pattern: sql.placeholder('pattern'), limit: sql.placeholder('limit'), offset: sql.placeholder('offset'),
};

/**
 * The list statement: `f` says which filters apply (and the sort), `v` gives their values. The page's
 * ids first (the filter's index, then only `limit` rows), then the output columns for those rows only,
 * and the total as an uncorrelated subquery (computed once): a window count over the joined rows made
 * every match (11,666 overdue tasks of one assignee on the large bench tenant) pay for all joins
 * (0.46 s). groups and pipeline_cards only when the filter reads them: joined (even if the planner
 * then drops them) they make the count fetch every matching row instead of reading the index alone.
 */
function listQuery(tx: Db, f: TaskFilter, v: ListValues, visibility: SQL | undefined, needsGroups: boolean) {
  const today = tenantTodaySql(v.tenantId);
  const where = and(
    eq(tasks.tenantId, v.tenantId),
    visibility,
    f.assignee === 'me' ? eq(tasks.assigneeUserId, v.userId) : f.assignee === 'unassigned' ? isNull(tasks.assigneeUserId) : f.assignee !== undefined ? eq(tasks.assigneeUserId, v.assignee!) : undefined,
    f.status ? eq(tasks.status, v.status!) : undefined,
    f.priority ? eq(tasks.priority, v.priority!) : undefined,
    f.overdue === true ? overdueSql(today) : f.overdue === false ? not(sql`coalesce(${overdueSql(today)}, false)`) : undefined,
    f.dueFrom ? gte(tasks.dueDate, v.dueFrom!) : undefined,
    f.dueTo ? lte(tasks.dueDate, v.dueTo!) : undefined,
    f.contactId !== undefined ? eq(tasks.contactId, v.contactId!) : undefined,
    f.subtreePath !== undefined ? subtreeFilter(groups.path, f.subtreePath) : f.groupId !== undefined ? eq(tasks.groupId, v.groupId!) : undefined,
    f.pipelineId !== undefined ? eq(pipelineCards.pipelineId, v.pipelineId!) : undefined,
    f.q ? sql`lower(${tasks.title}) like lower(${v.pattern})` : undefined,
  );
  const matching = <Q extends PgSelect>(q: Q) => {
    let out = q;
    if (needsGroups) out = out.leftJoin(groups, and(eq(groups.tenantId, v.tenantId), eq(groups.id, tasks.groupId))) as unknown as Q;
    if (f.pipelineId !== undefined) out = out.leftJoin(pipelineCards, and(eq(pipelineCards.tenantId, v.tenantId), eq(pipelineCards.id, tasks.cardId))) as unknown as Q;
    return out.where(where) as Q;
  };
  const pageIds = matching(tx.select({ id: tasks.id }).from(tasks).$dynamic()).orderBy(...orderOf(f.sort)).limit(v.limit).offset(v.offset);
  const counted = matching(tx.select({ total: sql<number>`count(*)` }).from(tasks).$dynamic());
  return {
    page: selectTaskPage(tx, v.tenantId, today, { total: sql<number>`(${counted})`.mapWith(Number) })
      .where(and(eq(tasks.tenantId, v.tenantId), inArray(tasks.id, pageIds)))
      .orderBy(...orderOf(f.sort)),
    count: () => matching(tx.select({ total: sql<number>`count(*)`.mapWith(Number) }).from(tasks).$dynamic()),
  };
}

type PreparedList = (tx: Db) => ReturnType<ReturnType<typeof listQuery>['page']['prepare']>;

/** List statements by shape, each built once per database handle (perHandle); a bounded set. */
const listQueries = new Map<string, PreparedList>();
const MAX_LIST_SHAPES = 200;

/**
 * The prepared list statement of f's shape — which filters are present, the sort and the visibility
 * rule — or undefined when the statement depends on more than placeholders can carry: a group
 * subtree, or a caller whose visible groups enter the filter. Building a list select walks its whole
 * SQL tree, most of a list request's own CPU (bench t1); built once, a request only binds values.
 */
function listQueryFor(auth: Principal, scope: GroupScope, f: TaskFilter): PreparedList | undefined {
  const reads = auth.permissions.has('tasks:read');
  if (f.subtreePath !== undefined || (reads && !scope.all)) return undefined;
  const visibility = !reads ? 'own' : auth.permissions.has('care:read') ? 'all' : 'open';
  const present = [f.status, f.priority, f.dueFrom, f.dueTo, f.contactId, f.groupId, f.pipelineId, f.q].map((x) => (x === undefined || x === '' ? 0 : 1)).join('');
  const assignee = typeof f.assignee === 'number' ? 'id' : f.assignee ?? '';
  const key = `${visibility}/${assignee}/${String(f.overdue)}/${present}/${f.sort ?? 'dueDate'}`;
  let query = listQueries.get(key);
  if (!query) {
    if (listQueries.size >= MAX_LIST_SHAPES) return undefined;
    const shape = { ...f };
    // The visibility rule of this shape, with the caller's id as a placeholder (scope.all or no tasks:read: no group terms).
    listQueries.set(key, (query = perHandle((tx) => listQuery(tx, shape, P, taskVisibility(auth, scope, P.userId), false).page.prepare(UNNAMED))));
  }
  return query;
}

export async function listTasks(tx: Db, auth: Principal, scope: GroupScope, f: TaskFilter, page: Page) {
  const tenantId = auth.tenantId;
  const values: ListValues = {
    tenantId, userId: auth.userId, assignee: typeof f.assignee === 'number' ? f.assignee : null,
    status: f.status ?? null, priority: f.priority ?? null, dueFrom: f.dueFrom ?? null, dueTo: f.dueTo ?? null,
    contactId: f.contactId ?? null, groupId: f.groupId ?? null, pipelineId: f.pipelineId ?? null,
    pattern: f.q ? containsPattern(f.q) : null, limit: page.limit, offset: page.offset,
  };
  const prepared = listQueryFor(auth, scope, f);
  const needsGroups = f.subtreePath !== undefined || (auth.permissions.has('tasks:read') && !scope.all);
  const built = prepared ? undefined : listQuery(tx, f, values, taskVisibility(auth, scope), needsGroups);
  // One statement: the page's rows with the total. An empty page has no row to carry the total:
  // past the end it is counted on its own; on the first page it is 0.
  const rows = prepared ? await prepared(tx).execute(values) : await built!.page;
  if (rows.length) return { items: rows.map(toTaskItem), total: rows[0].total };
  if (page.offset === 0) return { items: [], total: 0 };
  const [{ total }] = await (built ?? listQuery(tx, f, values, taskVisibility(auth, scope), needsGroups)).count();
  return { items: [], total };
}

export async function insertTasks(tx: Db, tenantId: number, values: NewTaskValues[]): Promise<TaskRow[]> {
  if (values.length === 0) return [];
  return tx.insert(tasks).values(values.map((v) => ({ ...v, tenantId }))).returning();
}

export async function updateTask(tx: Db, tenantId: number, id: number, values: Partial<NewTaskValues>): Promise<TaskRow> {
  const [row] = await tx.update(tasks).set({ ...values, updatedAt: sql`now()` }).where(and(eq(tasks.tenantId, tenantId), eq(tasks.id, id))).returning();
  return row;
}

/** One statement for many tasks (bulk actions, a card leaving its step). */
export async function updateTasks(tx: Db, tenantId: number, ids: readonly number[], values: Partial<NewTaskValues>): Promise<TaskRow[]> {
  if (ids.length === 0) return [];
  return tx.update(tasks).set({ ...values, updatedAt: sql`now()` }).where(and(eq(tasks.tenantId, tenantId), sql`${tasks.id} = any(${idArray(ids)})`)).returning();
}

export async function deleteTask(tx: Db, tenantId: number, id: number): Promise<void> {
  await tx.delete(tasks).where(and(eq(tasks.tenantId, tenantId), eq(tasks.id, id)));
}

/** The open (Open / InProgress) tasks of cards. */
export async function openTasksOfCards(tx: Db, tenantId: number, cardIds: readonly number[]): Promise<TaskRow[]> {
  if (cardIds.length === 0) return [];
  return tx.select().from(tasks).where(and(eq(tasks.tenantId, tenantId), sql`${tasks.cardId} = any(${idArray(cardIds)})`, sql`${tasks.status} in ('Open', 'InProgress')`));
}

export async function insertComment(tx: Db, tenantId: number, taskId: number, authorUserId: number, body: string): Promise<CommentItem> {
  const [row] = await tx.insert(taskComments).values({ tenantId, taskId, authorUserId, body }).returning();
  const [author] = await tx.select({ username: users.username }).from(users).where(and(eq(users.tenantId, tenantId), eq(users.id, authorUserId)));
  return { id: row.id, body: row.body, author: author ? { id: authorUserId, username: author.username } : null, createdAt: row.createdAt.toISOString() };
}

export async function listComments(tx: Db, tenantId: number, taskId: number): Promise<CommentItem[]> {
  const rows = await tx
    .select({ c: taskComments, username: users.username })
    .from(taskComments)
    .leftJoin(users, and(eq(users.tenantId, tenantId), eq(users.id, taskComments.authorUserId)))
    .where(and(eq(taskComments.tenantId, tenantId), eq(taskComments.taskId, taskId)))
    .orderBy(asc(taskComments.createdAt), asc(taskComments.id));
  return rows.map(({ c, username }) => ({
    id: c.id, body: c.body, author: c.authorUserId !== null && username !== null ? { id: c.authorUserId, username } : null, createdAt: c.createdAt.toISOString(),
  }));
}

/** The task's history from the change feed (the foundation's `changes` table): one entry per changed field. */
export async function taskHistory(tx: Db, tenantId: number, taskId: number): Promise<HistoryItem[]> {
  const rows = await tx
    .select({ type: changes.type, at: changes.occurredAt, actorId: changes.actorUserId, username: users.username, diff: changes.changes })
    .from(changes)
    .leftJoin(users, and(eq(users.tenantId, tenantId), eq(users.id, changes.actorUserId)))
    .where(and(eq(changes.tenantId, tenantId), eq(changes.entityType, 'task'), eq(changes.entityId, taskId)))
    .orderBy(asc(changes.id));
  const out: HistoryItem[] = [];
  for (const r of rows) {
    const base = { at: r.at.toISOString(), type: r.type, actor: r.actorId !== null && r.username !== null ? { id: r.actorId, username: r.username } : null };
    if (r.type === 'task.created') out.push({ ...base, field: null, from: null, to: null });
    for (const [field, d] of Object.entries(r.diff ?? {})) out.push({ ...base, field, from: d.from, to: d.to });
  }
  return out;
}

/* References checked before writing (404 naming them). */

export async function findUserRef(tx: Db, tenantId: number, id: number): Promise<{ id: number; username: string } | undefined> {
  const [row] = await tx.select({ id: users.id, username: users.username }).from(users).where(and(eq(users.tenantId, tenantId), eq(users.id, id), eq(users.status, 'Active')));
  return row;
}

export async function findContactRef(tx: Db, tenantId: number, id: number): Promise<ContactRef | undefined> {
  const [row] = await tx
    .select({ id: contacts.id, ...contactNameColumns })
    .from(contacts)
    .leftJoin(persons, and(eq(persons.tenantId, tenantId), eq(persons.contactId, contacts.id)))
    .leftJoin(companies, and(eq(companies.tenantId, tenantId), eq(companies.contactId, contacts.id)))
    .where(and(eq(contacts.tenantId, tenantId), eq(contacts.id, id)));
  return row;
}

export async function findRequestRef(tx: Db, tenantId: number, id: number): Promise<{ id: number; type: string; contactId: number } | undefined> {
  const [row] = await tx
    .select({ id: contactRequests.id, type: contactRequests.type, contactId: contactRequests.contactId })
    .from(contactRequests)
    .where(and(eq(contactRequests.tenantId, tenantId), eq(contactRequests.id, id)));
  return row;
}

export interface GroupRef {
  id: number;
  name: string;
  path: string;
  privacy: string;
}

export async function findGroupRef(tx: Db, tenantId: number, id: number): Promise<GroupRef | undefined> {
  const [row] = await tx.select({ id: groups.id, name: groups.name, path: groups.path, privacy: groups.privacy }).from(groups).where(and(eq(groups.tenantId, tenantId), eq(groups.id, id)));
  return row;
}

/** A list of ids as ONE bigint[] parameter. */
export function idArray(ids: readonly number[]): SQL {
  if (!ids.every((id) => Number.isSafeInteger(id))) throw new TypeError('ids must be integers');
  return sql`${`{${ids.join(',')}}`}::bigint[]`;
}
