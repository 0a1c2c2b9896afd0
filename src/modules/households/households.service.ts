import { sql } from 'drizzle-orm';
import { recordChanges, type Actor, type NewChange } from '../../changes/recorder.js';
import { withTenant, type Db } from '../../db/client.js';
import type { HouseholdRole } from '../../db/schema/index.js';
import { ConflictError, NotFoundError } from '../../lib/errors.js';
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
import { defaultName, defaultPrimary } from './household-writes.js';

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

/*
 * The contacts import (modules-contract §8 "Import"): rows sharing a household key end in one
 * household, created or found by the key (households.import_key, unique per tenant). The import
 * plans its rows against lockImportState and hands the memberships to write to applyImportMemberships,
 * both in its batch's transaction.
 */

export { MAX_MEMBERS } from './households.schemas.js';

const IMPORT_KEY_LOCK = 0x68686b79; // 'hhky'
/** Buckets per tenant, as the import's match keys (contacts.repository lockMatchKeys): a bounded number of locks per batch. */
const IMPORT_KEY_BUCKETS = 64;

function keyBucket(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return (h >>> 0) % IMPORT_KEY_BUCKETS;
}

/**
 * Serialises find-or-create by household key: two imports carrying the same key queue up, and the
 * second finds the first's household instead of failing on the unique key. Transaction-scoped
 * advisory locks on the keys' buckets, in bucket order (no deadlock between two batches); taken after
 * the import's match-key locks, before any row lock.
 */
export async function lockImportKeys(tx: Db, tenantId: number, keys: readonly string[]): Promise<void> {
  const buckets = [...new Set(keys.map(keyBucket))].sort((a, b) => a - b);
  if (buckets.length === 0) return;
  const base = (tenantId % 33_554_431) * IMPORT_KEY_BUCKETS;
  await tx.execute(sql`select count(pg_advisory_xact_lock(${IMPORT_KEY_LOCK}::int, k)) from (select k from unnest(${`{${buckets.map((b) => base + b).join(',')}}`}::int[]) k order by k offset 0) s`);
}

/** What an import batch plans against: the current memberships of its stored people and the households of its keys. */
export interface ImportState {
  /** Stored contacts → their household (with its import key, null for one made otherwise) and role. */
  memberOf: Map<number, { householdId: number; importKey: string | null; role: HouseholdRole }>;
  /** Keys → their household, with its member count. */
  byKey: Map<string, repo.KeyedHousehold>;
}

/**
 * Locks and reads the state an import batch plans against: the stored contacts (contacts first, as
 * every household write), then the households of the keys (FOR UPDATE). Call after lockImportKeys.
 */
export async function lockImportState(tx: Db, tenantId: number, contactIds: readonly number[], keys: readonly string[]): Promise<ImportState> {
  const candidates = await repo.findCandidates(tx, tenantId, [...new Set(contactIds)]);
  const joined = [...candidates.values()].filter((c) => c.householdId !== null);
  const keysOf = await repo.importKeysOf(tx, tenantId, [...new Set(joined.map((c) => c.householdId!))]);
  const memberOf = new Map(joined.map((c) => [c.id, { householdId: c.householdId!, importKey: keysOf.get(c.householdId!) ?? null, role: c.role! }]));
  return { memberOf, byKey: await repo.lockHouseholdsByKeys(tx, tenantId, [...new Set(keys)]) };
}

/** A membership the import writes: a person (new, or checked by the plan to be in no household or in the key's) joins or stays with a role. */
export interface ImportMembership {
  contactId: number;
  /** For the default name of a household the key creates. */
  lastName: string;
  key: string;
  /** Absent: Other for a new member, unchanged for a current one. */
  role?: HouseholdRole;
}

/**
 * Writes an import batch's memberships (planned against `state`, under its locks), in a fixed
 * number of statements: households for new keys (named by the default rule, household.created alone
 * with its members), new members of found households (member_added; the primary contact set when
 * the household had none), changed roles (member_updated). Members already in place with their role
 * cost nothing.
 */
/** The households an import made or added people to (for its summary). */
export interface ImportedHousehold {
  id: number;
  name: string;
  created: boolean;
}

