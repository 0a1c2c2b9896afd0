import crypto from 'node:crypto';
import { sql } from 'drizzle-orm';
import { recordChanges, type NewChange } from '../../changes/recorder.js';
import { withTenant, type Db } from '../../db/client.js';
import { AppError, BadRequestError, ConflictError, NotFoundError, TooManyRequestsError } from '../../lib/errors.js';
import { pageResult, toPage } from '../../lib/pagination.js';
import type { Principal } from '../../plugins/auth.js';
import { createFailureThrottle } from '../auth/auth.throttle.js';
import { loadGroupScope } from '../groups/groups.visibility.js';
import { isSessionVisible, readableSession } from './attendance.access.js';
import { loadAttendanceScope } from './attendance.scope.js';
import type { CheckinItem, CheckinLookupQuery, CheckinLookupResult, CheckoutBody, CreateCheckinBody, LabelsQuery, ListCheckinsQuery, LookupPerson } from './attendance.schemas.js';
import { renderLabelsPdf } from './checkins.pdf.js';
import * as repo from './checkins.repository.js';
import { lookupFamilies, type LookupTerm } from './lookup.repository.js';
import { markCheckedIn } from './records.repository.js';
import { findSession } from './sessions.repository.js';

/** Security codes: 4 characters without look-alikes (no B/8, G/6, I/1, O/0, S/5, Z/2). */
export const CODE_ALPHABET = 'ACDEFHJKLMNPQRTUVWXY3479';
const MAX_CODE_TRIES = 20;
/**
 * Check-outs with an unknown or used code allowed per user in the window, then 429: guessing the
 * open codes of a session (24^4 codes) with a stolen kiosk token is bounded to some 80 tries an hour.
 */
export const CHECKOUT_FAILURES = 20;
const CHECKOUT_WINDOW_MS = 15 * 60 * 1000;
/** Candidates per statement: one is almost always free (24^4 codes). */
const CODES_PER_TRY = 4;

export function newSecurityCode(): string {
  let code = '';
  for (let i = 0; i < 4; i++) code += CODE_ALPHABET[crypto.randomInt(CODE_ALPHABET.length)];
  return code;
}

/**
 * Check-in (modules-contract §1): needs only checkin:write and a visible session (a kiosk
 * volunteer leads nothing). One code per family checked in together, unique among the session's
 * open check-ins: the partial unique index on attendance_checkin_codes decides, and a taken code is
 * drawn again (INSERT … ON CONFLICT DO NOTHING, no savepoint needed).
 */
/** A last name (at least 2 letters, no digits) or a phone number's digits (at least 4), else 400. */
export function lookupTerm(q: string): LookupTerm {
  const text = q.trim().replace(/\s+/g, ' ');
  if (/^[\d\s+\-.()]+$/.test(text)) {
    const digits = text.replace(/\D/g, '');
    if (digits.length >= 4) return { phoneDigits: digits };
  } else if (!/\d/.test(text) && (text.match(/\p{L}/gu)?.length ?? 0) >= 2) {
    return { lastName: text };
  }
  throw new BadRequestError('q must be a last name of at least 2 letters or at least 4 digits of a phone number');
}

/** Each contact's room: its entry in `rooms`, else roomGroupId, else none; a room for a contact not checked in is 400. */
function roomsOf(body: CreateCheckinBody): (contactId: number) => number | null {
  const byContact = new Map<number, number | null>();
  for (const [i, r] of (body.rooms ?? []).entries()) {
    if (!body.contactIds.includes(r.contactId)) throw new BadRequestError(`body/rooms/${i}/contactId ${r.contactId} is not among contactIds`);
    if (byContact.has(r.contactId)) throw new BadRequestError(`body/rooms/${i}/contactId ${r.contactId} is given a room twice`);
    byContact.set(r.contactId, r.roomGroupId);
  }
  return (id) => (byContact.has(id) ? byContact.get(id)! : (body.roomGroupId ?? null));
}

/** A check-out refused for its code: unknown to the session (404) or already used (409). */
class CheckoutRefused extends AppError {}

