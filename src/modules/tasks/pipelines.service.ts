import { fieldChanges, recordChanges } from '../../changes/recorder.js';
import { withTenant, type Db } from '../../db/client.js';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError } from '../../lib/errors.js';
import { pageResult, toPage, type PageRequest } from '../../lib/pagination.js';
import type { Principal } from '../../plugins/auth.js';
import { isGroupVisible, loadGroupScope } from '../groups/groups.visibility.js';
import { addCard, moveCard, removeCard, type CardStep } from './cards.js';
import * as cardsRepo from './pipelines.repository.js';
import { requireContact, requireUser, requireVisibleGroup, tenantToday } from './task-refs.js';
import * as repo from './tasks.repository.js';
import type { BoardQuery, CardItem, CreateCardBody, CreatePipelineBody, ListCardsQuery, MoveCardBody, PipelineItem, StepInput, UpdatePipelineBody } from './tasks.schemas.js';

/** Pipelines and automations are tenant-wide structure, like group categories: writing them needs hierarchy:all. */
export function assertWholeTree(auth: Principal, what: string): void {
  if (!auth.permissions.has('hierarchy:all')) throw new ForbiddenError(`${what} requires the hierarchy:all permission`);
}

async function requirePipeline(tx: Db, tenantId: number, id: number) {
  const p = await cardsRepo.findPipeline(tx, tenantId, id);
  if (!p) throw new NotFoundError('Pipeline', id);
  return p;
}

async function pipelineSteps(tx: Db, tenantId: number, pipelineId: number): Promise<CardStep[]> {
  return (await cardsRepo.stepsOf(tx, tenantId, [pipelineId])).map(({ step }) => step);
}

async function checkStepAssignees(tx: Db, tenantId: number, steps: StepInput[]) {
  for (const id of new Set(steps.map((s) => s.assigneeUserId).filter((v): v is number => v != null))) await requireUser(tx, tenantId, id);
}

const stepValues = (s: StepInput, i: number): cardsRepo.StepValues => ({ name: s.name, position: i + 1, dueInDays: s.dueInDays ?? 0, assigneeUserId: s.assigneeUserId ?? null });

/** A pipeline's recorded fields: its steps in order, as {id, name, dueInDays, assigneeUserId} (a step's position is its place). */
function pipelineFields(p: PipelineItem) {
  return {
    name: p.name, description: p.description, isActive: p.isActive,
    steps: p.steps.map((s) => ({ id: s.id, name: s.name, dueInDays: s.dueInDays, assigneeUserId: s.assignee?.id ?? null })),
  };
}

const pipelineData = (p: PipelineItem) => ({ pipelineId: p.id, name: p.name, isActive: p.isActive, stepIds: p.steps.map((s) => s.id) });

