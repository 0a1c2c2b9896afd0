import type { Static } from 'typebox';
import { fieldChanges, recordChanges, type NewChange } from '../../changes/recorder.js';
import { withTenant, type Db } from '../../db/client.js';
import type { ContactCategory, ContactStatus } from '../../db/schema/enums.js';
import { BadRequestError, ConflictError, NotFoundError } from '../../lib/errors.js';
import { pageResult, toPage, type PageRequest } from '../../lib/pagination.js';
import type { Principal } from '../../plugins/auth.js';
import { loadGroupScope } from '../groups/groups.visibility.js';
import { membersOf, removeContact } from '../households/households.service.js';
import * as read from './contacts-read.repository.js';
import { hiddenRequestTypes } from './requests.service.js';
import * as repo from './contacts.repository.js';

/** For other modules that write contacts or match them (privacy's merge and erase, attendance's guests). */
export { lockMatchKeys, phoneDigits, refreshSearchColumns } from './contacts.repository.js';
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
    const { rows, total } = query.householdId === undefined
      ? await read.listContactRows(tx, auth.tenantId, query, page.limit, page.offset)
      : await read.listContactRowsAmong(tx, auth.tenantId, (await membersOf(tx, auth.tenantId, query.householdId)).map((m) => m.contactId), query, page.limit, page.offset);
    const data = rows.map((r) => ({
      id: r.id,
      category: r.category,
      status: r.status,
      ...(r.category === 'Person' ? { person: { firstName: r.firstName ?? '', lastName: r.lastName ?? '', gender: r.gender } } : {}),
      ...(r.category === 'Company' ? { company: { name: r.companyName ?? '' } } : {}),
      emails: r.emails,
      phones: r.phones,
      householdId: r.householdId === null ? null : Number(r.householdId),
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
  const row = await read.loadContactDocument(tx, auth.tenantId, id, scope, hiddenRequestTypes(auth));
  if (!row) throw new NotFoundError('Contact', id);
  const { contact, person, company } = row;
  return {
    id: contact.id,
    category: contact.category,
    status: contact.status,
    emailOptOut: contact.emailOptOut,
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
    household: typeof row.household === 'string' ? JSON.parse(row.household) : row.household,
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

/**
 * The recorded view of a contact: scalars, person/company fields as `person.firstName`, …, and
 * each array as a whole (ids left out), so an update's changes name exactly what differs.
 */
function snapshot(doc: ContactDoc): Record<string, unknown> {
  const flat: Record<string, unknown> = { status: doc.status, emailOptOut: doc.emailOptOut };
  for (const [part, fields] of [['person', doc.person], ['company', doc.company]] as const) {
    for (const [k, v] of Object.entries(fields ?? {})) flat[`${part}.${k}`] = v;
  }
  flat.emails = doc.emails;
  flat.phones = doc.phones;
  flat.addresses = doc.addresses;
  flat.occasions = doc.occasions.map(({ id: _, ...o }) => o);
  flat.identifications = doc.identifications.map(({ id: _, ...i }) => i);
  return flat;
}

/** Which snapshot keys an update body can touch: what it sends. */
function sentKeys(body: UpdateContactBody): string[] {
  const keys: string[] = [];
  for (const key of ['status', 'emailOptOut', 'emails', 'phones', 'addresses', 'occasions', 'identifications'] as const) if (body[key] !== undefined) keys.push(key);
  for (const part of ['person', 'company'] as const) for (const k of Object.keys(body[part] ?? {})) keys.push(`${part}.${k}`);
  return keys;
}

export async function createContact(db: Db, auth: Principal, input: CreateContactBody) {
  const body = normalize(input);
  checkShape(body.category, body, true);
  return withTenant(db, auth, async (tx) => {
    const id = await repo.insertContact(tx, auth.tenantId, body);
    const doc = await loadContact(tx, auth, id);
    await recordChanges(tx, auth, [{ type: 'contact.created', entityId: id, data: { contactId: id, category: doc.category, status: doc.status } }]);
    return doc;
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
    const before = snapshot(await loadContact(tx, auth, id));
    await repo.updateContactScalars(tx, auth.tenantId, id, { status: body.status as ContactStatus | undefined, emailOptOut: body.emailOptOut });
    if (body.person) await repo.updatePerson(tx, auth.tenantId, id, body.person);
    if (body.company) await repo.updateCompany(tx, auth.tenantId, id, body.company);
    await repo.replaceArrays(tx, auth.tenantId, id, body);
    await repo.refreshSearchColumns(tx, auth.tenantId, [id]);
    const doc = await loadContact(tx, auth, id);
    const after = snapshot(doc);
    const diff = fieldChanges(before, Object.fromEntries(sentKeys(body).map((k) => [k, after[k]])));
    if (diff) {
      const changes: NewChange[] = [{ type: 'contact.updated', entityId: id, changes: diff, data: { contactId: id, category: doc.category, status: doc.status } }];
      if (diff.status) changes.push({ type: 'contact.status_changed', entityId: id, data: { contactId: id, from: diff.status.from, to: diff.status.to } });
      await recordChanges(tx, auth, changes);
    }
    return doc;
  });
}

export async function deleteContact(db: Db, auth: Principal, id: number): Promise<void> {
  await withTenant(db, auth, async (tx) => {
    const row = await repo.findContactRow(tx, auth.tenantId, id);
    if (!row) throw new NotFoundError('Contact', id);
    const userId = await repo.findLinkedUserId(tx, auth.tenantId, id);
    if (userId !== undefined) throw new ConflictError(`Contact ${id} is linked to user ${userId}`);
    // The membership would go by cascade; the household's rules (primary contact, deleted when empty) need the service.
    await removeContact(tx, auth, id);
    await repo.deleteContact(tx, auth.tenantId, id);
    await recordChanges(tx, auth, [{ type: 'contact.deleted', entityId: id, data: { contactId: id, category: row.category, status: row.status } }]);
  });
}
