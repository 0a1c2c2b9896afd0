import type { Actor } from '../../changes/recorder.js';
import { withTenant, type Db } from '../../db/client.js';
import { NotFoundError } from '../../lib/errors.js';
import { containsPattern } from '../../lib/like.js';
import { pageResult, toPage } from '../../lib/pagination.js';
import type { Principal } from '../../plugins/auth.js';
import * as writes from './household-writes.js';
import * as repo from './households.repository.js';
import type { AddressInput, CreateHouseholdBody, HouseholdItem, ListHouseholdsQuery, MemberInput, UpdateHouseholdBody } from './households.schemas.js';

/*
 * For other modules (contacts, privacy, finance's household statements, the check-in lookup): reads
 * and the removals every contact write must apply, each in the caller's transaction.
 */
export type { HouseholdItem } from './households.schemas.js';
export type { HouseholdRole } from '../../db/schema/index.js';
export { defaultName, defaultPrimary } from './household-writes.js';

/** The household of a contact and its role in it (the contact single read), or null. */
export const householdOf = (tx: Db, tenantId: number, contactId: number) => repo.householdOf(tx, tenantId, contactId);

/** The members of a household in joining order: `{contactId, role, position}`. */
export const membersOf = (tx: Db, tenantId: number, householdId: number) => repo.membersOf(tx, tenantId, householdId);

/** Households as the API shows them (members, primary contact, address), in the order of `ids`. */
export const loadHouseholds = (tx: Db, tenantId: number, ids: readonly number[]) => repo.loadHouseholds(tx, tenantId, ids);

/** A household as a giving statement addresses it: name, address and members (in joining order). */
export interface StatementHousehold {
  id: number;
  name: string;
  address: { street: string | null; city: string | null; country: string | null } | null;
  givingTogether: boolean;
  members: { id: number; firstName: string; lastName: string }[];
}

/** Households as statements address them, in the order of `ids` (missing ones, e.g. another tenant's, left out). */
export async function statementHouseholds(tx: Db, tenantId: number, ids: readonly number[]): Promise<StatementHousehold[]> {
  return (await repo.loadHouseholds(tx, tenantId, ids)).map((h) => ({
    id: h.id, name: h.name, address: h.address, givingTogether: h.givingTogether,
    members: h.members.map((m) => ({ id: m.contact.id, firstName: m.contact.firstName, lastName: m.contact.lastName })),
  }));
}

/** One household as a statement addresses it, or null when the tenant has no household with this id. */
export async function statementHousehold(tx: Db, tenantId: number, id: number): Promise<StatementHousehold | null> {
  const [household] = await statementHouseholds(tx, tenantId, [id]);
  return household ?? null;
}

/** Who gives together (bulk statements): each member of a household whose givingTogether is true, with that household's id. */
export const givingTogetherMembers = (tx: Db, tenantId: number) => repo.givingTogetherMembers(tx, tenantId);

/**
 * Takes a contact out of its household before the contact is deleted or erased: member_removed,
 * the household deleted when left empty, else its primary contact recomputed. Nothing when the
 * contact belongs to no household.
 */
export async function removeContact(tx: Db, actor: Actor, contactId: number): Promise<void> {
  await repo.findCandidates(tx, actor.tenantId, [contactId]);
  const found = await writes.lockedMembership(tx, actor.tenantId, contactId);
  if (found) await writes.removeMembership(tx, actor, found.household, found.member);
}

/**
 * Before a merge deletes its sources (contacts locked by the caller): the survivor keeps its
 * household; one without takes the place and role of the first source in `sourceIds` (request
 * order) that has one; every other source leaves its household (emptied ones deleted).
 */
export async function mergeHouseholds(tx: Db, actor: Actor, survivorId: number, sourceIds: readonly number[]): Promise<void> {
  const { tenantId } = actor;
  let survivorHas = (await repo.householdOf(tx, tenantId, survivorId)) !== null;
  for (const sourceId of sourceIds) {
    const found = await writes.lockedMembership(tx, tenantId, sourceId);
    if (!found) continue;
    if (survivorHas) {
      await writes.removeMembership(tx, actor, found.household, found.member);
      continue;
    }
    await writes.moveMembership(tx, actor, found.household, found.member, survivorId);
    survivorHas = true;
  }
}


