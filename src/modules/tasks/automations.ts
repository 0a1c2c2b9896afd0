import { and, asc, eq, sql } from 'drizzle-orm';
import type { ChangeEvent, ChangeSubscriber } from '../../changes/subscribers.js';
import { fieldChanges, recordChanges, type Actor } from '../../changes/recorder.js';
import { withTenant, type Db } from '../../db/client.js';
import {
  AUTOMATION_TRIGGERS, automationRuns, automations, contactRequests, groupCategories, groupMemberships, groups, users,
  type AutomationAction,
} from '../../db/schema/index.js';
import { BadRequestError, NotFoundError } from '../../lib/errors.js';
import { addDays } from '../../lib/periods.js';
import { pageResult, toPage } from '../../lib/pagination.js';
import type { Principal } from '../../plugins/auth.js';
import { addCard } from './cards.js';
import * as cardsRepo from './pipelines.repository.js';
import { assertWholeTree } from './pipelines.service.js';
import { CARE_REQUEST_TYPES, requireUser, tenantToday } from './task-refs.js';
import { openTasks } from './task-writes.js';
import * as repo from './tasks.repository.js';
import type { ActionInput, AutomationItem, CreateAutomationBody, ListAutomationsQuery, UpdateAutomationBody } from './tasks.schemas.js';

type AutomationRow = typeof automations.$inferSelect;

function toItem(a: AutomationRow): AutomationItem {
  return {
    id: a.id, name: a.name, trigger: a.trigger, conditions: a.conditions, action: a.action as ActionInput, isActive: a.isActive,
    createdAt: a.createdAt.toISOString(), updatedAt: a.updatedAt.toISOString(),
  };
}

/** An action is complete for its type, and names only things that exist (404). */
async function checkAction(tx: Db, tenantId: number, action: ActionInput): Promise<AutomationAction> {
  if (action.type === 'createTask') {
    if (!action.title) throw new BadRequestError('body/action/title is required for createTask');
    if (action.pipelineId !== undefined) throw new BadRequestError('body/action/pipelineId belongs to addToPipeline');
  } else {
    if (action.pipelineId === undefined) throw new BadRequestError('body/action/pipelineId is required for addToPipeline');
    if (!(await cardsRepo.findPipeline(tx, tenantId, action.pipelineId))) throw new NotFoundError('Pipeline', action.pipelineId);
  }
  if (typeof action.assignTo === 'number') await requireUser(tx, tenantId, action.assignTo);
  return action as AutomationAction;
}

function checkConditions(conditions: Record<string, unknown> | undefined): void {
  const groupId = conditions?.groupId;
  if (groupId !== undefined && (typeof groupId !== 'number' || !Number.isSafeInteger(groupId) || groupId < 1)) {
    throw new BadRequestError('body/conditions/groupId must be a group id');
  }
}

/** What automation changes carry: the trigger and what the action acts on. */
function automationData(a: AutomationRow): Record<string, unknown> {
  return {
    automationId: a.id, name: a.name, trigger: a.trigger, isActive: a.isActive, actionType: a.action.type,
    ...(a.action.pipelineId !== undefined ? { pipelineId: a.action.pipelineId } : {}),
  };
}

const automationFields = (a: Pick<AutomationRow, 'name' | 'trigger' | 'conditions' | 'action' | 'isActive'>) =>
  ({ name: a.name, trigger: a.trigger, conditions: a.conditions, action: a.action, isActive: a.isActive });

async function findAutomation(tx: Db, tenantId: number, id: number) {
  const [row] = await tx.select().from(automations).where(and(eq(automations.tenantId, tenantId), eq(automations.id, id)));
  if (!row) throw new NotFoundError('Automation', id);
  return row;
}

