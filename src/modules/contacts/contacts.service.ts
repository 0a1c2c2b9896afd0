import type { Static } from 'typebox';
import { withTenant, type Db } from '../../db/client.js';
import type { ContactCategory, ContactStatus } from '../../db/schema/enums.js';
import { BadRequestError, ConflictError, NotFoundError } from '../../lib/errors.js';
import { pageResult, toPage, type PageRequest } from '../../lib/pagination.js';
import type { Principal } from '../../plugins/auth.js';
import { loadGroupScope, visibleGroupFilter } from '../groups/groups.visibility.js';
import * as read from './contacts-read.repository.js';
import * as repo from './contacts.repository.js';
import type { ContactArrays } from './contacts.repository.js';
import type { ContactSchema, CreateContactBody, UpdateContactBody } from './contacts.schemas.js';

type ContactDoc = Static<typeof ContactSchema>;

export type ContactListQuery = PageRequest & read.ContactFilter;

/** api-contract §1/§5: wrong-category objects and several primaries are 400s naming the field. */
function checkShape(category: ContactCategory, body: { person?: unknown; company?: unknown } & ContactArrays, isCreate: boolean) {
  if (category === 'Person' && body.company !== undefined) throw new BadRequestError('body/company is only allowed for category Company');
  if (category === 'Company' && body.person !== undefined) throw new BadRequestError('body/person is only allowed for category Person');
  if (isCreate && category === 'Person' && !body.person) throw new BadRequestError('body/person is required for category Person');
  if (isCreate && category === 'Company' && !body.company) throw new BadRequestError('body/company is required for category Company');
  for (const key of ['emails', 'phones', 'addresses'] as const) {
    const items = body[key] as { isPrimary?: boolean }[] | undefined;
    if (items && items.filter((i) => i.isPrimary).length > 1) throw new BadRequestError(`body/${key} may have at most one isPrimary entry`);
  }
}

export async function listContacts(db: Db, auth: Principal, query: ContactListQuery) {
  const page = toPage(query);
  return withTenant(db, auth, async (tx) => {
    const { rows, total } = await read.listContactRows(tx, auth.tenantId, query, page.limit, page.offset);
    const data = rows.map((r) => ({
      id: r.id,
      category: r.category,
      status: r.status,
      ...(r.category === 'Person' ? { person: { firstName: r.firstName ?? '', lastName: r.lastName ?? '', gender: r.gender } } : {}),
      ...(r.category === 'Company' ? { company: { name: r.companyName ?? '' } } : {}),
      emails: r.emails,
      phones: r.phones,
    }));
    return pageResult(page, data, total);
  });
}

interface RequestJson {
  id: number;
  contactId: number;
  type: string;
  description: string | null;
  status: string;
  createdAt: string;
  updatedAt: string;
}

/** The full contact in one statement (plus the caller's group scope); `tx` must be bound to auth.tenantId. */
export async function loadContact(tx: Db, auth: Principal, id: number): Promise<ContactDoc> {
  const scope = await loadGroupScope(tx, auth);
  const row = await read.loadContactDocument(tx, auth.tenantId, id, visibleGroupFilter(scope));
  if (!row) throw new NotFoundError('Contact', id);
  const { contact, person, company } = row;
  return {
    id: contact.id,
    category: contact.category,
    status: contact.status,
    ...(person ? { person } : {}),
    ...(company ? { company } : {}),
    emails: row.emails as ContactDoc['emails'],
    phones: row.phones as ContactDoc['phones'],
    addresses: row.addresses as ContactDoc['addresses'],
    occasions: row.occasions as ContactDoc['occasions'],
    identifications: row.identifications as ContactDoc['identifications'],
    relationships: row.relationships as ContactDoc['relationships'],
    // JSON carries timestamps with an offset; the wire format is ISO 8601 UTC.
    requests: (row.requests as RequestJson[]).map((r) => ({
      ...r, type: r.type as ContactDoc['requests'][number]['type'], status: r.status as ContactDoc['requests'][number]['status'], description: r.description ?? '', createdAt: new Date(r.createdAt).toISOString(), updatedAt: new Date(r.updatedAt).toISOString(),
    })),
    groupMemberships: row.groupMemberships as ContactDoc['groupMemberships'],
    createdAt: contact.createdAt.toISOString(),
    updatedAt: contact.updatedAt.toISOString(),
  };
}

export function getContact(db: Db, auth: Principal, id: number) {
  return withTenant(db, auth, (tx) => loadContact(tx, auth, id));
}

/**
 * Optional text sent as null may reach us as '' (ajv coerces null inside a string|null union), and
 * an empty optional value means "none" anyway: store null.
 */
function blanksToNull<T extends object | undefined>(obj: T): T {
  if (!obj) return obj;
  return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, v === '' ? null : v])) as T;
}

function normalize<T extends CreateContactBody | UpdateContactBody>(input: T): T {
  return {
    ...input,
    person: blanksToNull(input.person),
    company: blanksToNull(input.company),
    addresses: input.addresses?.map(blanksToNull),
    occasions: input.occasions?.map(blanksToNull),
    identifications: input.identifications?.map(blanksToNull),
  };
}

export async function createContact(db: Db, auth: Principal, input: CreateContactBody) {
  const body = normalize(input);
  checkShape(body.category, body, true);
  return withTenant(db, auth, async (tx) => {
    const id = await repo.insertContact(tx, auth.tenantId, body);
    return loadContact(tx, auth, id);
  });
}

export async function updateContact(db: Db, auth: Principal, id: number, input: UpdateContactBody) {
  const body = normalize(input);
  return withTenant(db, auth, async (tx) => {
    const current = await repo.findContactRow(tx, auth.tenantId, id);
    if (!current) throw new NotFoundError('Contact', id);
    if (body.category !== undefined && body.category !== current.category) {
      throw new BadRequestError(`body/category cannot be changed (contact ${id} is a ${current.category})`);
    }
    checkShape(current.category, body, false);
    await repo.updateContactScalars(tx, auth.tenantId, id, { status: body.status as ContactStatus | undefined });
    if (body.person) await repo.updatePerson(tx, auth.tenantId, id, body.person);
    if (body.company) await repo.updateCompany(tx, auth.tenantId, id, body.company);
    await repo.replaceArrays(tx, auth.tenantId, id, body);
    await repo.refreshSearchColumns(tx, auth.tenantId, [id]);
    return loadContact(tx, auth, id);
  });
}

export async function deleteContact(db: Db, auth: Principal, id: number): Promise<void> {
  await withTenant(db, auth, async (tx) => {
    if (!(await repo.findContactRow(tx, auth.tenantId, id))) throw new NotFoundError('Contact', id);
    const userId = await repo.findLinkedUserId(tx, auth.tenantId, id);
    if (userId !== undefined) throw new ConflictError(`Contact ${id} is linked to user ${userId}`);
    await repo.deleteContact(tx, auth.tenantId, id);
  });
}
