import { fieldChanges, recordChanges } from '../../changes/recorder.js';
import { withTenant, type Db } from '../../db/client.js';
import type { REQUEST_TYPES } from '../../db/schema/enums.js';
import { NotFoundError } from '../../lib/errors.js';
import { pageResult, toPage, type PageRequest } from '../../lib/pagination.js';
import type { Principal } from '../../plugins/auth.js';
import { existingContactIds } from './contacts.repository.js';
import * as repo from './requests.repository.js';
import type { CreateRequestBody, UpdateRequestBody } from './requests.schemas.js';

/** Pastoral and prayer requests of contacts (api-contract §5). */

type RequestType = (typeof REQUEST_TYPES)[number];

export function toRequestItem(row: repo.RequestRow) {
  return {
    id: row.id,
    contactId: row.contactId,
    type: row.type as RequestType,
    description: row.description ?? '',
    status: row.status,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

async function requireContact(tx: Db, tenantId: number, contactId: number) {
  if (!(await existingContactIds(tx, tenantId, [contactId])).has(contactId)) throw new NotFoundError('Contact', contactId);
}

export async function listRequests(db: Db, auth: Principal, query: PageRequest & repo.RequestFilter) {
  const page = toPage(query);
  return withTenant(db, auth, async (tx) => {
    const { rows, total } = await repo.listRequests(tx, auth.tenantId, query, page.limit, page.offset);
    return pageResult(page, rows.map(toRequestItem), total);
  });
}

/** Counseling and Welfare requests are confidential (care:read, modules-contract §0): the timeline hides their changes without it. */
const CONFIDENTIAL_TYPES: ReadonlySet<string> = new Set(['Counseling', 'Welfare']);

function requestData(row: repo.RequestRow, extra: Record<string, unknown> = {}) {
  return {
    contactId: row.contactId, type: row.type, requestId: row.id, status: row.status,
    ...(CONFIDENTIAL_TYPES.has(row.type) ? { confidential: true } : {}), ...extra,
  };
}

export async function createRequest(db: Db, auth: Principal, body: CreateRequestBody) {
  return withTenant(db, auth, async (tx) => {
    await requireContact(tx, auth.tenantId, body.contactId);
    const row = await repo.insertRequest(tx, auth.tenantId, body);
    await recordChanges(tx, auth, [{ type: 'request.created', entityId: row.id, data: requestData(row) }]);
    return toRequestItem(row);
  });
}

export async function updateRequest(db: Db, auth: Principal, id: number, body: UpdateRequestBody) {
  return withTenant(db, auth, async (tx) => {
    const before = await repo.findRequest(tx, auth.tenantId, id);
    if (!before) throw new NotFoundError('Request', id);
    if (body.contactId !== undefined) await requireContact(tx, auth.tenantId, body.contactId);
    const row = (await repo.updateRequest(tx, auth.tenantId, id, body))!;
    const diff = fieldChanges(before, body);
    if (diff) {
      // Confidential if it was or now is (a Counseling request retyped to Prayer keeps its history hidden).
      const confidential = CONFIDENTIAL_TYPES.has(before.type) || CONFIDENTIAL_TYPES.has(row.type);
      await recordChanges(tx, auth, [{ type: 'request.updated', entityId: id, changes: diff, data: requestData(row, confidential ? { confidential: true } : {}) }]);
    }
    return toRequestItem(row);
  });
}

export async function deleteRequest(db: Db, auth: Principal, id: number): Promise<void> {
  await withTenant(db, auth, async (tx) => {
    const before = await repo.findRequest(tx, auth.tenantId, id);
    if (!before || !(await repo.deleteRequest(tx, auth.tenantId, id))) throw new NotFoundError('Request', id);
    // §7 has no request.deleted: the deletion is a request.updated marked deleted.
    await recordChanges(tx, auth, [{ type: 'request.updated', entityId: id, data: requestData(before, { deleted: true }) }]);
  });
}