export function createAutomationsService(db: Db) {
  return {
    list: (auth: Principal, query: ListAutomationsQuery) =>
      withTenant(db, auth, async (tx) => {
        const page = toPage(query);
        const where = and(
          eq(automations.tenantId, auth.tenantId),
          query.trigger ? eq(automations.trigger, query.trigger) : undefined,
          query.isActive !== undefined ? eq(automations.isActive, query.isActive) : undefined,
        );
        const rows = await tx.select({ a: automations, total: sql<number>`count(*) over()`.mapWith(Number) }).from(automations).where(where)
          .orderBy(asc(automations.name), asc(automations.id)).limit(page.limit).offset(page.offset);
        let total = rows[0]?.total ?? 0;
        if (rows.length === 0 && page.offset > 0) [{ total }] = await tx.select({ total: sql<number>`count(*)`.mapWith(Number) }).from(automations).where(where);
        return pageResult(page, rows.map((r) => toItem(r.a)), total);
      }),

    get: (auth: Principal, id: number) => withTenant(db, auth, async (tx) => toItem(await findAutomation(tx, auth.tenantId, id))),

    create: (auth: Principal, body: CreateAutomationBody) =>
      withTenant(db, auth, async (tx) => {
        assertWholeTree(auth, 'Creating an automation');
        checkConditions(body.conditions);
        const action = await checkAction(tx, auth.tenantId, body.action);
        const [row] = await tx.insert(automations).values({
          tenantId: auth.tenantId, name: body.name, trigger: body.trigger, conditions: (body.conditions ?? {}) as AutomationRow['conditions'], action, isActive: body.isActive ?? true,
        }).returning();
        await recordChanges(tx, auth, [{ type: 'automation.created', entityId: row.id, data: automationData(row) }]);
        return toItem(row);
      }),

    update: (auth: Principal, id: number, body: UpdateAutomationBody) =>
      withTenant(db, auth, async (tx) => {
        const before = await findAutomation(tx, auth.tenantId, id);
        assertWholeTree(auth, 'Changing an automation');
        checkConditions(body.conditions);
        const set: Partial<AutomationRow> = {};
        if (body.action) set.action = await checkAction(tx, auth.tenantId, body.action);
        if (body.name !== undefined) set.name = body.name;
        if (body.trigger !== undefined) set.trigger = body.trigger;
        if (body.conditions !== undefined) set.conditions = body.conditions as AutomationRow['conditions'];
        if (body.isActive !== undefined) set.isActive = body.isActive;
        const [row] = await tx.update(automations).set({ ...set, updatedAt: sql`now()` }).where(and(eq(automations.tenantId, auth.tenantId), eq(automations.id, id))).returning();
        // Both sides as stored (jsonb orders an object's keys): only what the body set, and only what differs.
        const after = automationFields(row);
        const diff = fieldChanges(automationFields(before), Object.fromEntries(Object.keys(set).map((k) => [k, after[k as keyof typeof after]])));
        if (diff) await recordChanges(tx, auth, [{ type: 'automation.updated', entityId: id, changes: diff, data: automationData(row) }]);
        return toItem(row);
      }),

    remove: (auth: Principal, id: number) =>
      withTenant(db, auth, async (tx) => {
        const row = await findAutomation(tx, auth.tenantId, id);
        assertWholeTree(auth, 'Deleting an automation');
        await tx.delete(automations).where(and(eq(automations.tenantId, auth.tenantId), eq(automations.id, id)));
        await recordChanges(tx, auth, [{ type: 'automation.deleted', entityId: id, data: automationData(row) }]);
      }),
  };
}

/* Running them */

const idOf = (v: unknown): number | null => {
  const n = typeof v === 'string' && /^[0-9]+$/.test(v) ? Number(v) : v;
  return typeof n === 'number' && Number.isSafeInteger(n) && n > 0 ? n : null;
};

/** The contact a change is about: data.contactId, or the entity itself for contact.* changes. */
function contactOf(change: ChangeEvent): number | null {
  return idOf(change.data.contactId) ?? (change.entityType === 'contact' ? change.entityId : null);
}

/** Flat conditions against the change's data; `groupId` matches the group and its subtree. */
async function matches(tx: Db, change: ChangeEvent, conditions: Record<string, unknown>): Promise<boolean> {
  for (const [key, want] of Object.entries(conditions)) {
    const have = change.data[key];
    if (key === 'groupId') {
      const groupId = idOf(have);
      const under = idOf(want);
      if (groupId === null || under === null) return false;
      const rows = await tx.execute(sql`select 1 from groups g join groups a on a.tenant_id = g.tenant_id and a.id = ${under}
        where g.tenant_id = ${change.tenantId} and g.id = ${groupId} and g.path like a.path || '%'`);
      if ((rows as unknown as { rows: unknown[] }).rows.length === 0) return false;
    } else if (have === undefined || (want === null ? have !== null : String(have) !== String(want))) return false;
  }
  return true;
}

/**
 * `groupLeader` (modules-contract §2): the active Leader of the change's group (the oldest such
 * membership whose contact has an active user); failing that, for a contact, the leader of the group
 * of their oldest active membership in a Fellowship-category group. Nobody: unassigned.
 */