function addressValues(address: AddressInput | null | undefined) {
  if (address === undefined) return {};
  const part = (v: string | null | undefined) => (v === undefined || v === null || v.trim() === '' ? null : v);
  return { street: part(address?.street), city: part(address?.city), country: part(address?.country) };
}

export function createHouseholdsService(db: Db) {
  async function load(tx: Db, tenantId: number, id: number): Promise<HouseholdItem> {
    const [item] = await repo.loadHouseholds(tx, tenantId, [id]);
    if (!item) throw new NotFoundError('Household', id);
    return item;
  }

  async function requireHousehold(tx: Db, tenantId: number, id: number) {
    const row = await repo.findHousehold(tx, tenantId, id, { lock: true });
    if (!row) throw new NotFoundError('Household', id);
    return row;
  }

  return {
    list: (auth: Principal, query: ListHouseholdsQuery) =>
      withTenant(db, auth, async (tx) => {
        const page = toPage(query);
        const q = query.q?.trim();
        const { items, total } = await repo.listHouseholds(tx, auth.tenantId, q ? containsPattern(q) : undefined, page);
        return pageResult(page, items, total);
      }),

    get: (auth: Principal, id: number) => withTenant(db, auth, (tx) => load(tx, auth.tenantId, id)),

    create: (auth: Principal, body: CreateHouseholdBody) =>
      withTenant(db, auth, async (tx) => {
        const address = addressValues(body.address);
        const row = await writes.createHousehold(tx, auth, {
          name: body.name?.trim() || undefined,
          street: address.street ?? null, city: address.city ?? null, country: address.country ?? null,
          givingTogether: body.givingTogether ?? false,
          members: body.members,
        });
        return load(tx, auth.tenantId, row.id);
      }),

    update: (auth: Principal, id: number, body: UpdateHouseholdBody) =>
      withTenant(db, auth, async (tx) => {
        const household = await requireHousehold(tx, auth.tenantId, id);
        await writes.updateHousehold(tx, auth, household, {
          name: body.name?.trim() || undefined, ...addressValues(body.address), givingTogether: body.givingTogether, primaryContactId: body.primaryContactId,
        });
        return load(tx, auth.tenantId, id);
      }),

    remove: (auth: Principal, id: number) =>
      withTenant(db, auth, async (tx) => {
        await writes.deleteHousehold(tx, auth, await requireHousehold(tx, auth.tenantId, id));
      }),

    addMember: (auth: Principal, id: number, body: MemberInput) =>
      withTenant(db, auth, async (tx) => {
        // 404 for an unknown household before anything about the contact.
        if (!(await repo.findHousehold(tx, auth.tenantId, id))) throw new NotFoundError('Household', id);
        await writes.addMembers(tx, auth, id, [body]);
        return load(tx, auth.tenantId, id);
      }),

    updateMember: (auth: Principal, id: number, contactId: number, role: MemberInput['role']) =>
      withTenant(db, auth, async (tx) => {
        const household = await requireHousehold(tx, auth.tenantId, id);
        const member = (await repo.membersOf(tx, auth.tenantId, id)).find((m) => m.contactId === contactId);
        if (!member) throw new writes.NotAMemberError(contactId, id, 404);
        await writes.changeRole(tx, auth, household, member, role);
        return load(tx, auth.tenantId, id);
      }),

    removeMember: (auth: Principal, id: number, contactId: number) =>
      withTenant(db, auth, async (tx) => {
        const household = await requireHousehold(tx, auth.tenantId, id);
        const member = (await repo.membersOf(tx, auth.tenantId, id)).find((m) => m.contactId === contactId);
        if (!member) throw new writes.NotAMemberError(contactId, id, 404);
        await writes.removeMembership(tx, auth, household, member);
      }),
  };
}

export type HouseholdsService = ReturnType<typeof createHouseholdsService>;
