import { recordChanges } from '../../changes/recorder.js';
import { withTenant, type Db } from '../../db/client.js';
import { NotFoundError } from '../../lib/errors.js';
import { pageResult, toPage, type PageRequest } from '../../lib/pagination.js';
import type { Principal } from '../../plugins/auth.js';
import { recordsById } from '../attendance/records.repository.js';
import { ensureEventSession, recordPresence, recordRemoval } from '../attendance/records.service.js';
import { findContactRefs, isoOf } from './contact-refs.repository.js';
import { readableEvent, writableEvent, type EventAccess } from './event-access.js';
import type { AttendanceItem, ContactRef, RegistrationItem, Skipped } from './events.schemas.js';
import * as rosters from './rosters.repository.js';

/**
 * Registration and attendance are the same kind of record: one row per (event, contact), added
 * in bulk (all-or-nothing on unknown contacts, idempotent for contacts already there) and removed
 * one by one, kept in one repository (rosters.repository.ts). Each kind is described by a store;
 * the rules live once, here. Every add and removal records its changes in its transaction.
 */
interface RosterStore<T> {
  kind: rosters.RosterKind;
  entity: string;
  skipReason: string;
  toItem(row: rosters.RosterRow, eventId: number, contact: ContactRef | null): T;
  /** Inserts the contacts not there yet and records the changes; returns the inserted rows. */
  insert(tx: Db, auth: Principal, access: EventAccess, contactIds: readonly number[]): Promise<rosters.RosterRow[]>;
  /** Removes the event's row `id` and records its change; false when the event has no such row. */
  remove(tx: Db, auth: Principal, access: EventAccess, id: number): Promise<boolean>;
}

const eventData = (access: EventAccess, contactId: number | null) => ({ contactId, eventId: access.event.id, groupId: access.event.groupId });

const registrationStore: RosterStore<RegistrationItem> = {
  kind: 'registrations',
  entity: 'Registration',
  skipReason: 'already registered',
  // A registration always has its contact (event_registrations.contact_id is NOT NULL).
  toItem: (r, eventId, contact) => ({ id: r.id, eventId, contactId: r.contactId!, contact: contact!, createdAt: isoOf(r.at) }),
  insert: async (tx, auth, access, contactIds) => {
    const rows = await rosters.insertRoster(tx, 'registrations', auth.tenantId, access.event.id, contactIds);
    await recordChanges(tx, auth, rows.map((r) => ({ type: 'registration.created' as const, entityId: r.id, data: eventData(access, r.contactId) })));
    return rows;
  },
  remove: async (tx, auth, access, id) => {
    const row = await rosters.deleteRosterRow(tx, 'registrations', auth.tenantId, access.event.id, id);
    if (row) await recordChanges(tx, auth, [{ type: 'registration.deleted', entityId: row.id, data: eventData(access, row.contactId) }]);
    return row !== undefined;
  },
};

const attendanceStore: RosterStore<AttendanceItem> = {
  kind: 'attendance',
  entity: 'Attendance record',
  skipReason: 'already present',
  toItem: (r, eventId, contact) => ({ id: r.id, eventId, contactId: r.contactId, contact, attendedAt: isoOf(r.at) }),
  /**
   * The one attendance store (modules-contract §1): event attendance records into the event's
   * session on its start date (created on first use), through the attendance module's write path,
   * so the feed, summaries, absentees and first-visit detection see it, with its changes.
   */
  insert: async (tx, auth, access, contactIds) => {
    const session = await ensureEventSession(tx, auth, { id: access.event.id, name: access.event.name, startDate: access.event.startDate, group: access.group && { id: access.group.id, name: access.group.name } });
    const { inserted } = await recordPresence(tx, auth, session, contactIds, 'Regular');
    return inserted.map((r) => ({ id: r.id, contactId: r.contactId, at: r.at }));
  },
  /** attendance.deleted, as DELETE /api/attendance/sessions/:id/records/:contactId records it (the record read before it goes). */
  remove: async (tx, auth, access, id) => {
    const [record] = await recordsById(tx, auth.tenantId, [id]);
    if (!record || record.event?.id !== access.event.id) return false;
    if (!(await rosters.deleteRosterRow(tx, 'attendance', auth.tenantId, access.event.id, id))) return false;
    await recordRemoval(tx, auth, record);
    return true;
  },
};

/** Every requested contact must exist in the tenant; the 404 names all that do not. */
export async function requireContacts(tx: Db, tenantId: number, contactIds: readonly number[]): Promise<Map<number, ContactRef>> {
  const found = await findContactRefs(tx, tenantId, contactIds);
  const missing = contactIds.filter((id) => !found.has(id));
  if (missing.length > 0) throw new NotFoundError(missing.length === 1 ? 'Contact' : 'Contacts', missing);
  return found;
}

function rosterService<T>(db: Db, store: RosterStore<T>) {
  return {
    list: (auth: Principal, eventId: number, query: PageRequest) =>
      withTenant(db, auth, async (tx) => {
        await readableEvent(tx, auth, eventId);
        const page = toPage(query);
        const { items, total } = await rosters.pageRoster(tx, store.kind, auth.tenantId, eventId, page);
        return pageResult(page, items.map(({ row, contact }) => store.toItem(row, eventId, contact)), total);
      }),

    add: (auth: Principal, eventId: number, contactIds: readonly number[]) =>
      withTenant(db, auth, async (tx) => {
        const access = await writableEvent(tx, auth, eventId);
        const contacts = await requireContacts(tx, auth.tenantId, contactIds);
        const rows = await store.insert(tx, auth, access, contactIds);
        const inserted = new Set(rows.map((r) => r.contactId));
        const created = rows.map((r) => store.toItem(r, eventId, contacts.get(r.contactId!)!));
        const skipped: Skipped[] = contactIds.filter((id) => !inserted.has(id)).map((contactId) => ({ contactId, reason: store.skipReason }));
        return { created, skipped };
      }),

    remove: (auth: Principal, eventId: number, id: number) =>
      withTenant(db, auth, async (tx) => {
        const access = await writableEvent(tx, auth, eventId);
        if (!(await store.remove(tx, auth, access, id))) throw new NotFoundError(store.entity, id);
      }),
  };
}

export function createRostersService({ db }: { db: Db }) {
  return { registrations: rosterService(db, registrationStore), attendance: rosterService(db, attendanceStore) };
}

export type RostersService = ReturnType<typeof createRostersService>;