export async function applyImportMemberships(tx: Db, actor: Actor, state: ImportState, memberships: readonly ImportMembership[]): Promise<ImportedHousehold[]> {
  const { tenantId } = actor;
  const changes: NewChange[] = [];
  const fresh = new Map<string, ImportMembership[]>();
  const added: { household: repo.KeyedHousehold; m: ImportMembership }[] = [];
  const roles: { contactId: number; role: HouseholdRole }[] = [];
  for (const m of memberships) {
    const household = state.byKey.get(m.key);
    if (!household) {
      const list = fresh.get(m.key) ?? [];
      if (!list.some((x) => x.contactId === m.contactId)) list.push(m);
      fresh.set(m.key, list);
      continue;
    }
    const current = state.memberOf.get(m.contactId);
    if (current && current.householdId !== household.id) throw new ConflictError(`Contact ${m.contactId} already belongs to household ${current.householdId}`);
    if (!current) {
      added.push({ household, m });
    } else if (m.role && m.role !== current.role) {
      roles.push({ contactId: m.contactId, role: m.role });
      changes.push({
        type: 'household.member_updated', entityId: household.id, changes: { role: { from: current.role, to: m.role } },
        data: { householdId: household.id, name: household.name, contactId: m.contactId, role: m.role, imported: true },
      });
    }
  }

  // New households, their members and primary contacts.
  const groups = [...fresh.entries()].map(([key, list]) => ({ key, members: list.map((m) => ({ contactId: m.contactId, role: m.role ?? ('Other' as const) })), lastNames: new Map(list.map((m) => [m.contactId, m.lastName])) }));
  const created = await repo.insertHouseholds(tx, tenantId, groups.map((g) => ({
    name: defaultName(g.members, g.lastNames), street: null, city: null, country: null, givingTogether: false, importKey: g.key, primaryContactId: null,
  })));
  const memberRows = groups.flatMap((g, i) => g.members.map((m, p) => ({ householdId: created[i].id, contactId: m.contactId, role: m.role, position: p + 1 })));

  // Members joining found households, after their current ones.
  const touched = new Map<number, { household: repo.KeyedHousehold; joined: { contactId: number; role: HouseholdRole }[] }>();
  for (const { household, m } of added) {
    const entry = touched.get(household.id) ?? { household, joined: [] };
    if (entry.joined.some((j) => j.contactId === m.contactId)) continue;
    entry.joined.push({ contactId: m.contactId, role: m.role ?? 'Other' });
    touched.set(household.id, entry);
  }
  for (const { household, joined } of touched.values()) {
    joined.forEach((j, i) => memberRows.push({ householdId: household.id, contactId: j.contactId, role: j.role, position: household.lastPosition + 1 + i }));
  }
  await repo.insertMemberRows(tx, tenantId, memberRows);
  await repo.updateMemberRoles(tx, tenantId, roles);

  const primaries = groups.map((g, i) => ({ id: created[i].id, primaryContactId: defaultPrimary(g.members) }));
  for (const { household, joined } of touched.values()) {
    // A household without a primary contact gets the first Head, else the first member, among all its members.
    const primaryContactId = household.primaryContactId === null ? defaultPrimary([...(await repo.membersOf(tx, tenantId, household.id))]) : null;
    primaries.push({ id: household.id, primaryContactId });
    for (const j of joined) {
      changes.push({ type: 'household.member_added', entityId: household.id, data: { householdId: household.id, name: household.name, contactId: j.contactId, role: j.role, imported: true } });
    }
    if (primaryContactId !== null) {
      changes.push({ type: 'household.updated', entityId: household.id, changes: { primaryContactId: { from: null, to: primaryContactId } }, data: { householdId: household.id, name: household.name } });
    }
  }
  const touch = new Map<number, number | null>(roles.map((r) => [state.memberOf.get(r.contactId)!.householdId, null]));
  for (const p of primaries) touch.set(p.id, p.primaryContactId ?? touch.get(p.id) ?? null);
  await repo.touchHouseholds(tx, tenantId, [...touch].map(([id, primaryContactId]) => ({ id, primaryContactId })));
  const creations: NewChange[] = groups.map((g, i) => ({
    type: 'household.created', entityId: created[i].id,
    data: { householdId: created[i].id, name: created[i].name, givingTogether: false, primaryContactId: primaries[i].primaryContactId, members: g.members, importKey: g.key, imported: true },
  }));
  await recordChanges(tx, actor, [...creations, ...changes]);
  return [
    ...created.map((h) => ({ id: h.id, name: h.name, created: true })),
    ...[...touched.values()].map(({ household }) => ({ id: household.id, name: household.name, created: false })),
  ];
}
