import { fieldChanges, recordChanges } from '../../changes/recorder.js';
import { withTenant, type Db } from '../../db/client.js';
import type { REQUEST_TYPES } from '../../db/schema/enums.js';
import { ForbiddenError, NotFoundError } from '../../lib/errors.js';
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

/**
 * Counseling and Welfare requests are confidential (modules-contract §0): only holders of care:read
 * read them; to anyone else they do not exist (left out of lists, 404 by id).
 */
export const CONFIDENTIAL_REQUEST_TYPES: readonly RequestType[] = ['Counseling', 'Welfare'];

export function hiddenRequestTypes(auth: Principal): readonly RequestType[] {
  return auth.permissions.has('care:read') ? [] : CONFIDENTIAL_REQUEST_TYPES;
}

/** The request, or 404 when missing or confidential to the caller. */
async function readableRequest(tx: Db, auth: Principal, id: number) {
  const row = await repo.findRequest(tx, auth.tenantId, id);
  if (!row || hiddenRequestTypes(auth).includes(row.type as RequestType)) throw new NotFoundError('Request', id);
  return row;
}

export async function listRequests(db: Db, auth: Principal, query: PageRequest & repo.RequestFilter) {
  const page = toPage(query);
  return withTenant(db, auth, async (tx) => {
    const { rows, total } = await repo.listRequests(tx, auth.tenantId, { ...query, hiddenTypes: hiddenRequestTypes(auth) }, page.limit, page.offset);
    return pageResult(page, rows.map(toRequestItem), total);
  });
}

/** The timeline hides confidential requests' changes without care:read. */
const CONFIDENTIAL_TYPES: ReadonlySet<string> = new Set(CONFIDENTIAL_REQUEST_TYPES);

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
    const before = await readableRequest(tx, auth, id);
    if (body.type && hiddenRequestTypes(auth).includes(body.type as RequestType)) throw new ForbiddenError('Counseling and Welfare requests need care:read');
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
    const before = await readableRequest(tx, auth, id);
    if (!(await repo.deleteRequest(tx, auth.tenantId, id))) throw new NotFoundError('Request', id);
    // §7 has no request.deleted: the deletion is a request.updated marked deleted.
    await recordChanges(tx, auth, [{ type: 'request.updated', entityId: id, data: requestData(before, { deleted: true }) }]);
  });
}