async function resolveGroupLeader(tx: Db, tenantId: number, groupId: number | null, contactId: number | null): Promise<{ userId: number | null; groupId: number | null }> {
  const leaderOf = async (gid: number) => {
    const [row] = await tx
      .select({ userId: users.id })
      .from(groupMemberships)
      .innerJoin(users, and(eq(users.tenantId, groupMemberships.tenantId), eq(users.contactId, groupMemberships.contactId), eq(users.status, 'Active')))
      .where(and(eq(groupMemberships.tenantId, tenantId), eq(groupMemberships.groupId, gid), eq(groupMemberships.role, 'Leader'), eq(groupMemberships.isActive, true)))
      .orderBy(asc(groupMemberships.createdAt), asc(groupMemberships.id))
      .limit(1);
    return row?.userId ?? null;
  };
  if (groupId !== null) {
    const userId = await leaderOf(groupId);
    if (userId !== null) return { userId, groupId };
  }
  if (contactId !== null) {
    const [fellowship] = await tx
      .select({ groupId: groupMemberships.groupId })
      .from(groupMemberships)
      .innerJoin(groups, and(eq(groups.tenantId, groupMemberships.tenantId), eq(groups.id, groupMemberships.groupId)))
      .innerJoin(groupCategories, and(eq(groupCategories.tenantId, groups.tenantId), eq(groupCategories.id, groups.categoryId)))
      .where(and(eq(groupMemberships.tenantId, tenantId), eq(groupMemberships.contactId, contactId), eq(groupMemberships.isActive, true), eq(groupCategories.name, 'Fellowship')))
      .orderBy(asc(groupMemberships.createdAt), asc(groupMemberships.id))
      .limit(1);
    if (fellowship) return { userId: await leaderOf(fellowship.groupId), groupId: groupId ?? fellowship.groupId };
  }
  return { userId: null, groupId };
}

async function assigneeFor(tx: Db, tenantId: number, assignTo: AutomationAction['assignTo'], groupId: number | null, contactId: number | null) {
  if (assignTo === 'groupLeader') return resolveGroupLeader(tx, tenantId, groupId, contactId);
  if (typeof assignTo === 'number') return { userId: (await repo.findUserRef(tx, tenantId, assignTo))?.id ?? null, groupId };
  return { userId: null, groupId };
}

async function runAutomation(tx: Db, change: ChangeEvent, automation: AutomationRow): Promise<void> {
  const actor: Actor = { tenantId: change.tenantId, userId: null };
  const action = automation.action;
  const contactId = contactOf(change);
  const contact = contactId !== null ? await repo.findContactRef(tx, change.tenantId, contactId) : undefined;
  const dataGroup = idOf(change.data.groupId);
  const group = dataGroup !== null ? await repo.findGroupRef(tx, change.tenantId, dataGroup) : undefined;
  const { userId, groupId } = await assigneeFor(tx, change.tenantId, action.assignTo, group?.id ?? null, contact?.id ?? null);
  const today = await tenantToday(tx, change.tenantId);
  if (action.type === 'createTask') {
    const requestId = idOf(change.data.requestId) ?? (change.entityType === 'request' ? change.entityId : null);
    const [request] = requestId === null ? [] : await tx.select({ id: contactRequests.id, type: contactRequests.type })
      .from(contactRequests).where(and(eq(contactRequests.tenantId, change.tenantId), eq(contactRequests.id, requestId)));
    const name = contact ? `${contact.firstName} ${contact.lastName}`.trim() : '';
    await openTasks(tx, actor, [{
      title: (action.title ?? automation.name).replaceAll('{contact}', name || 'someone').slice(0, 200),
      dueDate: action.dueInDays !== undefined ? addDays(today, action.dueInDays) : null,
      priority: action.priority ?? 'Normal',
      // A task about a Counseling or Welfare request is as confidential as the request.
      confidential: request ? CARE_REQUEST_TYPES.includes(request.type) : false,
      assigneeUserId: userId,
      contactId: contact?.id ?? null,
      groupId,
      requestId: request?.id ?? null,
    }]);
    return;
  }
  if (!contact || action.pipelineId === undefined) return;
  const pipeline = await cardsRepo.findPipeline(tx, change.tenantId, action.pipelineId);
  if (!pipeline || !pipeline.isActive) return;
  const [first] = await cardsRepo.stepsOf(tx, change.tenantId, [pipeline.id]);
  if (!first) return;
  // Already active in the pipeline: nothing to do (the unique index would refuse the card anyway).
  await addCard(tx, actor, { pipelineId: pipeline.id, pipelineName: pipeline.name, firstStep: first.step, contactId: contact.id, assigneeUserId: userId, groupId }, today);
}

/**
 * The automations, as a consumer of the change feed: after commit, at least once. A run is keyed
 * (automation, change) in automation_runs, inserted before acting in the same transaction: a change
 * delivered again (a worker restarted between taking it and committing) finds its key and does nothing.
 */
export const automationsSubscriber: ChangeSubscriber = {
  name: 'tasks.automations',
  types: AUTOMATION_TRIGGERS,
  async handle(tx, change) {
    const active = await tx.select().from(automations)
      .where(and(eq(automations.tenantId, change.tenantId), eq(automations.trigger, change.type as AutomationRow['trigger']), eq(automations.isActive, true)))
      .orderBy(asc(automations.id));
    for (const automation of active) {
      if (!(await matches(tx, change, automation.conditions))) continue;
      const claimed = await tx.insert(automationRuns).values({ tenantId: change.tenantId, automationId: automation.id, changeId: change.id })
        .onConflictDoNothing().returning({ id: automationRuns.changeId });
      if (claimed.length === 0) continue;
      await runAutomation(tx, change, automation);
    }
  },
};