export function createCheckinsService(db: Db) {
  const checkoutFailures = createFailureThrottle(db, 'checkout', CHECKOUT_FAILURES, CHECKOUT_WINDOW_MS);
  return {
    checkIn: (auth: Principal, body: CreateCheckinBody) =>
      withTenant(db, auth, async (tx) => {
        const scope = await loadGroupScope(tx, auth);
        const roomOf = roomsOf(body);
        // One statement checks and writes (session, room, contacts, open check-ins, code, check-ins,
        // records); another draw only when every candidate code was held.
        for (let drawn = 0; drawn < MAX_CODE_TRIES; drawn += CODES_PER_TRY) {
          const codes = Array.from({ length: CODES_PER_TRY }, newSecurityCode);
          const done = await repo.checkInFamily(tx, auth.tenantId, scope, { sessionId: body.sessionId, contactIds: body.contactIds, roomGroupIds: body.contactIds.map(roomOf), anyContact: auth.permissions.has('contacts:read'), codes });
          const session = done.session;
          if (!session) throw new NotFoundError('Session', body.sessionId);
          if (done.badRoom !== undefined) throw new NotFoundError('Group', done.badRoom);
          if (done.missing.length) throw new NotFoundError(done.missing.length === 1 ? 'Contact' : 'Contacts', done.missing);
          if (done.open.length) throw new ConflictError(`Contact(s) ${done.open.join(', ')} already checked in to session ${session.id}`);
          if (done.code === undefined) continue;
          // Contacts already present keep their record; its check-in instant is set once.
          const got = new Set(done.records.map((r) => r.contactId));
          const present = body.contactIds.filter((id) => !got.has(id));
          if (present.length) await markCheckedIn(tx, auth.tenantId, session.id, present);
          // The changes of recordPresence (records.service.ts), then the check-ins', in one statement.
          // The code is a pickup credential: it stays out of the change data.
          const changes: NewChange[] = [];
          for (const r of done.records) {
            const data = { contactId: r.contactId, sessionId: session.id, groupId: session.groupId, serviceId: session.serviceId, eventId: session.eventId, kind: 'Regular', date: session.date };
            changes.push({ type: 'attendance.recorded', entityId: r.id, data });
            if (r.isFirstTime) changes.push({ type: 'attendance.first_visit', entityId: r.id, data: { ...data, isFirstTime: true } });
          }
          for (const k of done.checkIns) {
            changes.push({
              type: 'checkin.created', entityId: k.id,
              data: { contactId: k.contact.id, sessionId: session.id, groupId: session.groupId, roomGroupId: k.room?.id ?? null, serviceId: session.serviceId, eventId: session.eventId },
            });
          }
          await recordChanges(tx, auth, changes);
          return { securityCode: done.code, checkIns: done.checkIns };
        }
        throw new ConflictError(`No free security code for session ${body.sessionId}; check out families first`);
      }),

    /** The family lookup (modules-contract §8): names, ages and roles of the people a kiosk reaches. */
    lookup: (auth: Principal, query: CheckinLookupQuery): Promise<CheckinLookupResult> => {
      const term = lookupTerm(query.q);
      return withTenant(db, auth, async (tx) => {
        const data: CheckinLookupResult['data'] = [];
        let entry: { rn: number; item: CheckinLookupResult['data'][number] } | undefined;
        for (const r of await lookupFamilies(tx, auth.tenantId, term)) {
          if (entry?.rn !== Number(r.rn)) {
            const household = r.household_id === null ? null : { id: Number(r.household_id), name: String(r.household_name) };
            entry = { rn: Number(r.rn), item: { household, people: [] } };
            data.push(entry.item);
          }
          entry.item.people.push({
            id: Number(r.id), firstName: r.first_name, lastName: r.last_name,
            age: r.age === null ? null : Number(r.age), role: r.role as LookupPerson['role'],
          });
        }
        return { data };
      });
    },

    list: (auth: Principal, query: ListCheckinsQuery) =>
      withTenant(db, auth, async (tx) => {
        const page = toPage(query);
        const scope = await loadAttendanceScope(tx, auth, {});
        const where = [scope.on(sql`s.group_id`)];
        if (query.sessionId !== undefined) where.push(sql`k.session_id = ${query.sessionId}`);
        if (query.securityCode !== undefined) where.push(sql`k.security_code = ${query.securityCode.toUpperCase()}`);
        if (query.status !== undefined) where.push(sql`k.status = ${query.status}`);
        const { items, total } = await repo.pageCheckins(tx, auth.tenantId, sql.join(where, sql` and `), page.limit, page.offset);
        return pageResult(page, items, total);
      }),

    checkOut: async (auth: Principal, body: CheckoutBody): Promise<{ data: CheckinItem[] }> => {
      const key = `${auth.tenantId}:${auth.userId}`;
      const retryAfter = await checkoutFailures.retryAfter(key);
      if (retryAfter > 0) throw new TooManyRequestsError(retryAfter);
      try {
        return await checkOutNow(auth, body);
      } catch (err) {
        // An unknown code and a used one both count: either is a guess the throttle bounds.
        if (err instanceof CheckoutRefused) await checkoutFailures.fail(key);
        throw err;
      }
    },

    /** Today's sessions the caller sees: what a kiosk picks from (it cannot list sessions). */
    todaysSessions: (auth: Principal) =>
      withTenant(db, auth, async (tx) => ({ data: await repo.todaysSessions(tx, auth.tenantId, await loadGroupScope(tx, auth)) })),

    label: (auth: Principal, id: number) =>
      withTenant(db, auth, async (tx) => {
        const [label] = await readableLabels(tx, auth, [id]);
        const { id: _i, sessionId: _s, contactId: _c, isOpen: _o, isToday: _t, ...out } = label;
        return out;
      }),

    /** The labels PDF of the check-ins (in the order asked), each readable as its JSON label is. */
    labelsPdf: (auth: Principal, query: LabelsQuery) => {
      const ids = [...new Set(query.ids.split(',').map(Number))];
      return withTenant(db, auth, (tx) => readableLabels(tx, auth, ids)).then(renderLabelsPdf);
    },
  };

  /** Every label asked for, or 404 naming the first one the caller may not read. */
  async function readableLabels(tx: Db, auth: Principal, ids: readonly number[]): Promise<repo.LabelRow[]> {
    const labels = await repo.findLabels(tx, auth.tenantId, ids);
    const byId = new Map(labels.map((l) => [l.id, l]));
    const scope = await loadGroupScope(tx, auth);
    const sessions = new Map<number, boolean>();
    const out: repo.LabelRow[] = [];
    for (const id of ids) {
      const label = byId.get(id);
      if (label && !sessions.has(label.sessionId)) {
        const session = await findSession(tx, auth.tenantId, label.sessionId);
        sessions.set(label.sessionId, Boolean(session && isSessionVisible(scope, session)));
      }
      if (!label || !sessions.get(label.sessionId)) throw new NotFoundError('Check-in', id);
      // Without attendance:read (a kiosk) only a reprint: an open check-in of a session held today.
      if (!auth.permissions.has('attendance:read') && !(label.isOpen && label.isToday)) throw new NotFoundError('Check-in', id);
      out.push(label);
    }
    return out;
  }

  function checkOutNow(auth: Principal, body: CheckoutBody): Promise<{ data: CheckinItem[] }> {
    return withTenant(db, auth, async (tx) => {
      const { session } = await readableSession(tx, auth, body.sessionId);
      const code = body.securityCode.trim().toUpperCase();
      const ids = await repo.checkOut(tx, auth.tenantId, session.id, code);
      if (!ids.length) {
        const at = await repo.lastCheckoutOf(tx, auth.tenantId, session.id, code);
        if (at) throw new CheckoutRefused(409, `Security code ${code} was already checked out at ${at}`);
        throw new CheckoutRefused(404, `No open check-in with security code ${code} in this session`);
      }
      const data = await repo.checkinsById(tx, auth.tenantId, ids);
      await recordChanges(tx, auth, data.map((k) => ({
        type: 'checkin.checked_out' as const, entityId: k.id,
        data: { contactId: k.contact.id, sessionId: session.id, groupId: session.groupId, serviceId: session.serviceId, eventId: session.eventId },
      })));
      return { data };
    });
  }
}
