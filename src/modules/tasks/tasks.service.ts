import { recordChanges, type NewChange } from '../../changes/recorder.js';
import { withTenant, type Db } from '../../db/client.js';
import type { TaskStatus } from '../../db/schema/index.js';
import { BadRequestError, ForbiddenError, NotFoundError } from '../../lib/errors.js';
import { pageResult, toPage } from '../../lib/pagination.js';
import type { Principal } from '../../plugins/auth.js';
import { isGroupVisible, loadGroupScope, type GroupScope } from '../groups/groups.visibility.js';
import { checkTaskRefs, requireUser, tenantToday } from './task-refs.js';
import { assertTransition, canTransition, openTasks, setTasksStatus, statusValues, taskData, updateChanges, wireFields } from './task-writes.js';
import * as repo from './tasks.repository.js';

/** The task visibility rule, for other modules that list tasks (search). */
export { taskVisibility } from './tasks.repository.js';
import type { BulkBody, CommentBody, CreateTaskBody, ListTasksQuery, UpdateTaskBody } from './tasks.schemas.js';

const ASSIGNEE_ONLY = 'Without tasks:write, the assignee may only change the status of a task and comment on it';

/**
 * A task the caller may write: visible (else 404) and either tasks:write or (for status changes
 * and comments) being its assignee (else 403).
 */
async function writableTask(tx: Db, auth: Principal, scope: GroupScope, id: number, today: string, assigneeMay: boolean | ((row: repo.TaskRow) => boolean)) {
  const visible = await repo.findVisibleTask(tx, auth, scope, id, today);
  const locked = visible && (await repo.lockTask(tx, auth.tenantId, id));
  if (!visible || !locked) throw new NotFoundError('Task', id);
  const found = { ...visible, row: locked };
  if (auth.permissions.has('tasks:write')) return found;
  const may = typeof assigneeMay === 'function' ? assigneeMay(found.row) : assigneeMay;
  if (may && found.row.assigneeUserId === auth.userId) return found;
  throw new ForbiddenError(found.row.assigneeUserId === auth.userId ? ASSIGNEE_ONLY : 'Changing this task requires the tasks:write permission');
}

