import type { Actor } from '../../changes/recorder.js';
import type { Db } from '../../db/client.js';
import { addDays } from '../../lib/periods.js';
import * as cardsRepo from './pipelines.repository.js';
import { openTasks, setTasksStatus } from './task-writes.js';
import * as repo from './tasks.repository.js';

/**
 * The card rules shared by the API and the automations: entering a step opens its task (title =
 * step name and contact name, due = today + dueInDays, assigned to the step's assignee or else the
 * card's), leaving a step completes the open task, removing a card cancels it.
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
  values: { pipelineId: number; firstStep: CardStep; contactId: number; assigneeUserId: number | null; groupId: number | null },
  today: string,
): Promise<cardsRepo.CardRow | undefined> {
  const card = await cardsRepo.insertCard(tx, actor.tenantId, {
    pipelineId: values.pipelineId, stepId: values.firstStep.id, contactId: values.contactId, assigneeUserId: values.assigneeUserId, groupId: values.groupId,
  });
  if (card) await openStepTask(tx, actor, card, values.firstStep, today);
  return card;
}

/** Completes the open task of the step the card leaves, then enters `to` (or completes the card when `to` is null). */
export async function moveCard(tx: Db, actor: Actor, card: cardsRepo.CardRow, to: CardStep | null, today: string): Promise<void> {
  const open = await repo.openTasksOfCards(tx, actor.tenantId, [card.id]);
  await setTasksStatus(tx, actor, open, 'Done', { cardId: card.id });
  if (to) {
    await cardsRepo.updateCard(tx, actor.tenantId, card.id, { stepId: to.id, entered: true });
    await openStepTask(tx, actor, card, to, today);
  } else {
    await cardsRepo.updateCard(tx, actor.tenantId, card.id, { status: 'Completed', completed: true });
  }
}

export async function removeCard(tx: Db, actor: Actor, card: cardsRepo.CardRow): Promise<void> {
  const open = await repo.openTasksOfCards(tx, actor.tenantId, [card.id]);
  await setTasksStatus(tx, actor, open, 'Cancelled', { cardId: card.id });
  await cardsRepo.updateCard(tx, actor.tenantId, card.id, { status: 'Removed', completed: true });
}
