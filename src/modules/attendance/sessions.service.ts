import { sql, type SQL } from 'drizzle-orm';
import { fieldChanges, recordChanges } from '../../changes/recorder.js';
import { withTenant, type Db } from '../../db/client.js';
import { BadRequestError, ConflictError, NotFoundError } from '../../lib/errors.js';
import { pageResult, toPage } from '../../lib/pagination.js';
import { dayOfWeek, todayIn } from '../../lib/periods.js';
import type { Principal } from '../../plugins/auth.js';
import { loadTenantSettings } from '../../tenancy/settings.js';
import { lockMatchKeys, phoneDigits } from '../contacts/contacts.service.js';
import { createContact } from '../contacts/contacts.service.js';
import { writableEvent } from '../events/event-access.js';
import { findContactRefs } from '../events/contact-refs.repository.js';
import { manageableGroup } from '../groups/groups.access.js';
import { isGroupVisible, loadGroupScope } from '../groups/groups.visibility.js';
import { readableSession, writableSession } from './attendance.access.js';
import { loadAttendanceScope } from './attendance.scope.js';
import type {
  CreatedSession, CreateSessionBody, GuestBody, HeadcountsBody, ListRecordsQuery, ListSessionsQuery, RecordItem, RecordsBody, SessionDetail, SessionItem, UpdateSessionBody,
} from './attendance.schemas.js';
import * as records from './records.repository.js';
import { recordPresence, recordRemoval, sessionData, type SessionRef } from './records.service.js';
import * as services from './services.repository.js';
import * as repo from './sessions.repository.js';

const DAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

const refOf = (s: repo.SessionRow): SessionRef => ({ id: s.id, date: s.date, serviceId: s.serviceId, groupId: s.groupId, eventId: s.eventId });

function dateRange(col: SQL, from?: string, to?: string): SQL[] {
  if (from && to && from > to) throw new BadRequestError('querystring/from must not be after to');
  const out: SQL[] = [];
  if (from) out.push(sql`${col} >= ${from}::date`);
  if (to) out.push(sql`${col} <= ${to}::date`);
  return out;
}

/** Every requested contact must exist in the tenant; the 404 names all that do not. */
async function requireContacts(tx: Db, tenantId: number, ids: readonly number[]): Promise<void> {
  const found = await findContactRefs(tx, tenantId, ids);
  const missing = ids.filter((id) => !found.has(id));
  if (missing.length) throw new NotFoundError(missing.length === 1 ? 'Contact' : 'Contacts', missing);
}

