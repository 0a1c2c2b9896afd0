import { and, asc, eq, inArray, isNotNull, or, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { groups, pipelineCards, pipelines, pipelineSteps, users, type CardStatus, type TaskStatus } from '../../db/schema/index.js';
import type { Page } from '../../lib/pagination.js';
import type { Principal } from '../../plugins/auth.js';
import { subtreeFilter, visibleGroupFilter, type GroupScope } from '../groups/groups.visibility.js';
import { idArray } from './tasks.repository.js';
import type { CardItem, PipelineItem } from './tasks.schemas.js';

export type PipelineRow = typeof pipelines.$inferSelect;
export type StepRow = typeof pipelineSteps.$inferSelect;
export type CardRow = typeof pipelineCards.$inferSelect;

/* Pipelines and steps */

export async function findPipeline(tx: Db, tenantId: number, id: number): Promise<PipelineRow | undefined> {
  const [row] = await tx.select().from(pipelines).where(and(eq(pipelines.tenantId, tenantId), eq(pipelines.id, id)));
  return row;
}

/** Steps of pipelines, in order, with their assignee's username (one query). */
export async function stepsOf(tx: Db, tenantId: number, pipelineIds: readonly number[]) {
  if (pipelineIds.length === 0) return [];
  return tx
    .select({ step: pipelineSteps, username: users.username })
    .from(pipelineSteps)
    .leftJoin(users, and(eq(users.tenantId, tenantId), eq(users.id, pipelineSteps.assigneeUserId)))
    .where(and(eq(pipelineSteps.tenantId, tenantId), inArray(pipelineSteps.pipelineId, [...pipelineIds])))
    .orderBy(asc(pipelineSteps.pipelineId), asc(pipelineSteps.position), asc(pipelineSteps.id));
}

function toPipelineItem(p: PipelineRow, steps: Awaited<ReturnType<typeof stepsOf>>): PipelineItem {
  return {
    id: p.id,
    name: p.name,
    description: p.description,
    isActive: p.isActive,
    createdAt: p.createdAt.toISOString(),
    steps: steps
      .filter((s) => s.step.pipelineId === p.id)
      .map(({ step, username }) => ({
        id: step.id, name: step.name, position: step.position, dueInDays: step.dueInDays,
        assignee: step.assigneeUserId !== null && username !== null ? { id: step.assigneeUserId, username } : null,
      })),
  };
}

/** A pipeline with its steps in one statement (the steps left-joined in order). */
export async function getPipelineItem(tx: Db, tenantId: number, id: number): Promise<PipelineItem | undefined> {
  const rows = await tx
    .select({ p: pipelines, step: pipelineSteps, username: users.username })
    .from(pipelines)
    .leftJoin(pipelineSteps, and(eq(pipelineSteps.tenantId, tenantId), eq(pipelineSteps.pipelineId, pipelines.id)))
    .leftJoin(users, and(eq(users.tenantId, tenantId), eq(users.id, pipelineSteps.assigneeUserId)))
    .where(and(eq(pipelines.tenantId, tenantId), eq(pipelines.id, id)))
    .orderBy(asc(pipelineSteps.position), asc(pipelineSteps.id));
  if (rows.length === 0) return undefined;
  const steps = rows.flatMap((r) => (r.step ? [{ step: r.step, username: r.username }] : []));
  return toPipelineItem(rows[0].p, steps);
}

export async function listPipelines(tx: Db, tenantId: number, isActive: boolean | undefined, page: Page) {
  const where = and(eq(pipelines.tenantId, tenantId), isActive === undefined ? undefined : eq(pipelines.isActive, isActive));
  const rows = await tx
    .select({ p: pipelines, total: sql<number>`count(*) over()`.mapWith(Number) })
    .from(pipelines)
    .where(where)
    .orderBy(asc(pipelines.name), asc(pipelines.id))
    .limit(page.limit)
    .offset(page.offset);
  let total = rows[0]?.total ?? 0;
  if (rows.length === 0 && page.offset > 0) [{ total }] = await tx.select({ total: sql<number>`count(*)`.mapWith(Number) }).from(pipelines).where(where);
  const steps = await stepsOf(tx, tenantId, rows.map((r) => r.p.id));
  return { items: rows.map((r) => toPipelineItem(r.p, steps)), total };
}

export async function insertPipeline(tx: Db, tenantId: number, values: { name: string; description: string | null; isActive: boolean }): Promise<number> {
  const [row] = await tx.insert(pipelines).values({ ...values, tenantId }).returning({ id: pipelines.id });
  return row.id;
}

export async function updatePipeline(tx: Db, tenantId: number, id: number, values: Partial<Pick<PipelineRow, 'name' | 'description' | 'isActive'>>) {
  await tx.update(pipelines).set({ ...values, updatedAt: sql`now()` }).where(and(eq(pipelines.tenantId, tenantId), eq(pipelines.id, id)));
}

export async function deletePipeline(tx: Db, tenantId: number, id: number) {
  await tx.delete(pipelines).where(and(eq(pipelines.tenantId, tenantId), eq(pipelines.id, id)));
}

export interface StepValues {
  name: string;
  position: number;
  dueInDays: number;
  assigneeUserId: number | null;
}

export async function insertSteps(tx: Db, tenantId: number, pipelineId: number, steps: StepValues[]) {
  if (steps.length === 0) return;
  await tx.insert(pipelineSteps).values(steps.map((s) => ({ ...s, tenantId, pipelineId })));
}

export async function updateStep(tx: Db, tenantId: number, id: number, values: StepValues) {
  await tx.update(pipelineSteps).set(values).where(and(eq(pipelineSteps.tenantId, tenantId), eq(pipelineSteps.id, id)));
}

export async function deleteSteps(tx: Db, tenantId: number, ids: readonly number[]) {
  if (ids.length === 0) return;
  await tx.delete(pipelineSteps).where(and(eq(pipelineSteps.tenantId, tenantId), sql`${pipelineSteps.id} = any(${idArray(ids)})`));
}

/** Steps among `stepIds` that hold cards (of any status): they are not removed. */
export async function stepsHoldingCards(tx: Db, tenantId: number, stepIds: readonly number[]): Promise<number[]> {
  if (stepIds.length === 0) return [];
  const rows = await tx
    .selectDistinct({ id: pipelineCards.stepId })
    .from(pipelineCards)
    .where(and(eq(pipelineCards.tenantId, tenantId), sql`${pipelineCards.stepId} = any(${idArray(stepIds)})`));
  return rows.map((r) => r.id).sort((a, b) => a - b);
}

export async function pipelineHasCards(tx: Db, tenantId: number, pipelineId: number): Promise<boolean> {
  const [row] = await tx.select({ id: pipelineCards.id }).from(pipelineCards).where(and(eq(pipelineCards.tenantId, tenantId), eq(pipelineCards.pipelineId, pipelineId))).limit(1);
  return row !== undefined;
}

/* Cards */

/** Who sees a card: its assignee; else its group's visibility (without a group: hierarchy:all). Expects `groups` joined. */
export function cardVisibility(auth: Principal, scope: GroupScope): SQL | undefined {
  if (scope.all) return undefined;
  return or(eq(pipelineCards.assigneeUserId, auth.userId), and(isNotNull(pipelineCards.groupId), visibleGroupFilter(scope, groups)));
}

/** The raw card row if the caller sees it. */
export async function findVisibleCard(tx: Db, auth: Principal, scope: GroupScope, id: number): Promise<CardRow | undefined> {
  const [row] = await tx
    .select({ card: pipelineCards })
    .from(pipelineCards)
    .leftJoin(groups, and(eq(groups.tenantId, auth.tenantId), eq(groups.id, pipelineCards.groupId)))
    .where(and(eq(pipelineCards.tenantId, auth.tenantId), eq(pipelineCards.id, id), cardVisibility(auth, scope)));
  return row?.card;
}

/** The stored card, locked until the transaction ends (two moves of one card run one after the other). */
export async function lockCard(tx: Db, tenantId: number, id: number): Promise<CardRow | undefined> {
  const [row] = await tx.select().from(pipelineCards).where(and(eq(pipelineCards.tenantId, tenantId), eq(pipelineCards.id, id))).for('update');
  return row;
}

export async function insertCard(tx: Db, tenantId: number, values: { pipelineId: number; stepId: number; contactId: number; assigneeUserId: number | null; groupId: number | null }): Promise<CardRow | undefined> {
  // The partial unique index (one Active card per contact and pipeline) answers a duplicate: no row.
  const [row] = await tx.insert(pipelineCards).values({ ...values, tenantId }).onConflictDoNothing().returning();
  return row;
}

export async function updateCard(tx: Db, tenantId: number, id: number, values: { stepId?: number; status?: CardStatus; entered?: boolean; completed?: boolean }) {
  const set: Record<string, unknown> = { updatedAt: sql`now()` };
  if (values.stepId !== undefined) set.stepId = values.stepId;
  if (values.status !== undefined) set.status = values.status;
  if (values.entered) set.enteredStepAt = sql`now()`;
  if (values.completed) set.completedAt = sql`now()`;
  await tx.update(pipelineCards).set(set).where(and(eq(pipelineCards.tenantId, tenantId), eq(pipelineCards.id, id)));
}

export async function activeCardOf(tx: Db, tenantId: number, pipelineId: number, contactId: number): Promise<number | undefined> {
  const [row] = await tx
    .select({ id: pipelineCards.id })
    .from(pipelineCards)
    .where(and(eq(pipelineCards.tenantId, tenantId), eq(pipelineCards.pipelineId, pipelineId), eq(pipelineCards.contactId, contactId), eq(pipelineCards.status, 'Active')));
  return row?.id;
}

/* Card output: one statement for a page, one for a whole board. */

function cardColumns(today: string | SQL): SQL {
  return sql`pipeline_cards.id, pipeline_cards.pipeline_id, pipeline_cards.step_id, st.name as step_name, pipeline_cards.contact_id,
    coalesce(pe.first_name, co.name, '') as first_name, coalesce(pe.last_name, '') as last_name,
    pipeline_cards.assignee_user_id, au.username as assignee_name, pipeline_cards.group_id, groups.name as group_name, pipeline_cards.status,
    floor(extract(epoch from pipeline_cards.entered_step_at) * 1000)::float8 as entered_ms,
    floor(extract(epoch from pipeline_cards.completed_at) * 1000)::float8 as completed_ms,
    ot.id as task_id, ot.title as task_title, ot.status as task_status, ot.due_date::text as task_due,
    (ot.due_date < ${today}::date) as task_overdue, ot.assignee_user_id as task_assignee_id, tu.username as task_assignee_name`;
}

const CARD_JOINS = sql`
  join pipeline_steps st on st.tenant_id = pipeline_cards.tenant_id and st.id = pipeline_cards.step_id
  left join persons pe on pe.tenant_id = pipeline_cards.tenant_id and pe.contact_id = pipeline_cards.contact_id
  left join companies co on co.tenant_id = pipeline_cards.tenant_id and co.contact_id = pipeline_cards.contact_id
  left join users au on au.tenant_id = pipeline_cards.tenant_id and au.id = pipeline_cards.assignee_user_id
  left join groups on groups.tenant_id = pipeline_cards.tenant_id and groups.id = pipeline_cards.group_id
  left join lateral (select t.id, t.title, t.status, t.due_date, t.assignee_user_id from tasks t
    where t.tenant_id = pipeline_cards.tenant_id and t.card_id = pipeline_cards.id and t.status in ('Open', 'InProgress')
    order by t.id desc limit 1) ot on true
  left join users tu on tu.tenant_id = pipeline_cards.tenant_id and tu.id = ot.assignee_user_id`;

interface CardSqlRow {
  id: string | number; pipeline_id: string | number; step_id: string | number; step_name: string; contact_id: string | number;
  first_name: string; last_name: string; assignee_user_id: string | number | null; assignee_name: string | null;
  group_id: string | number | null; group_name: string | null; status: CardStatus; entered_ms: number; completed_ms: number | null;
  task_id: string | number | null; task_title: string | null; task_status: string | null; task_due: string | null; task_overdue: boolean | null;
  task_assignee_id: string | number | null; task_assignee_name: string | null; total?: string | number; board_step_id?: string | number;
}

const num = (v: string | number | null) => (v === null ? null : Number(v));

function toCardItem(r: CardSqlRow): CardItem {
  return {
    id: Number(r.id),
    pipelineId: Number(r.pipeline_id),
    step: { id: Number(r.step_id), name: r.step_name },
    contact: { id: Number(r.contact_id), firstName: r.first_name, lastName: r.last_name },
    assignee: r.assignee_user_id !== null && r.assignee_name !== null ? { id: Number(r.assignee_user_id), username: r.assignee_name } : null,
    group: r.group_id !== null && r.group_name !== null ? { id: Number(r.group_id), name: r.group_name } : null,
    task: r.task_id === null ? null : {
      id: Number(r.task_id), title: r.task_title!, status: r.task_status as TaskStatus, dueDate: r.task_due, overdue: Boolean(r.task_overdue),
      assignee: r.task_assignee_id !== null && r.task_assignee_name !== null ? { id: num(r.task_assignee_id)!, username: r.task_assignee_name } : null,
    },
    enteredStepAt: new Date(Number(r.entered_ms)).toISOString(),
    status: r.status,
    completedAt: r.completed_ms === null ? null : new Date(Number(r.completed_ms)).toISOString(),
  };
}

const rowsOf = <T>(result: unknown) => (result as { rows: T[] }).rows;

export async function getCardItem(tx: Db, tenantId: number, id: number, today: string): Promise<CardItem> {
  const result = await tx.execute(sql`select ${cardColumns(today)} from pipeline_cards ${CARD_JOINS}
    where pipeline_cards.tenant_id = ${tenantId} and pipeline_cards.id = ${id}`);
  return toCardItem(rowsOf<CardSqlRow>(result)[0]);
}

export interface CardFilter {
  pipelineId?: number;
  stepId?: number;
  contactId?: number;
  status?: CardStatus;
}

export async function listCards(tx: Db, auth: Principal, scope: GroupScope, f: CardFilter, page: Page, today: string | SQL) {
  const where = and(
    eq(pipelineCards.tenantId, auth.tenantId),
    cardVisibility(auth, scope),
    f.pipelineId !== undefined ? eq(pipelineCards.pipelineId, f.pipelineId) : undefined,
    f.stepId !== undefined ? eq(pipelineCards.stepId, f.stepId) : undefined,
    f.contactId !== undefined ? eq(pipelineCards.contactId, f.contactId) : undefined,
    f.status !== undefined ? eq(pipelineCards.status, f.status) : undefined,
  )!;
  const result = await tx.execute(sql`select ${cardColumns(today)}, count(*) over() as total from pipeline_cards ${CARD_JOINS}
    where ${where} order by pipeline_cards.id limit ${page.limit} offset ${page.offset}`);
  const rows = rowsOf<CardSqlRow>(result);
  let total = Number(rows[0]?.total ?? 0);
  if (rows.length === 0 && page.offset > 0) {
    const counted = await tx.execute(sql`select count(*) as n from pipeline_cards left join groups on groups.tenant_id = pipeline_cards.tenant_id and groups.id = pipeline_cards.group_id where ${where}`);
    total = Number(rowsOf<{ n: string | number }>(counted)[0].n);
  }
  return { items: rows.map(toCardItem), total };
}

/**
 * A board step's cards (cardColumns' shape, `s` the step): the names come from scalar subqueries
 * (one probe per card) and the step's name from `s`, so the lateral joins only the card, its group
 * (the visibility and subtree filters read it) and its open task — fewer relations to plan than
 * CARD_JOINS' eight, for the same rows.
 */
function boardCardColumns(today: string | SQL): SQL {
  const t = sql`pipeline_cards.tenant_id`;
  return sql`pipeline_cards.id, pipeline_cards.pipeline_id, pipeline_cards.step_id, s.name as step_name, pipeline_cards.contact_id,
    coalesce((select pe.first_name from persons pe where pe.tenant_id = ${t} and pe.contact_id = pipeline_cards.contact_id),
      (select co.name from companies co where co.tenant_id = ${t} and co.contact_id = pipeline_cards.contact_id), '') as first_name,
    coalesce((select pe.last_name from persons pe where pe.tenant_id = ${t} and pe.contact_id = pipeline_cards.contact_id), '') as last_name,
    pipeline_cards.assignee_user_id, (select au.username from users au where au.tenant_id = ${t} and au.id = pipeline_cards.assignee_user_id) as assignee_name,
    pipeline_cards.group_id, groups.name as group_name, pipeline_cards.status,
    floor(extract(epoch from pipeline_cards.entered_step_at) * 1000)::float8 as entered_ms,
    floor(extract(epoch from pipeline_cards.completed_at) * 1000)::float8 as completed_ms,
    ot.id as task_id, ot.title as task_title, ot.status as task_status, ot.due_date::text as task_due,
    (ot.due_date < ${today}::date) as task_overdue, ot.assignee_user_id as task_assignee_id,
    (select tu.username from users tu where tu.tenant_id = ${t} and tu.id = ot.assignee_user_id) as task_assignee_name`;
}

const BOARD_CARD_JOINS = sql`
  left join groups on groups.tenant_id = pipeline_cards.tenant_id and groups.id = pipeline_cards.group_id
  left join lateral (select t.id, t.title, t.status, t.due_date, t.assignee_user_id from tasks t
    where t.tenant_id = pipeline_cards.tenant_id and t.card_id = pipeline_cards.id and t.status in ('Open', 'InProgress')
    order by t.id desc limit 1) ot on true`;

export const BOARD_CARDS = 50;

/**
 * A board in one statement whatever its size: the counts per step (active cards, and those whose
 * open task is overdue), and the first BOARD_CARDS cards of every step through a lateral join.
 * `today`: the tenant's date, as a string or as SQL (tenantTodaySql: no round trip for the time zone).
 */
export async function boardOf(tx: Db, auth: Principal, scope: GroupScope, pipelineId: number, group: { subtreePath?: string; groupId?: number }, today: string | SQL) {
  const filter = and(
    eq(pipelineCards.tenantId, auth.tenantId),
    eq(pipelineCards.status, 'Active'),
    cardVisibility(auth, scope),
    group.subtreePath !== undefined ? subtreeFilter(groups.path, group.subtreePath) : group.groupId !== undefined ? eq(pipelineCards.groupId, group.groupId) : undefined,
  )!;
  // One statement: per step (in position order) its counts — active cards, and those whose open task
  // is overdue (the overdue open card tasks come from a range of tasks_card_open_idx into a hashed
  // subplan, built once: as a join the planner chose a nested loop on small estimates, 13 ms for 200
  // cards) — beside its first BOARD_CARDS cards through a lateral join (pipeline_cards_board_idx in
  // order); a step without cards gives one row of nulls. The counts are a MATERIALIZED CTE: inlined,
  // they were recomputed for every step.
  const result = await tx.execute(sql`
    with counted as materialized (
      select pipeline_cards.step_id, count(*) as n,
        count(*) filter (where pipeline_cards.id in (select t.card_id from tasks t where t.tenant_id = ${auth.tenantId} and t.card_id is not null
          and t.status in ('Open', 'InProgress') and t.due_date < ${today}::date)) as overdue
      from pipeline_cards
      left join groups on groups.tenant_id = pipeline_cards.tenant_id and groups.id = pipeline_cards.group_id
      where pipeline_cards.pipeline_id = ${pipelineId} and ${filter}
      group by pipeline_cards.step_id
    )
    select s.id as board_step_id, counted.n as step_count, counted.overdue as step_overdue, x.*
    from pipeline_steps s
      left join counted on counted.step_id = s.id
      left join lateral (
        select ${boardCardColumns(today)} from pipeline_cards ${BOARD_CARD_JOINS}
        where pipeline_cards.step_id = s.id and ${filter}
        order by pipeline_cards.entered_step_at, pipeline_cards.id limit ${BOARD_CARDS}) x on true
    where s.tenant_id = ${auth.tenantId} and s.pipeline_id = ${pipelineId}
    order by s.position, x.entered_ms, x.id`);
  const counts = new Map<number, { count: number; overdue: number }>();
  const cards = new Map<number, CardItem[]>();
  for (const r of rowsOf<CardSqlRow & { step_count: string | number | null; step_overdue: string | number | null }>(result)) {
    const stepId = Number(r.board_step_id);
    if (!cards.has(stepId)) {
      cards.set(stepId, []);
      if (r.step_count !== null) counts.set(stepId, { count: Number(r.step_count), overdue: Number(r.step_overdue) });
    }
    if (r.id !== null) cards.get(stepId)!.push(toCardItem(r));
  }
  return { counts, cards };
}
