import type { Actor } from '../../changes/recorder.js';
import { recordChanges, type NewChange } from '../../changes/recorder.js';
import type { Db } from '../../db/client.js';
import type { RecordKind } from '../../db/schema/attendance.js';
import type { RecordItem } from './attendance.schemas.js';
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

/**
 * What session changes carry in data: the session's ids and the names of its service, group and
 * event (subscribers and the timeline need no second read).
 */
export function sessionData(s: {
  id: number; date: string; source: string; service?: { id: number; name: string } | null; group?: { id: number; name: string } | null; event?: { id: number; name: string } | null;
}): Record<string, unknown> {
  return {
    sessionId: s.id, source: s.source, date: s.date,
    serviceId: s.service?.id ?? null, serviceName: s.service?.name ?? null,
    groupId: s.group?.id ?? null, groupName: s.group?.name ?? null,
    eventId: s.event?.id ?? null, eventName: s.event?.name ?? null,
  };
}

/**
 * The event's session on its start date, created on first use (event attendance records into it);
 * a session created here records session.created, in the caller's transaction.
 */
export async function ensureEventSession(
  tx: Db, actor: Actor, event: { id: number; name: string; startDate: string; group: { id: number; name: string } | null },
): Promise<SessionRef> {
  const groupId = event.group?.id ?? null;
  const { id, created } = await insertSession(tx, actor.tenantId, { date: event.startDate, source: 'Event', serviceId: null, groupId, eventId: event.id });
  if (created) {
    await recordChanges(tx, actor, [{
      type: 'session.created', entityId: id,
      data: sessionData({ id, date: event.startDate, source: 'Event', group: event.group, event: { id: event.id, name: event.name } }),
    }]);
  }
  return { id, date: event.startDate, serviceId: null, groupId, eventId: event.id };
}

/**
 * Records attendance.deleted for a record the caller has just removed (looked up before the delete):
 * the ids of attendance.recorded (contactId, sessionId, groupId, serviceId, eventId) with the names.
 */
export async function recordRemoval(tx: Db, actor: Actor, r: RecordItem): Promise<void> {
  await recordChanges(tx, actor, [{
    type: 'attendance.deleted', entityId: r.id,
    data: {
      contactId: r.contact?.id ?? null, sessionId: r.sessionId, groupId: r.group?.id ?? null, groupName: r.group?.name ?? null,
      serviceId: r.service?.id ?? null, serviceName: r.service?.name ?? null, eventId: r.event?.id ?? null, eventName: r.event?.name ?? null,
      kind: r.kind, date: r.date, isFirstTime: r.isFirstTime,
    },
  }]);
}