export function createSessionsService(db: Db) {
  /** Where a new session belongs: its source's group, checked visible (404) and led (403). */
  async function placeSession(tx: Db, auth: Principal, body: CreateSessionBody): Promise<repo.NewSession> {
    const given = [body.serviceId, body.groupId, body.eventId].filter((v) => v !== undefined);
    if (given.length !== 1) throw new BadRequestError('body must have exactly one of serviceId, groupId, eventId');
    const scope = await loadGroupScope(tx, auth);
    const base = { date: body.date, notes: body.notes ?? null, didNotMeet: body.didNotMeet ?? false };
    if (body.serviceId !== undefined) {
      const service = await services.findService(tx, auth.tenantId, body.serviceId);
      if (!service || !isGroupVisible(scope, { id: service.group.id, path: service.groupPath, privacy: service.groupPrivacy })) throw new NotFoundError('Service', body.serviceId);
      await manageableGroup(tx, auth, scope, service.group.id);
      return { ...base, source: 'Service', serviceId: service.id, groupId: service.group.id, eventId: null };
    }
    if (body.groupId !== undefined) {
      await manageableGroup(tx, auth, scope, body.groupId);
      return { ...base, source: 'Group', serviceId: null, groupId: body.groupId, eventId: null };
    }
    const { event } = await writableEvent(tx, auth, body.eventId!);
    if (body.date < event.startDate || body.date > event.endDate) {
      throw new BadRequestError(`body/date ${body.date} is outside event ${event.id} (${event.startDate} to ${event.endDate})`);
    }
    return { ...base, source: 'Event', serviceId: null, groupId: event.groupId, eventId: event.id };
  }

  /**
   * What looks like a slip in a new session, said rather than refused (a special service may meet on
   * another day, a session may be opened ahead): a service session on another weekday than the
   * service meets, a date after today in the tenant's time zone.
   */
  async function slips(tx: Db, tenantId: number, placed: repo.NewSession): Promise<string[]> {
    const warnings: string[] = [];
    if (placed.serviceId !== null) {
      const service = await services.findService(tx, tenantId, placed.serviceId);
      if (service && service.dayOfWeek !== dayOfWeek(placed.date)) {
        warnings.push(`${service.name} meets on ${DAY_NAMES[service.dayOfWeek]}s; ${placed.date} is a ${DAY_NAMES[dayOfWeek(placed.date)]}`);
      }
    }
    const { timeZone } = await loadTenantSettings(tx, tenantId);
    const today = todayIn(timeZone);
    if (placed.date > today) warnings.push(`${placed.date} is in the future (today is ${today} in ${timeZone})`);
    return warnings;
  }

  async function detail(tx: Db, tenantId: number, id: number): Promise<SessionDetail> {
    const item = await repo.loadSessionItem(tx, tenantId, id);
    return { ...item, records: await records.sessionRecords(tx, tenantId, id), headcounts: await repo.listHeadcounts(tx, tenantId, id) };
  }

  return {
    list: (auth: Principal, query: ListSessionsQuery) =>
      withTenant(db, auth, async (tx) => {
        const page = toPage(query);
        const range = dateRange(sql`s.date`, query.from, query.to);
        const scope = await loadAttendanceScope(tx, auth, query);
        if (scope.empty) return pageResult(page, [], 0);
        const where = [scope.on(sql`s.group_id`), ...range];
        if (query.serviceId !== undefined) where.push(sql`s.source = 'Service' and s.service_id = ${query.serviceId}`);
        if (query.eventId !== undefined) where.push(sql`s.source = 'Event' and s.event_id = ${query.eventId}`);
        const { items, total } = await repo.listSessionItems(tx, auth.tenantId, sql.join(where, sql` and `), page.limit, page.offset);
        return pageResult(page, items, total);
      }),

    get: (auth: Principal, id: number): Promise<SessionDetail> =>
      withTenant(db, auth, async (tx) => {
        await readableSession(tx, auth, id);
        return detail(tx, auth.tenantId, id);
      }),

    create: (auth: Principal, body: CreateSessionBody): Promise<CreatedSession> =>
      withTenant(db, auth, async (tx) => {
        const placed = await placeSession(tx, auth, body);
        const warnings = await slips(tx, auth.tenantId, placed);
        const { id, created } = await repo.insertSession(tx, auth.tenantId, placed);
        if (!created) {
          const [what, ref] = placed.source === 'Service' ? ['service', placed.serviceId] : placed.source === 'Group' ? ['group', placed.groupId] : ['event', placed.eventId];
          throw new ConflictError(`Session ${id} already exists for ${what} ${ref} on ${placed.date}`);
        }
        const item = await repo.loadSessionItem(tx, auth.tenantId, id);
        await recordChanges(tx, auth, [{ type: 'session.created', entityId: id, data: { ...sessionData(item), didNotMeet: item.didNotMeet } }]);
        return { ...item, warnings };
      }),

    update: (auth: Principal, id: number, body: UpdateSessionBody): Promise<SessionItem> =>
      withTenant(db, auth, async (tx) => {
        const { session: before } = await writableSession(tx, auth, id);
        await repo.updateSession(tx, auth.tenantId, id, body);
        const after = await repo.loadSessionItem(tx, auth.tenantId, id);
        const changes = fieldChanges({ notes: before.notes, didNotMeet: before.didNotMeet }, { notes: after.notes, didNotMeet: after.didNotMeet });
        if (changes) await recordChanges(tx, auth, [{ type: 'session.updated', entityId: id, changes, data: { ...sessionData(after), didNotMeet: after.didNotMeet } }]);
        return after;
      }),

    /** session.deleted carries what went with the session: its record counts and headcount total. */
    remove: (auth: Principal, id: number): Promise<void> =>
      withTenant(db, auth, async (tx) => {
        await writableSession(tx, auth, id);
        const item = await repo.loadSessionItem(tx, auth.tenantId, id);
        await repo.deleteSession(tx, auth.tenantId, id);
        await recordChanges(tx, auth, [{
          type: 'session.deleted', entityId: id,
          data: { ...sessionData(item), presentCount: item.presentCount, guestCount: item.guestCount, firstTimeCount: item.firstTimeCount, headcountTotal: item.headcountTotal },
        }]);
      }),

    addRecords: (auth: Principal, id: number, body: RecordsBody) =>
      withTenant(db, auth, async (tx) => {
        const { session } = await writableSession(tx, auth, id);
        await requireContacts(tx, auth.tenantId, body.contactIds);
        const { inserted, skipped } = await recordPresence(tx, auth, refOf(session), body.contactIds, body.kind ?? 'Regular');
        return { created: await records.recordsById(tx, auth.tenantId, inserted.map((r) => r.id)), skipped };
      }),

    removeRecord: (auth: Principal, id: number, contactId: number): Promise<void> =>
      withTenant(db, auth, async (tx) => {
        await writableSession(tx, auth, id);
        const record = await records.recordOf(tx, auth.tenantId, id, contactId);
        if (!record || !(await records.deleteRecord(tx, auth.tenantId, id, contactId))) throw new NotFoundError(`Attendance record of contact ${contactId} at session ${id}`);
        await recordRemoval(tx, auth, record);
      }),

    /**
     * A quick guest: an existing Person matched by email (case-insensitive) or phone digits, as the
     * contacts import matches, else a new Person made by the contacts service; recorded as Guest
     * (a guest already present keeps their record).
     */
    addGuest: (auth: Principal, id: number, body: GuestBody): Promise<{ contact: { id: number; firstName: string; lastName: string; isNew: boolean; matchedBy: 'email' | 'phone' | null }; record: RecordItem }> =>
      withTenant(db, auth, async (tx) => {
        const { session } = await writableSession(tx, auth, id);
        const email = body.email || null;
        const digits = body.phone ? phoneDigits(body.phone) || null : null;
        // Parallel posts of one returning guest wait here, and the later ones match the first's contact.
        await lockMatchKeys(tx, auth.tenantId, { emails: [email], digits: [digits] });
        const match = await records.matchPerson(tx, auth.tenantId, email, digits);
        let contactId = match?.id;
        const isNew = contactId === undefined;
        if (contactId === undefined) {
          const created = await createContact(tx, auth, {
            category: 'Person',
            person: { firstName: body.firstName, lastName: body.lastName, ...(body.gender ? { gender: body.gender } : {}) },
            emails: email ? [{ value: email, isPrimary: true }] : [],
            phones: body.phone ? [{ value: body.phone, isPrimary: true }] : [],
          });
          contactId = created.id;
        }
        await recordPresence(tx, auth, refOf(session), [contactId], 'Guest');
        const record = (await records.recordOf(tx, auth.tenantId, id, contactId))!;
        return { contact: { ...record.contact!, isNew, matchedBy: match?.by ?? null }, record };
      }),

    setHeadcounts: (auth: Principal, id: number, body: HeadcountsBody) =>
      withTenant(db, auth, async (tx) => {
        await writableSession(tx, auth, id);
        const types = body.counts.map((c) => c.type.toLowerCase());
        const dup = types.find((t, i) => types.indexOf(t) !== i);
        if (dup !== undefined) throw new BadRequestError(`body/counts has the type ${dup} more than once`);
        const before = await repo.listHeadcounts(tx, auth.tenantId, id);
        await repo.replaceHeadcounts(tx, auth.tenantId, id, body.counts);
        const after = await repo.listHeadcounts(tx, auth.tenantId, id);
        const changes = fieldChanges({ counts: before }, { counts: after });
        if (changes) {
          const item = await repo.loadSessionItem(tx, auth.tenantId, id);
          await recordChanges(tx, auth, [{ type: 'session.headcounts_updated', entityId: id, changes, data: { ...sessionData(item), counts: after, headcountTotal: item.headcountTotal } }]);
        }
        return { data: after };
      }),

    /** The one feed over services, group meetings, events and check-ins, newest first. */
    feed: (auth: Principal, query: ListRecordsQuery) =>
      withTenant(db, auth, async (tx) => {
        const page = toPage(query);
        const range = dateRange(sql`r.date`, query.from, query.to);
        const scope = await loadAttendanceScope(tx, auth, query);
        if (scope.empty) return pageResult(page, [], 0);
        const where = [scope.on(sql`r.group_id`), ...range];
        if (query.contactId !== undefined) where.push(sql`r.contact_id = ${query.contactId}`);
        if (query.serviceId !== undefined) where.push(sql`s.source = 'Service' and s.service_id = ${query.serviceId}`);
        if (query.eventId !== undefined) where.push(sql`r.event_id = ${query.eventId}`);
        if (query.kind !== undefined) where.push(sql`r.kind = ${query.kind}`);
        // The exact total from the session counters (or the tenant's daily rollup) unless the filter
        // is one contact's or one event's records, which their indexes count directly.
        const count: records.FeedCount = query.contactId !== undefined || query.eventId !== undefined
          ? { by: 'records' }
          : { by: 'counters', scope, range: dateRange(sql`d.date`, query.from, query.to), serviceId: query.serviceId, kind: query.kind };
        const { items, total } = await records.pageRecords(tx, auth.tenantId, sql.join(where, sql` and `), page.limit, page.offset, count);
        return pageResult(page, items, total);
      }),
  };
}
