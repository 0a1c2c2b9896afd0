import crypto from 'node:crypto';
import { sql } from 'drizzle-orm';
import { recordChanges } from '../../changes/recorder.js';
import { withTenant, type Db } from '../../db/client.js';
import { ConflictError, NotFoundError } from '../../lib/errors.js';
import { pageResult, toPage } from '../../lib/pagination.js';
import type { Principal } from '../../plugins/auth.js';
import { findContactRefs } from '../events/contact-refs.repository.js';
import { visibleGroup } from '../groups/groups.access.js';
import { loadGroupScope } from '../groups/groups.visibility.js';
import { isSessionVisible, readableSession } from './attendance.access.js';
import { loadAttendanceScope } from './attendance.scope.js';
import type { CheckinItem, CheckoutBody, CreateCheckinBody, ListCheckinsQuery } from './attendance.schemas.js';
import * as repo from './checkins.repository.js';
import { recordPresence } from './records.service.js';
import { findSession } from './sessions.repository.js';

/** Security codes: 4 characters without look-alikes (no B/8, G/6, I/1, O/0, S/5, Z/2). */
export const CODE_ALPHABET = 'ACDEFHJKLMNPQRTUVWXY3479';
const MAX_CODE_TRIES = 20;

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
export function createCheckinsService(db: Db) {
  return {
    checkIn: (auth: Principal, body: CreateCheckinBody) =>
      withTenant(db, auth, async (tx) => {
        const { session, scope } = await readableSession(tx, auth, body.sessionId);
        const roomId = body.roomGroupId ?? null;
        if (roomId !== null) await visibleGroup(tx, auth, scope, roomId);
        const found = await findContactRefs(tx, auth.tenantId, body.contactIds);
        const missing = body.contactIds.filter((id) => !found.has(id));
        if (missing.length) throw new NotFoundError(missing.length === 1 ? 'Contact' : 'Contacts', missing);
        const open = await repo.openCheckinsOf(tx, auth.tenantId, session.id, body.contactIds);
        if (open.length) throw new ConflictError(`Contact(s) ${open.join(', ')} already checked in to session ${session.id}`);
        let code = '';
        let codeId: number | undefined;
        for (let i = 0; i < MAX_CODE_TRIES && codeId === undefined; i++) {
          code = newSecurityCode();
          codeId = await repo.takeCode(tx, auth.tenantId, session.id, code);
        }
        if (codeId === undefined) throw new ConflictError(`No free security code for session ${session.id}; check out families first`);
        const ids = await repo.insertCheckins(tx, auth.tenantId, session.id, codeId, code, roomId, body.contactIds);
        await recordPresence(tx, auth, session, body.contactIds, 'Regular', { checkedIn: true });
        const checkIns = await repo.checkinsById(tx, auth.tenantId, ids);
        // The code is a pickup credential: it stays out of the change data.
        await recordChanges(tx, auth, checkIns.map((k) => ({
          type: 'checkin.created' as const, entityId: k.id,
          data: { contactId: k.contact.id, sessionId: session.id, groupId: session.groupId, roomGroupId: roomId, serviceId: session.serviceId, eventId: session.eventId },
        })));
        return { securityCode: code, checkIns };
      }),

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

    checkOut: (auth: Principal, body: CheckoutBody): Promise<{ data: CheckinItem[] }> =>
      withTenant(db, auth, async (tx) => {
        const { session } = await readableSession(tx, auth, body.sessionId);
        const ids = await repo.checkOut(tx, auth.tenantId, session.id, body.securityCode.toUpperCase());
        if (!ids.length) throw new NotFoundError(`No open check-in with security code ${body.securityCode} at session ${session.id}`);
        const data = await repo.checkinsById(tx, auth.tenantId, ids);
        await recordChanges(tx, auth, data.map((k) => ({
          type: 'checkin.checked_out' as const, entityId: k.id,
          data: { contactId: k.contact.id, sessionId: session.id, groupId: session.groupId, serviceId: session.serviceId, eventId: session.eventId },
        })));
        return { data };
      }),

    label: (auth: Principal, id: number) =>
      withTenant(db, auth, async (tx) => {
        const label = await repo.findLabel(tx, auth.tenantId, id);
        const session = label && (await findSession(tx, auth.tenantId, label.sessionId));
        if (!label || !session || !isSessionVisible(await loadGroupScope(tx, auth), session)) throw new NotFoundError('Check-in', id);
        const { sessionId: _s, ...out } = label;
        return out;
      }),
  };
}