export function createPipelinesService(db: Db) {
  async function visibleCard(tx: Db, auth: Principal, id: number) {
    const scope = await loadGroupScope(tx, auth);
    const visible = await cardsRepo.findVisibleCard(tx, auth, scope, id);
    const card = visible && (await cardsRepo.lockCard(tx, auth.tenantId, id));
    if (!card) throw new NotFoundError('Card', id);
    return card;
  }

  return {
    list: (auth: Principal, query: PageRequest & { isActive?: boolean }) =>
      withTenant(db, auth, async (tx) => {
        const page = toPage(query);
        const { items, total } = await cardsRepo.listPipelines(tx, auth.tenantId, query.isActive, page);
        return pageResult(page, items, total);
      }),

    get: (auth: Principal, id: number) =>
      withTenant(db, auth, async (tx) => {
        const item = await cardsRepo.getPipelineItem(tx, auth.tenantId, id);
        if (!item) throw new NotFoundError('Pipeline', id);
        return item;
      }),

    create: (auth: Principal, body: CreatePipelineBody) =>
      withTenant(db, auth, async (tx) => {
        assertWholeTree(auth, 'Creating a pipeline');
        await checkStepAssignees(tx, auth.tenantId, body.steps);
        if (body.steps.some((s) => s.id !== undefined)) throw new BadRequestError('body/steps of a new pipeline must not have an id');
        const id = await cardsRepo.insertPipeline(tx, auth.tenantId, { name: body.name, description: body.description ?? null, isActive: body.isActive ?? true });
        await cardsRepo.insertSteps(tx, auth.tenantId, id, body.steps.map(stepValues));
        const item = (await cardsRepo.getPipelineItem(tx, auth.tenantId, id))!;
        await recordChanges(tx, auth, [{ type: 'pipeline.created', entityId: id, data: { ...pipelineData(item), steps: pipelineFields(item).steps } }]);
        return item;
      }),

    update: (auth: Principal, id: number, body: UpdatePipelineBody) =>
      withTenant(db, auth, async (tx) => {
        const before = await cardsRepo.getPipelineItem(tx, auth.tenantId, id);
        if (!before) throw new NotFoundError('Pipeline', id);
        assertWholeTree(auth, 'Changing a pipeline');
        if (body.steps) {
          const current = await pipelineSteps(tx, auth.tenantId, id);
          const currentIds = new Set(current.map((s) => s.id));
          const given = body.steps.filter((s) => s.id !== undefined).map((s) => s.id!);
          const foreign = given.filter((s) => !currentIds.has(s));
          if (foreign.length) throw new NotFoundError('Step', foreign);
          if (new Set(given).size !== given.length) throw new BadRequestError('body/steps must not name a step twice');
          await checkStepAssignees(tx, auth.tenantId, body.steps);
          const removed = current.filter((s) => !given.includes(s.id)).map((s) => s.id);
          const holding = await cardsRepo.stepsHoldingCards(tx, auth.tenantId, removed);
          if (holding.length) throw new ConflictError(`Step ${holding.join(', ')} holds cards and cannot be removed`);
          await cardsRepo.deleteSteps(tx, auth.tenantId, removed);
          const fresh: cardsRepo.StepValues[] = [];
          for (const [i, s] of body.steps.entries()) {
            if (s.id !== undefined) await cardsRepo.updateStep(tx, auth.tenantId, s.id, stepValues(s, i));
            else fresh.push(stepValues(s, i));
          }
          await cardsRepo.insertSteps(tx, auth.tenantId, id, fresh);
        }
        const { name, description, isActive } = body;
        await cardsRepo.updatePipeline(tx, auth.tenantId, id, Object.fromEntries(Object.entries({ name, description, isActive }).filter(([, v]) => v !== undefined)));
        const after = (await cardsRepo.getPipelineItem(tx, auth.tenantId, id))!;
        // Step changes (added, renamed, reordered, removed) are part of pipeline.updated: `steps` {from, to}.
        const sent = pipelineFields(after);
        const diff = fieldChanges(pipelineFields(before), { name, description, isActive, steps: body.steps ? sent.steps : undefined });
        if (diff) {
          const beforeIds = new Set(before.steps.map((s) => s.id));
          const afterIds = new Set(after.steps.map((s) => s.id));
          await recordChanges(tx, auth, [{
            type: 'pipeline.updated', entityId: id, changes: diff,
            data: {
              ...pipelineData(after),
              ...(diff.steps ? { addedStepIds: [...afterIds].filter((s) => !beforeIds.has(s)), removedStepIds: [...beforeIds].filter((s) => !afterIds.has(s)) } : {}),
            },
          }]);
        }
        return after;
      }),

    remove: (auth: Principal, id: number) =>
      withTenant(db, auth, async (tx) => {
        const pipeline = await requirePipeline(tx, auth.tenantId, id);
        assertWholeTree(auth, 'Deleting a pipeline');
        if (await cardsRepo.pipelineHasCards(tx, auth.tenantId, id)) throw new ConflictError(`Pipeline ${id} has cards; deactivate it instead`);
        await cardsRepo.deletePipeline(tx, auth.tenantId, id);
        await recordChanges(tx, auth, [{ type: 'pipeline.deleted', entityId: id, data: { pipelineId: id, name: pipeline.name, isActive: pipeline.isActive } }]);
      }),

    board: (auth: Principal, id: number, query: BoardQuery) =>
      withTenant(db, auth, async (tx) => {
        const pipeline = await cardsRepo.getPipelineItem(tx, auth.tenantId, id);
        if (!pipeline) throw new NotFoundError('Pipeline', id);
        const scope = await loadGroupScope(tx, auth);
        const today = await tenantToday(tx, auth.tenantId);
        let groupFilter: { subtreePath?: string; groupId?: number } = {};
        let empty = false;
        if (query.groupId !== undefined) {
          // A filter naming an unknown or invisible group shows empty steps (api-contract §2).
          const group = await repo.findGroupRef(tx, auth.tenantId, query.groupId);
          if (!group || !isGroupVisible(scope, group)) empty = true;
          else groupFilter = query.includeDescendants === false ? { groupId: group.id } : { subtreePath: group.path };
        }
        const { counts, cards } = empty ? { counts: new Map<number, { count: number; overdue: number }>(), cards: new Map<number, CardItem[]>() } : await cardsRepo.boardOf(tx, auth, scope, id, groupFilter, today);
        return {
          pipeline,
          steps: pipeline.steps.map((s) => ({
            id: s.id, name: s.name, position: s.position, count: counts.get(s.id)?.count ?? 0, overdue: counts.get(s.id)?.overdue ?? 0, cards: cards.get(s.id) ?? [],
          })),
        };
      }),

    listCards: (auth: Principal, query: ListCardsQuery) =>
      withTenant(db, auth, async (tx) => {
        const page = toPage(query);
        const scope = await loadGroupScope(tx, auth);
        const { items, total } = await cardsRepo.listCards(tx, auth, scope, query, page, await tenantToday(tx, auth.tenantId));
        return pageResult(page, items, total);
      }),

    addCard: (auth: Principal, pipelineId: number, body: CreateCardBody) =>
      withTenant(db, auth, async (tx) => {
        const pipeline = await requirePipeline(tx, auth.tenantId, pipelineId);
        await requireContact(tx, auth.tenantId, body.contactId);
        if (body.assigneeUserId != null) await requireUser(tx, auth.tenantId, body.assigneeUserId);
        if (body.groupId != null) await requireVisibleGroup(tx, auth, await loadGroupScope(tx, auth), body.groupId);
        if (!pipeline.isActive) throw new ConflictError(`Pipeline ${pipelineId} is inactive`);
        const existing = await cardsRepo.activeCardOf(tx, auth.tenantId, pipelineId, body.contactId);
        const duplicate = () => new ConflictError(`Contact ${body.contactId} is already active in pipeline ${pipelineId} (card ${existing ?? ''})`.replace(' (card )', ''));
        if (existing !== undefined) throw duplicate();
        const [firstStep] = await pipelineSteps(tx, auth.tenantId, pipelineId);
        const today = await tenantToday(tx, auth.tenantId);
        const card = await addCard(tx, auth, { pipelineId, pipelineName: pipeline.name, firstStep, contactId: body.contactId, assigneeUserId: body.assigneeUserId ?? null, groupId: body.groupId ?? null }, today);
        if (!card) throw duplicate();
        return cardsRepo.getCardItem(tx, auth.tenantId, card.id, today);
      }),

    moveCard: (auth: Principal, id: number, body: MoveCardBody) =>
      withTenant(db, auth, async (tx) => {
        if ((body.stepId === undefined) === (body.direction === undefined)) throw new BadRequestError('body must have exactly one of stepId and direction');
        const card = await visibleCard(tx, auth, id);
        const steps = await pipelineSteps(tx, auth.tenantId, card.pipelineId);
        const at = steps.findIndex((s) => s.id === card.stepId);
        let to: CardStep | null;
        if (body.stepId !== undefined) {
          const target = steps.find((s) => s.id === body.stepId);
          if (!target) throw new NotFoundError('Step', body.stepId);
          to = target;
        } else if (body.direction === 'next') to = steps[at + 1] ?? null;
        else {
          if (at <= 0) throw new ConflictError(`Card ${id} is in the first step; it cannot move back`);
          to = steps[at - 1];
        }
        if (card.status !== 'Active') throw new ConflictError(`Card ${id} is ${card.status}; only an Active card moves`);
        const today = await tenantToday(tx, auth.tenantId);
        if (to?.id !== card.stepId) await moveCard(tx, auth, card, steps[at], to, today);
        return cardsRepo.getCardItem(tx, auth.tenantId, id, today);
      }),

    removeCard: (auth: Principal, id: number) =>
      withTenant(db, auth, async (tx) => {
        const card = await visibleCard(tx, auth, id);
        if (card.status === 'Active') await removeCard(tx, auth, card);
      }),
  };
}
