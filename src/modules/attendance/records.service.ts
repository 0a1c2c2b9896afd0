import type { Actor } from '../../changes/recorder.js';
import { recordChanges, type NewChange } from '../../changes/recorder.js';
import type { Db } from '../../db/client.js';
import type { RecordKind } from '../../db/schema/attendance.js';
import * as records from './records.repository.js';
import { insertSession } from './sessions.repository.js';

/**
 * The one write path of attendance records, for every source: POST /sessions/:id/records, quick
 * guests, check-in and event attendance (src/modules/events/rosters.service.ts). Idempotent per
 * contact; each new record records `attendance.recorded`, and a contact's first record ever also
 * `attendance.first_visit` (decided by the contact_first_visits key in the insert trigger, so it
 * holds under concurrent posts), all in one recordChanges call in the caller's transaction.
 */
export interface SessionRef {
  id: number;
  date: string;
  serviceId: number | null;
  groupId: number | null;
  eventId: number | null;
}

export interface RecordedPresence {
  inserted: records.InsertedRecord[];
  skipped: { contactId: number; reason: string }[];
}

export const ALREADY_PRESENT = 'already present';

export async function recordPresence(
  tx: Db, actor: Actor, session: SessionRef, contactIds: readonly number[], kind: RecordKind, options: { checkedIn?: boolean } = {},
): Promise<RecordedPresence> {
  const inserted = await records.insertRecords(tx, actor.tenantId, session.id, contactIds, kind, options.checkedIn ?? false);
  const got = new Set(inserted.map((r) => r.contactId));
  const skippedIds = contactIds.filter((id) => !got.has(id));
  if (options.checkedIn && skippedIds.length) await records.markCheckedIn(tx, actor.tenantId, session.id, skippedIds);
  const changes: NewChange[] = [];
  for (const r of inserted) {
    const data = { contactId: r.contactId, sessionId: session.id, groupId: session.groupId, serviceId: session.serviceId, eventId: session.eventId, kind, date: session.date };
    changes.push({ type: 'attendance.recorded', entityId: r.id, data });
    if (r.isFirstTime) changes.push({ type: 'attendance.first_visit', entityId: r.id, data: { ...data, isFirstTime: true } });
  }
  await recordChanges(tx, actor, changes);
  return { inserted, skipped: skippedIds.map((contactId) => ({ contactId, reason: ALREADY_PRESENT })) };
}

/** The event's session on its start date, created on first use (event attendance records into it). */
export async function ensureEventSession(
  tx: Db, tenantId: number, event: { id: number; startDate: string; groupId: number | null },
): Promise<SessionRef> {
  const { id } = await insertSession(tx, tenantId, { date: event.startDate, source: 'Event', serviceId: null, groupId: event.groupId, eventId: event.id });
  return { id, date: event.startDate, serviceId: null, groupId: event.groupId, eventId: event.id };
}