export function createTasksService(db: Db) {
  return {
    list: (auth: Principal, query: ListTasksQuery) =>
      withTenant(db, auth, async (tx) => {
        const page = toPage(query);
        const scope = await loadGroupScope(tx, auth);
        const filter: repo.TaskFilter = {
          assignee: query.assignee === undefined || query.assignee === 'me' || query.assignee === 'unassigned' ? query.assignee : Number(query.assignee),
          status: query.status, priority: query.priority, overdue: query.overdue, dueFrom: query.dueFrom, dueTo: query.dueTo,
          contactId: query.contactId, groupId: query.groupId, pipelineId: query.pipelineId, q: query.q, sort: query.sort,
        };
        if (query.groupId !== undefined) {
          // A filter naming an unknown or invisible group lists nothing (api-contract §2).
          const group = await repo.findGroupRef(tx, auth.tenantId, query.groupId);
          if (!group || !isGroupVisible(scope, group)) return pageResult(page, [], 0);
          if (query.includeDescendants !== false) filter.subtreePath = group.path;
        }
        // The tenant's date is computed inside the list statement: no round trip for the time zone.
        const { items, total } = await repo.listTasks(tx, auth, scope, filter, page);
        return pageResult(page, items, total);
      }),

    get: (auth: Principal, id: number) =>
      withTenant(db, auth, async (tx) => {
        const scope = await loadGroupScope(tx, auth);
        const found = await repo.findVisibleTask(tx, auth, scope, id, await tenantToday(tx, auth.tenantId));
        if (!found) throw new NotFoundError('Task', id);
        const comments = await repo.listComments(tx, auth.tenantId, id);
        const history = await repo.taskHistory(tx, auth.tenantId, id);
        return { ...found.item, comments, history };
      }),

    create: (auth: Principal, body: CreateTaskBody) =>
      withTenant(db, auth, async (tx) => {
        const scope = await loadGroupScope(tx, auth);
        const { request } = await checkTaskRefs(tx, auth, scope, body);
        const [row] = await openTasks(tx, auth, [{
          title: body.title,
          description: body.description ?? null,
          priority: body.priority ?? 'Normal',
          dueDate: body.dueDate ?? null,
          confidential: body.confidential ?? false,
          assigneeUserId: body.assigneeUserId ?? null,
          createdByUserId: auth.userId,
          // A task about a request is about its contact unless told otherwise.
          contactId: body.contactId ?? request?.contactId ?? null,
          groupId: body.groupId ?? null,
          requestId: body.requestId ?? null,
        }]);
        return repo.getTaskItem(tx, auth.tenantId, row.id, await tenantToday(tx, auth.tenantId));
      }),

    update: (auth: Principal, id: number, body: UpdateTaskBody) =>
      withTenant(db, auth, async (tx) => {
        const scope = await loadGroupScope(tx, auth);
        const today = await tenantToday(tx, auth.tenantId);
        // Only what differs from the stored task counts: a client may PUT back what it read.
        const changed = (r: repo.TaskRow) => {
          const stored = wireFields(r);
          return Object.entries(body).filter(([k, v]) => v !== undefined && v !== (stored[k] ?? null)).map(([k]) => k);
        };
        const { row } = await writableTask(tx, auth, scope, id, today, (r) => changed(r).every((k) => k === 'status'));
        if (body.status !== undefined) assertTransition(row.status, body.status);
        const keys = new Set(changed(row));
        const { status, ...rest } = Object.fromEntries(Object.entries(body).filter(([k]) => keys.has(k))) as UpdateTaskBody;
        // References are checked when they change (a moved group must be visible, and so on).
        await checkTaskRefs(tx, auth, scope, rest);
        const values: Partial<repo.NewTaskValues> = { ...rest };
        if (status !== undefined && status !== row.status) Object.assign(values, statusValues(status));
        if (Object.keys(values).length > 0) {
          const after = await repo.updateTask(tx, auth.tenantId, id, values);
          await recordChanges(tx, auth, updateChanges(row, after));
        }
        return repo.getTaskItem(tx, auth.tenantId, id, today);
      }),

    remove: (auth: Principal, id: number) =>
      withTenant(db, auth, async (tx) => {
        const scope = await loadGroupScope(tx, auth);
        const { row } = await writableTask(tx, auth, scope, id, await tenantToday(tx, auth.tenantId), false);
        await repo.deleteTask(tx, auth.tenantId, id);
        // The catalog has no task.deleted: the deletion is a task.updated marked deleted.
        await recordChanges(tx, auth, [{ type: 'task.updated', entityId: id, changes: { deleted: { from: false, to: true } }, data: taskData(row, { deleted: true }) }]);
      }),

    comment: (auth: Principal, id: number, body: CommentBody) =>
      withTenant(db, auth, async (tx) => {
        const scope = await loadGroupScope(tx, auth);
        const { row } = await writableTask(tx, auth, scope, id, await tenantToday(tx, auth.tenantId), true);
        const comment = await repo.insertComment(tx, auth.tenantId, id, auth.userId, body.body);
        await recordChanges(tx, auth, [{ type: 'task.updated', entityId: id, data: taskData(row, { commentId: comment.id }) }]);
        return comment;
      }),

    bulk: (auth: Principal, body: BulkBody) =>
      withTenant(db, auth, async (tx) => {
        if (body.action === 'assign' && body.assigneeUserId === undefined) throw new BadRequestError('body/assigneeUserId is required for the assign action');
        if (body.action === 'assign' && body.assigneeUserId !== null && body.assigneeUserId !== undefined) await requireUser(tx, auth.tenantId, body.assigneeUserId);
        const scope = await loadGroupScope(tx, auth);
        const found = await repo.findVisibleTasks(tx, auth, scope, body.ids);
        const skipped: { id: number; reason: string }[] = [];
        const ready: repo.TaskRow[] = [];
        const target: TaskStatus | undefined = body.action === 'complete' ? 'Done' : body.action === 'cancel' ? 'Cancelled' : undefined;
        for (const id of body.ids) {
          const row = found.get(id);
          if (!row) skipped.push({ id, reason: `Task with id ${id} not found` });
          else if (!auth.permissions.has('tasks:write') && (body.action === 'assign' || row.assigneeUserId !== auth.userId)) skipped.push({ id, reason: 'Forbidden: requires tasks:write' });
          else if (target && row.status === target) skipped.push({ id, reason: `Already ${target}` });
          else if (target && !canTransition(row.status, target)) skipped.push({ id, reason: `A task cannot go from ${row.status} to ${target}` });
          else if (!target && row.assigneeUserId === (body.assigneeUserId ?? null)) skipped.push({ id, reason: 'Already assigned to that user' });
          else ready.push(row);
        }
        let updated: repo.TaskRow[];
        if (target) updated = await setTasksStatus(tx, auth, ready, target);
        else {
          updated = await repo.updateTasks(tx, auth.tenantId, ready.map((r) => r.id), { assigneeUserId: body.assigneeUserId ?? null });
          const before = new Map(ready.map((r) => [r.id, r]));
          const items: NewChange[] = updated.flatMap((r) => updateChanges(before.get(r.id)!, r));
          await recordChanges(tx, auth, items);
        }
        return { updated: updated.map((r) => r.id).sort((a, b) => a - b), skipped };
      }),
  };
}

export type TasksService = ReturnType<typeof createTasksService>;
