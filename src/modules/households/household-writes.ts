import { fieldChanges, recordChanges, type Actor, type NewChange } from '../../changes/recorder.js';
import type { Db } from '../../db/client.js';
import type { HouseholdRole } from '../../db/schema/index.js';
import { AppError, BadRequestError, ConflictError, NotFoundError } from '../../lib/errors.js';
import * as repo from './households.repository.js';
import { MAX_MEMBERS } from './households.schemas.js';

/**
 * The household writes every path shares (the API, the contacts import, contact delete, merge and
 * erase). Each checks before writing and records its changes in the caller's transaction. Locks are
 * taken contacts first, then the household, on every path, so two writes never wait on each other
 * in opposite orders.
 */

export interface NewMember {
  contactId: number;
  role: HouseholdRole;
}

export interface NewHousehold {
  name?: string;
  street: string | null;
  city: string | null;
  country: string | null;
  givingTogether: boolean;
  importKey?: string | null;
  members: NewMember[];
}

export class NotAMemberError extends AppError {
  constructor(contactId: number, householdId: number, status: 400 | 404) {
    super(status, `Contact ${contactId} is not a member of household ${householdId}`);
  }
}

/** The first Head, else the first member (members in joining order). */
export function defaultPrimary(members: readonly { contactId: number; role: HouseholdRole }[]): number | null {
  return (members.find((m) => m.role === 'Head') ?? members[0])?.contactId ?? null;
}

/** "<last name of the first Head, else the first member> household". */
export function defaultName(members: readonly NewMember[], lastNames: Map<number, string | null>): string {
  const first = defaultPrimary(members);
  const last = first === null ? '' : (lastNames.get(first) ?? '').trim();
  return last ? `${last} household` : 'Household';
}

/** The wire view of a household row, for the {from, to} of household.updated. */
export function wireFields(row: repo.HouseholdRow): Record<string, unknown> {
  const address = row.street === null && row.city === null && row.country === null ? null : { street: row.street, city: row.city, country: row.country };
  return { name: row.name, address, givingTogether: row.givingTogether, primaryContactId: row.primaryContactId };
}

/**
 * Contacts that may join a household: each exists in the tenant (404), is a person (400) and
 * belongs to no household (409). Locks them (see findCandidates). Returns their last names.
 */
export async function checkCandidates(tx: Db, tenantId: number, contactIds: readonly number[]): Promise<Map<number, string | null>> {
  const found = await repo.findCandidates(tx, tenantId, contactIds);
  const missing = contactIds.filter((id) => !found.has(id));
  if (missing.length) throw new NotFoundError('Contact', missing);
  for (const id of contactIds) {
    const c = found.get(id)!;
    if (c.category !== 'Person') throw new BadRequestError(`Contact ${id} is not a person`);
    if (c.householdId !== null) throw new ConflictError(`Contact ${id} already belongs to household ${c.householdId}`);
  }
  return new Map(contactIds.map((id) => [id, found.get(id)!.lastName]));
}

/** Creates a household with its members; records household.created alone (its members in its data). */
export async function createHousehold(tx: Db, actor: Actor, input: NewHousehold): Promise<repo.HouseholdRow> {
  const ids = input.members.map((m) => m.contactId);
  const twice = ids.find((id, i) => ids.indexOf(id) !== i);
  if (twice !== undefined) throw new BadRequestError(`body/members lists contact ${twice} twice`);
  const lastNames = await checkCandidates(tx, actor.tenantId, ids);
  const row = await repo.insertHousehold(tx, actor.tenantId, {
    name: input.name ?? defaultName(input.members, lastNames),
    street: input.street, city: input.city, country: input.country, givingTogether: input.givingTogether, importKey: input.importKey ?? null,
  });
  await repo.insertMembers(tx, actor.tenantId, row.id, input.members);
  const primaryContactId = defaultPrimary(input.members);
  await repo.updateHousehold(tx, actor.tenantId, row.id, { primaryContactId });
  await recordChanges(tx, actor, [{
    type: 'household.created', entityId: row.id,
    data: { householdId: row.id, name: row.name, givingTogether: row.givingTogether, primaryContactId, members: input.members.map((m) => ({ contactId: m.contactId, role: m.role })) },
  }]);
  return { ...row, primaryContactId };
}

/** Adds members to an existing household (after its current ones): 409 past 30 members. */
export async function addMembers(tx: Db, actor: Actor, householdId: number, members: readonly NewMember[]): Promise<void> {
  await checkCandidates(tx, actor.tenantId, members.map((m) => m.contactId));
  const household = await repo.findHousehold(tx, actor.tenantId, householdId, { lock: true });
  if (!household) throw new NotFoundError('Household', householdId);
  const current = await repo.membersOf(tx, actor.tenantId, householdId);
  if (current.length + members.length > MAX_MEMBERS) throw new ConflictError(`Household ${householdId} already has ${current.length} members (at most ${MAX_MEMBERS})`);
  await repo.insertMembers(tx, actor.tenantId, householdId, members);
  const items: NewChange[] = members.map((m) => ({ type: 'household.member_added', entityId: householdId, data: { householdId, name: household.name, contactId: m.contactId, role: m.role } }));
  if (household.primaryContactId === null) {
    const primaryContactId = defaultPrimary([...current, ...members]);
    await repo.updateHousehold(tx, actor.tenantId, householdId, { primaryContactId });
    items.push(primaryChange(household, primaryContactId));
  } else {
    await repo.updateHousehold(tx, actor.tenantId, householdId, {});
  }
  await recordChanges(tx, actor, items);
}

