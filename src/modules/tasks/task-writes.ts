import { sql } from 'drizzle-orm';
import { fieldChanges, recordChanges, type Actor, type NewChange } from '../../changes/recorder.js';
import type { Db } from '../../db/client.js';
import type { TaskStatus } from '../../db/schema/index.js';
import { ConflictError } from '../../lib/errors.js';
import * as repo from './tasks.repository.js';

/**
 * The writes every path shares (the API, cards moving, automations): each records its changes in
 * the same transaction, in ONE recordChanges call however many tasks it touches. Every task change
 * carries data {contactId, groupId, confidential, title} (timeline, notifications and webhooks read them).
 */

const ALLOWED: Record<TaskStatus, readonly TaskStatus[]> = {
  Open: ['InProgress', 'Done', 'Cancelled'],
  InProgress: ['Open', 'Done', 'Cancelled'],
  Done: ['Open'],
  Cancelled: ['Open'],
};

export function canTransition(from: TaskStatus, to: TaskStatus): boolean {
  return from === to || ALLOWED[from].includes(to);
}

export function assertTransition(from: TaskStatus, to: TaskStatus): void {
  if (!canTransition(from, to)) throw new ConflictError(`A task cannot go from ${from} to ${to}`);
}

export function taskData(row: repo.TaskRow, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { contactId: row.contactId, groupId: row.groupId, confidential: row.confidential, title: row.title, ...extra };
}

/** The wire names of a task's fields, for the {from, to} diff of task.updated. */
export function wireFields(row: Partial<repo.TaskRow>): Record<string, unknown> {
  const out: Record<string, unknown> = {
    title: row.title, description: row.description, status: row.status, priority: row.priority, dueDate: row.dueDate,
    confidential: row.confidential, assigneeUserId: row.assigneeUserId, contactId: row.contactId, groupId: row.groupId, requestId: row.requestId,
  };
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined));
}

/** Inserts tasks and records task.created (and task.assigned for those with an assignee). */
export async function openTasks(tx: Db, actor: Actor, values: repo.NewTaskValues[]): Promise<repo.TaskRow[]> {
  const rows = await repo.insertTasks(tx, actor.tenantId, values);
  const items: NewChange[] = [];
  for (const row of rows) {
    items.push({ type: 'task.created', entityId: row.id, data: taskData(row, { assigneeUserId: row.assigneeUserId, status: row.status, dueDate: row.dueDate, cardId: row.cardId }) });
    if (row.assigneeUserId !== null) items.push({ type: 'task.assigned', entityId: row.id, data: taskData(row, { assigneeUserId: row.assigneeUserId }) });
  }
  await recordChanges(tx, actor, items);
  return rows;
}

/** The changes of one task's update: task.updated with the diff, plus task.assigned / task.completed. */
export function updateChanges(before: repo.TaskRow, after: repo.TaskRow, extra: Record<string, unknown> = {}): NewChange[] {
  const diff = fieldChanges(wireFields(before), wireFields(after));
  if (!diff) return [];
  const items: NewChange[] = [{ type: 'task.updated', entityId: after.id, changes: diff, data: taskData(after, extra) }];
  if (diff.assigneeUserId && after.assigneeUserId !== null) items.push({ type: 'task.assigned', entityId: after.id, data: taskData(after, { assigneeUserId: after.assigneeUserId }) });
  if (diff.status && after.status === 'Done') items.push({ type: 'task.completed', entityId: after.id, data: taskData(after) });
  return items;
}

/** Columns that go with a status: completedAt is set on Done and cleared otherwise. */
export function statusValues(status: TaskStatus): Partial<repo.NewTaskValues> {
  return { status, completedAt: status === 'Done' ? sql`now()` as unknown as Date : null };
}

/**
 * Moves tasks to a status in one statement (bulk complete/cancel, a card leaving its step or being
 * removed); the caller has checked each transition. Returns the updated rows.
 */
export async function setTasksStatus(tx: Db, actor: Actor, before: readonly repo.TaskRow[], status: TaskStatus, extra: Record<string, unknown> = {}): Promise<repo.TaskRow[]> {
  const moving = before.filter((t) => t.status !== status);
  const after = await repo.updateTasks(tx, actor.tenantId, moving.map((t) => t.id), statusValues(status));
  const byId = new Map(moving.map((t) => [t.id, t]));
  await recordChanges(tx, actor, after.flatMap((row) => updateChanges(byId.get(row.id)!, row, extra)));
  return after;
}
