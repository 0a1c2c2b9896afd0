import { Compile } from 'typebox/compile';
import type { SQL } from 'drizzle-orm';
import { fieldChanges, recordChanges } from '../../changes/recorder.js';
import { withTenant, type Db } from '../../db/client.js';
import { ForbiddenError, NotFoundError } from '../../lib/errors.js';
import { pageResult, toPage, type PageRequest } from '../../lib/pagination.js';
import type { Principal } from '../../plugins/auth.js';
import { contactIdsSql } from './advanced.repository.js';
import { contactPage, countMatches, evaluatorFor, type Evaluator } from './advanced.service.js';
import { checkCriteria, mayEvaluate, type CheckedCriteria } from './criteria.js';
import * as repo from './lists.repository.js';
import {
  Criteria, type AdvancedSearchBody, type CreateSavedListBody, type ListsQuery, type SavedList, type UpdateSavedListBody,
} from './search.schemas.js';

/** POST /api/search/contacts: the conditions checked, then one statement for the page and its total. */
export function advancedSearch(db: Db, auth: Principal, body: AdvancedSearchBody) {
  const criteria = checkCriteria(body, auth);
  return withTenant(db, auth, async (tx) => {
    const evaluator = await evaluatorFor(tx, auth);
    const [predicate] = await evaluator.compile([criteria], { strictGroups: true });
    return contactPage(tx, auth, predicate, criteria, body);
  });
}

/** What is stored: the criteria as given, with the defaults written out. */
function storedCriteria(criteria: Criteria): Criteria {
  return {
    match: criteria.match ?? 'all',
    conditions: criteria.conditions.map((c) => ({ field: c.field, operator: c.operator, ...(c.value === undefined ? {} : { value: c.value }) })),
    sort: criteria.sort ?? 'lastName',
  };
}

/**
 * Stored criteria as the reader may evaluate them: null when they hold conditions the reader may
 * not read (giving without finance:read, attendance without attendance:read, memberships without
 * groups:read), or no longer pass
 * the checks.
 */
const StoredCriteria = Compile(Criteria);

function readable(stored: unknown, auth: Principal): CheckedCriteria | null {
  if (!StoredCriteria.Check(stored)) return null;
  try {
    const checked = checkCriteria(stored, { ...auth, permissions: new Set([...auth.permissions, 'finance:read', 'attendance:read', 'groups:read']) });
    return mayEvaluate(checked.conditions, auth) ? checked : null;
  } catch {
    return null;
  }
}

/** The items of saved lists, with each list's current count: all counted in one statement. */
async function toItems(tx: Db, auth: Principal, evaluator: Evaluator, rows: repo.SavedListRow[]): Promise<SavedList[]> {
  const checked = rows.map((r) => readable(r.criteria, auth));
  const evaluable = checked.filter((c): c is CheckedCriteria => c !== null);
  const predicates = await evaluator.compile(evaluable, { strictGroups: false });
  const counts = await countMatches(tx, auth.tenantId, predicates);
  let next = 0;
  return rows.map((r, i) => ({
    id: r.id,
    name: r.name,
    criteria: r.criteria as Criteria,
    shared: r.shared,
    owner: { id: r.ownerUserId, username: r.ownerUsername },
    count: checked[i] === null ? null : counts[next++].total,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  }));
}

async function visibleList(tx: Db, auth: Principal, id: number): Promise<repo.SavedListRow> {
  const row = await repo.findList(tx, auth.tenantId, auth.userId, id);
  if (!row) throw new NotFoundError('Saved list', id);
  return row;
}

/** The owner may change a list; others only a shared one, and only with contacts:write. */
function assertWritable(auth: Principal, row: repo.SavedListRow): void {
  if (row.ownerUserId === auth.userId) return;
  if (!auth.permissions.has('contacts:write')) throw new ForbiddenError('Only its owner, or a holder of contacts:write, may change a shared list');
}

/** What saved-list changes carry (the criteria only in an update's from/to). */
const listData = (l: { id: number; name: string; shared: boolean }, ownerUserId: number) => ({ savedListId: l.id, name: l.name, shared: l.shared, ownerUserId });

async function oneItem(tx: Db, auth: Principal, id: number): Promise<SavedList> {
  const evaluator = await evaluatorFor(tx, auth);
  const [item] = await toItems(tx, auth, evaluator, [await visibleList(tx, auth, id)]);
  return item;
}

