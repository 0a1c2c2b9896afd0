import { recordChanges, type Actor } from '../../changes/recorder.js';
import type { Db } from '../../db/client.js';
import { addDays } from '../../lib/periods.js';
import * as cardsRepo from './pipelines.repository.js';
import { openTasks, setTasksStatus } from './task-writes.js';
import * as repo from './tasks.repository.js';

/**
 * The card rules shared by the API, the automations and the demo seed: entering a step opens its task (title =
 * step name and contact name, due = today + dueInDays, assigned to the step's assignee or else the
 * card's), leaving a step completes the open task, removing a card cancels it. Each records its
 * card change (card.created / card.moved / card.deleted, before the task changes it causes) in the
 * caller's transaction, with the caller's actor (the worker's has no user).
 */

export interface CardStep {
  id: number;
  name: string;
  dueInDays: number;
  assigneeUserId: number | null;
}

export function stepTaskTitle(stepName: string, contact: { firstName: string; lastName: string }): string {
  const name = `${contact.firstName} ${contact.lastName}`.trim();
  return (name ? `${stepName}: ${name}` : stepName).slice(0, 200);
}

/** What every card change carries (timeline, notifications, webhooks and automations read it). */
function cardData(card: cardsRepo.CardRow, extra: Record<string, unknown>): Record<string, unknown> {
  return { contactId: card.contactId, pipelineId: card.pipelineId, groupId: card.groupId, assigneeUserId: card.assigneeUserId, ...extra };
}

async function openStepTask(tx: Db, actor: Actor, card: cardsRepo.CardRow, step: CardStep, today: string) {
  const contact = await repo.findContactRef(tx, actor.tenantId, card.contactId);
  await openTasks(tx, actor, [{
    title: stepTaskTitle(step.name, contact ?? { firstName: '', lastName: '' }),
    dueDate: addDays(today, step.dueInDays),
    assigneeUserId: step.assigneeUserId ?? card.assigneeUserId,
    createdByUserId: actor.userId ?? null,
    contactId: card.contactId,
    groupId: card.groupId,
    cardId: card.id,
  }]);
}

/** A new card in the first step, with that step's task; undefined when the contact already has an active card there. */
export async function addCard(
  tx: Db,
  actor: Actor,
  values: { pipelineId: number; pipelineName: string; firstStep: CardStep; contactId: number; assigneeUserId: number | null; groupId: number | null },
  today: string,
): Promise<cardsRepo.CardRow | undefined> {
  const card = await cardsRepo.insertCard(tx, actor.tenantId, {
    pipelineId: values.pipelineId, stepId: values.firstStep.id, contactId: values.contactId, assigneeUserId: values.assigneeUserId, groupId: values.groupId,
  });
  if (!card) return undefined;
  await recordChanges(tx, actor, [{
    type: 'card.created', entityId: card.id,
    data: cardData(card, { stepId: card.stepId, pipelineName: values.pipelineName, stepName: values.firstStep.name, status: card.status }),
  }]);
  await openStepTask(tx, actor, card, values.firstStep, today);
  return card;
}

/**
 * Completes the open task of the step `from` the card leaves, then enters `to` (or completes the
 * card when `to` is null). card.moved carries stepId {from, to} (to null when the card finished the
 * pipeline, with status Active → Completed).
 */
export async function moveCard(tx: Db, actor: Actor, card: cardsRepo.CardRow, from: CardStep, to: CardStep | null, today: string): Promise<void> {
  await recordChanges(tx, actor, [{
    type: 'card.moved', entityId: card.id,
    changes: { stepId: { from: card.stepId, to: to?.id ?? null }, ...(to ? {} : { status: { from: card.status, to: 'Completed' } }) },
    data: cardData(card, { fromStepId: card.stepId, toStepId: to?.id ?? null, fromStepName: from.name, toStepName: to?.name ?? null, status: to ? card.status : 'Completed' }),
  }]);
  const open = await repo.openTasksOfCards(tx, actor.tenantId, [card.id]);
  await setTasksStatus(tx, actor, open, 'Done', { cardId: card.id });
  if (to) {
    await cardsRepo.updateCard(tx, actor.tenantId, card.id, { stepId: to.id, entered: true });
    await openStepTask(tx, actor, card, to, today);
  } else {
    await cardsRepo.updateCard(tx, actor.tenantId, card.id, { status: 'Completed', completed: true });
  }
}

/** Takes an Active card off its pipeline (status Removed): card.deleted, then its open task cancelled. */
export async function removeCard(tx: Db, actor: Actor, card: cardsRepo.CardRow): Promise<void> {
  await recordChanges(tx, actor, [{ type: 'card.deleted', entityId: card.id, data: cardData(card, { stepId: card.stepId, status: 'Removed' }) }]);
  const open = await repo.openTasksOfCards(tx, actor.tenantId, [card.id]);
  await setTasksStatus(tx, actor, open, 'Cancelled', { cardId: card.id });
  await cardsRepo.updateCard(tx, actor.tenantId, card.id, { status: 'Removed', completed: true });
}