function primaryChange(household: repo.HouseholdRow, to: number | null): NewChange {
  return {
    type: 'household.updated', entityId: household.id,
    changes: { primaryContactId: { from: household.primaryContactId, to } },
    data: { householdId: household.id, name: household.name },
  };
}

/** Changes a member's role (member_updated with the role's from/to); nothing when it is the same. */
export async function changeRole(tx: Db, actor: Actor, household: repo.HouseholdRow, member: repo.MemberRow, role: HouseholdRole): Promise<void> {
  if (member.role === role) return;
  await repo.updateMemberRole(tx, actor.tenantId, member.contactId, role);
  await repo.updateHousehold(tx, actor.tenantId, household.id, {});
  await recordChanges(tx, actor, [{
    type: 'household.member_updated', entityId: household.id,
    changes: { role: { from: member.role, to: role } },
    data: { householdId: household.id, name: household.name, contactId: member.contactId, role },
  }]);
}

/**
 * Takes a member out of its household (locked by the caller): member_removed; the household goes
 * when it is left empty (household.deleted), else the primary contact is recomputed when it left.
 */
export async function removeMembership(tx: Db, actor: Actor, household: repo.HouseholdRow, member: repo.MemberRow): Promise<void> {
  const { tenantId } = actor;
  await repo.deleteMember(tx, tenantId, member.contactId);
  const rest = await repo.membersOf(tx, tenantId, household.id);
  const items: NewChange[] = [{ type: 'household.member_removed', entityId: household.id, data: { householdId: household.id, name: household.name, contactId: member.contactId, role: member.role } }];
  if (rest.length === 0) {
    await repo.deleteHousehold(tx, tenantId, household.id);
    items.push({ type: 'household.deleted', entityId: household.id, data: { householdId: household.id, name: household.name, members: [], emptied: true } });
  } else if (household.primaryContactId === member.contactId || household.primaryContactId === null) {
    const primaryContactId = defaultPrimary(rest);
    await repo.updateHousehold(tx, tenantId, household.id, { primaryContactId });
    items.push(primaryChange(household, primaryContactId));
  } else {
    await repo.updateHousehold(tx, tenantId, household.id, {});
  }
  await recordChanges(tx, actor, items);
}

/** The household of a contact, locked, with the contact's member row; undefined when it has none. */
export async function lockedMembership(tx: Db, tenantId: number, contactId: number) {
  const of = await repo.householdOf(tx, tenantId, contactId);
  if (!of) return undefined;
  const household = await repo.findHousehold(tx, tenantId, of.id, { lock: true });
  const member = (await repo.membersOf(tx, tenantId, of.id)).find((m) => m.contactId === contactId);
  return household && member ? { household, member } : undefined;
}

/** Updates name, address, giving together and primary contact (a member, else 400); household.updated with the diff. */
export async function updateHousehold(tx: Db, actor: Actor, household: repo.HouseholdRow, values: Partial<repo.HouseholdRow>): Promise<void> {
  if (values.primaryContactId !== undefined && values.primaryContactId !== null) {
    const members = await repo.membersOf(tx, actor.tenantId, household.id);
    if (!members.some((m) => m.contactId === values.primaryContactId)) throw new NotAMemberError(values.primaryContactId, household.id, 400);
  }
  const after = { ...household, ...Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) } as repo.HouseholdRow;
  const diff = fieldChanges(wireFields(household), wireFields(after));
  if (!diff) return;
  await repo.updateHousehold(tx, actor.tenantId, household.id, {
    name: after.name, street: after.street, city: after.city, country: after.country, givingTogether: after.givingTogether, primaryContactId: after.primaryContactId,
  });
  await recordChanges(tx, actor, [{ type: 'household.updated', entityId: household.id, changes: diff, data: { householdId: household.id, name: after.name } }]);
}

/** Deletes a household, never its people: household.deleted with its members in its data. */
export async function deleteHousehold(tx: Db, actor: Actor, household: repo.HouseholdRow): Promise<void> {
  const members = await repo.membersOf(tx, actor.tenantId, household.id);
  await repo.deleteHousehold(tx, actor.tenantId, household.id);
  await recordChanges(tx, actor, [{
    type: 'household.deleted', entityId: household.id,
    data: { householdId: household.id, name: household.name, members: members.map((m) => ({ contactId: m.contactId, role: m.role })) },
  }]);
}

/**
 * Merge: the survivor takes a source's place (position and role) in its household, and its place
 * as primary contact when the source held it.
 */
export async function moveMembership(tx: Db, actor: Actor, household: repo.HouseholdRow, member: repo.MemberRow, toContactId: number): Promise<void> {
  await repo.moveMember(tx, actor.tenantId, member.contactId, toContactId);
  const data = { householdId: household.id, name: household.name, role: member.role };
  const items: NewChange[] = [
    { type: 'household.member_removed', entityId: household.id, data: { ...data, contactId: member.contactId, mergedInto: toContactId } },
    { type: 'household.member_added', entityId: household.id, data: { ...data, contactId: toContactId, mergedFrom: member.contactId } },
  ];
  if (household.primaryContactId === member.contactId) {
    await repo.updateHousehold(tx, actor.tenantId, household.id, { primaryContactId: toContactId });
    items.push(primaryChange(household, toContactId));
  } else {
    await repo.updateHousehold(tx, actor.tenantId, household.id, {});
  }
  await recordChanges(tx, actor, items);
}