/** A saved list's current members as the caller may see them: 404 unless the caller's or shared, 403 if unreadable. */
async function evaluateList(tx: Db, auth: Principal, id: number): Promise<{ criteria: CheckedCriteria; predicate: SQL }> {
  const row = await visibleList(tx, auth, id);
  const criteria = readable(row.criteria, auth);
  if (!criteria) throw new ForbiddenError('This list has conditions on giving or attendance that you may not read');
  const [predicate] = await (await evaluatorFor(tx, auth)).compile([criteria], { strictGroups: false });
  return { criteria, predicate };
}

/**
 * For other modules (e.g. a message to a saved list): the list's current members, as the caller
 * may see them, as a subquery of contact ids for a statement in the caller's transaction.
 * 404 when the list is neither the caller's nor shared; 403 when it reads what the caller may not.
 */
export async function savedListContactIdsSql(tx: Db, auth: Principal, listId: number): Promise<SQL> {
  const { predicate } = await evaluateList(tx, auth, listId);
  return contactIdsSql(auth.tenantId, predicate);
}

export function createListsService(db: Db) {
  return {
    list(auth: Principal, query: ListsQuery & PageRequest) {
      const page = toPage(query);
      return withTenant(db, auth, async (tx) => {
        const { rows, total } = await repo.listLists(tx, auth.tenantId, auth.userId, { shared: query.shared }, page);
        const evaluator = await evaluatorFor(tx, auth);
        return pageResult(page, await toItems(tx, auth, evaluator, rows), total);
      });
    },

    get(auth: Principal, id: number) {
      return withTenant(db, auth, (tx) => oneItem(tx, auth, id));
    },

    create(auth: Principal, body: CreateSavedListBody) {
      const criteria = checkCriteria(body.criteria, auth, 'body/criteria');
      return withTenant(db, auth, async (tx) => {
        // Groups named by memberOf must exist and be visible now (404), as for a search.
        await (await evaluatorFor(tx, auth)).compile([criteria], { strictGroups: true });
        const id = await repo.insertList(tx, auth.tenantId, auth.userId, { name: body.name, criteria: storedCriteria(body.criteria), shared: body.shared ?? false });
        const item = await oneItem(tx, auth, id);
        await recordChanges(tx, auth, [{ type: 'saved_list.created', entityId: id, data: listData(item, auth.userId) }]);
        return item;
      });
    },

    update(auth: Principal, id: number, body: UpdateSavedListBody) {
      const criteria = body.criteria ? checkCriteria(body.criteria, auth, 'body/criteria') : undefined;
      return withTenant(db, auth, async (tx) => {
        const row = await visibleList(tx, auth, id);
        assertWritable(auth, row);
        if (body.shared !== undefined && body.shared !== row.shared && row.ownerUserId !== auth.userId) {
          throw new ForbiddenError('Only its owner may change whether a list is shared');
        }
        if (criteria) await (await evaluatorFor(tx, auth)).compile([criteria], { strictGroups: true });
        await repo.updateList(tx, auth.tenantId, id, {
          ...(body.name !== undefined ? { name: body.name } : {}),
          ...(body.criteria ? { criteria: storedCriteria(body.criteria) } : {}),
          ...(body.shared !== undefined ? { shared: body.shared } : {}),
        });
        const item = await oneItem(tx, auth, id);
        // Both sides as stored (jsonb orders the criteria's keys).
        const diff = fieldChanges({ name: row.name, criteria: row.criteria, shared: row.shared }, {
          name: body.name === undefined ? undefined : item.name,
          criteria: body.criteria === undefined ? undefined : item.criteria,
          shared: body.shared === undefined ? undefined : item.shared,
        });
        if (diff) await recordChanges(tx, auth, [{ type: 'saved_list.updated', entityId: id, changes: diff, data: listData(item, row.ownerUserId) }]);
        return item;
      });
    },

    remove(auth: Principal, id: number) {
      return withTenant(db, auth, async (tx) => {
        const row = await visibleList(tx, auth, id);
        assertWritable(auth, row);
        await repo.deleteList(tx, auth.tenantId, id);
        await recordChanges(tx, auth, [{ type: 'saved_list.deleted', entityId: id, data: listData(row, row.ownerUserId) }]);
      });
    },

    /** The list's members now (a smart list), as the reader may see them. */
    contacts(auth: Principal, id: number, request: PageRequest) {
      return withTenant(db, auth, async (tx) => {
        const { criteria, predicate } = await evaluateList(tx, auth, id);
        return contactPage(tx, auth, predicate, criteria, request);
      });
    },
  };
}
