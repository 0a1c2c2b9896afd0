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

export async function createRequest(db: Db, auth: Principal, body: CreateRequestBody) {
  return withTenant(db, auth, async (tx) => {
    await requireContact(tx, auth.tenantId, body.contactId);
    return toRequestItem(await repo.insertRequest(tx, auth.tenantId, body));
  });
}

export async function updateRequest(db: Db, auth: Principal, id: number, body: UpdateRequestBody) {
  return withTenant(db, auth, async (tx) => {
    if (!(await repo.findRequest(tx, auth.tenantId, id))) throw new NotFoundError('Request', id);
    if (body.contactId !== undefined) await requireContact(tx, auth.tenantId, body.contactId);
    const row = await repo.updateRequest(tx, auth.tenantId, id, body);
    return toRequestItem(row!);
  });
}

export async function deleteRequest(db: Db, auth: Principal, id: number): Promise<void> {
  await withTenant(db, auth, async (tx) => {
    if (!(await repo.deleteRequest(tx, auth.tenantId, id))) throw new NotFoundError('Request', id);
  });
}
