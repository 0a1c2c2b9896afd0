import { sql, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Db } from '../../db/client.js';
import type { CheckinStatus } from '../../db/schema/attendance.js';
import { groups } from '../../db/schema/index.js';
import { visibleGroupFilter, type GroupScope } from '../groups/groups.visibility.js';
import { idArray } from '../events/contact-refs.repository.js';
import { rowsOf } from './attendance.queries.js';
import type { CheckinItem } from './attendance.schemas.js';
import { reachablePerson } from './lookup.repository.js';

type Num = string | number | null;

/** Takes `code` for the session unless an open check-in holds it (the partial unique index decides). */
export async function takeCode(tx: Db, tenantId: number, sessionId: number, code: string): Promise<number | undefined> {
  const [row] = rowsOf<{ id: Num }>(
    await tx.execute(sql`insert into attendance_checkin_codes (tenant_id, session_id, code) values (${tenantId}, ${sessionId}, ${code})
      on conflict do nothing returning id`),
  );
  return row ? Number(row.id) : undefined;
}

export async function openCheckinsOf(tx: Db, tenantId: number, sessionId: number, contactIds: readonly number[]): Promise<number[]> {
  const rows = rowsOf<{ contact_id: Num }>(
    await tx.execute(sql`select contact_id from attendance_checkins where tenant_id = ${tenantId} and session_id = ${sessionId}
      and status = 'CheckedIn' and contact_id = any(${idArray(contactIds)}) order by contact_id`),
  );
  return rows.map((r) => Number(r.contact_id));
}

export async function insertCheckins(
  tx: Db, tenantId: number, sessionId: number, codeId: number, code: string, roomGroupId: number | null, contactIds: readonly number[],
): Promise<number[]> {
  const rows = rowsOf<{ id: Num }>(
    await tx.execute(sql`insert into attendance_checkins (tenant_id, session_id, contact_id, code_id, security_code, room_group_id)
      select ${tenantId}::bigint, ${sessionId}::bigint, c, ${codeId}::bigint, ${code}, ${roomGroupId}::bigint from unnest(${idArray(contactIds)}) with ordinality as x(c, n)
      order by n returning id`),
  );
  return rows.map((r) => Number(r.id)).sort((a, b) => a - b);
}

export interface CheckInInput {
  sessionId: number;
  contactIds: readonly number[];
  /** Each contact's room group (null: none), parallel to contactIds. */
  roomGroupIds: readonly (number | null)[];
  /** Every contact of the tenant may be checked in; otherwise only the lookup's people (reachablePerson). */
  anyContact: boolean;
  /** Candidate codes, best first: the first one no open check-in of the session holds is taken. */
  codes: readonly string[];
}

export interface CheckInOutcome {
  /** The session, when it exists and the caller sees it. */
  session?: { id: number; date: string; serviceId: number | null; groupId: number | null; eventId: number | null };
  /** The first room (in request order) that does not exist or that the caller does not see; undefined when all are fine. */
  badRoom?: number;
  /** Contacts that do not exist or are out of the caller's reach, in request order (one answer for both). */
  missing: number[];
  /** Contacts already checked in to the session (open), by id. */
  open: number[];
  /** The code taken; undefined when a check failed or every candidate was held. */
  code?: string;
  checkIns: CheckinItem[];
  /** The attendance records inserted (contacts already present are left out). */
  records: { id: number; contactId: number; isFirstTime: boolean }[];
}

const sessionGroup = alias(groups, 'ck_sg');
const roomGroup = alias(groups, 'ck_rg');

/**
 * A family's check-in in ONE statement (modules-contract §1): the session (visible to the caller),
 * the room, the contacts' existence (and reach, without anyContact) and their open check-ins are checked, and only when all pass are
 * the code taken, the check-ins and the attendance records inserted (each insert reads the code's
 * RETURNING, so a failed check or a code held by every candidate writes nothing). The code is the
 * first candidate that no open check-in of the session holds; the partial unique index still decides
 * against a concurrent transaction (ON CONFLICT DO NOTHING: no code, the caller draws again).
 * Records of contacts already present are skipped (ON CONFLICT DO NOTHING); the insert trigger takes
 * the contact's first visit as on every other write path.
 */
export async function checkInFamily(tx: Db, tenantId: number, scope: GroupScope, input: CheckInInput): Promise<CheckInOutcome> {
  const t = tenantId;
  const sid = input.sessionId;
  const ids = idArray(input.contactIds);
  if (!input.roomGroupIds.every((r) => r === null || Number.isSafeInteger(r))) throw new TypeError('rooms must be integers');
  const rooms = sql`${`{${input.roomGroupIds.map((r) => (r === null ? 'NULL' : String(r))).join(',')}}`}::bigint[]`;
  const reach = input.anyContact ? sql`true` : reachablePerson(t, 'rc', 'rp');
  const rows = rowsOf<Record<string, unknown>>(
    await tx.execute(sql`
      with sess as (
        select s.id, to_char(s.date, 'YYYY-MM-DD') as date, s.service_id, s.group_id, s.event_id
        from attendance_sessions s left join groups ck_sg on ${sessionGroup.tenantId} = ${t} and ${sessionGroup.id} = s.group_id
        where s.tenant_id = ${t} and s.id = ${sid} and (s.group_id is null or ${visibleGroupFilter(scope, sessionGroup)})
      ), input as (
        select x.c, x.r, x.n from unnest(${ids}, ${rooms}) with ordinality as x(c, r, n)
      ), checks as (
        select (select count(*) from sess) = 1 as session_ok,
          (select i.r from input i where i.r is not null and not exists (
            select 1 from groups ck_rg where ${roomGroup.tenantId} = ${t} and ${roomGroup.id} = i.r and ${visibleGroupFilter(scope, roomGroup)})
            order by i.n limit 1) as bad_room,
          (select coalesce(array_agg(i.c order by i.n), '{}') from input i
            where not exists (select 1 from contacts rc left join persons rp on rp.tenant_id = rc.tenant_id and rp.contact_id = rc.id
              where rc.tenant_id = ${t} and rc.id = i.c and ${reach})) as missing,
          (select coalesce(array_agg(k.contact_id order by k.contact_id), '{}') from attendance_checkins k
            where k.tenant_id = ${t} and k.session_id = ${sid} and k.status = 'CheckedIn' and k.contact_id = any(${ids})) as open
      ), code as (
        insert into attendance_checkin_codes (tenant_id, session_id, code)
        select ${t}::bigint, ${sid}::bigint, y.code from (
          select x.code from checks, unnest(${`{${input.codes.join(',')}}`}::text[]) with ordinality as x(code, n)
          where checks.session_ok and checks.bad_room is null and cardinality(checks.missing) = 0 and cardinality(checks.open) = 0
            and not exists (select 1 from attendance_checkin_codes o where o.tenant_id = ${t} and o.session_id = ${sid} and o.code = x.code and o.is_open)
          order by x.n limit 1) y
        on conflict do nothing
        returning id, code
      ), ins as (
        insert into attendance_checkins (tenant_id, session_id, contact_id, code_id, security_code, room_group_id)
        select ${t}::bigint, ${sid}::bigint, i.c, code.id, code.code, i.r from code, input i order by i.n
        returning id, contact_id, room_group_id, security_code, status, checked_in_at
      ), rec as (
        insert into attendance_records (tenant_id, session_id, contact_id, kind, checked_in_at)
        select ${t}::bigint, ${sid}::bigint, i.c, 'Regular', now() from code, input i order by i.n
        on conflict do nothing
        returning id, contact_id, is_first_time
      )
      select checks.session_ok, checks.bad_room, checks.missing::text as missing, checks.open::text as open,
        sess.date, sess.service_id, sess.group_id, sess.event_id, (select code from code) as code,
        ins.id, ins.contact_id, coalesce(p.first_name, co.name, '') as first_name, coalesce(p.last_name, '') as last_name,
        ins.room_group_id, rg.name as room_name, ins.security_code, ins.status, ${ms(sql`ins.checked_in_at`)} as checked_in_at,
        rec.id as record_id, rec.is_first_time
      from checks
        left join sess on true
        left join ins on true
        left join rec on rec.contact_id = ins.contact_id
        left join groups rg on rg.tenant_id = ${t} and rg.id = ins.room_group_id
        left join persons p on p.tenant_id = ${t} and p.contact_id = ins.contact_id
        left join companies co on co.tenant_id = ${t} and co.contact_id = ins.contact_id
      order by ins.id`),
  );
  const first = rows[0];
  const intList = (v: unknown) => String(v ?? '{}').replace(/[{}]/g, '').split(',').filter(Boolean).map(Number);
  const out: CheckInOutcome = {
    badRoom: first.bad_room === null || first.bad_room === undefined ? undefined : Number(first.bad_room),
    missing: intList(first.missing),
    open: intList(first.open),
    code: first.code === null || first.code === undefined ? undefined : String(first.code),
    checkIns: [],
    records: [],
  };
  if (first.session_ok) {
    const n = (v: unknown) => (v === null || v === undefined ? null : Number(v));
    out.session = { id: sid, date: String(first.date), serviceId: n(first.service_id), groupId: n(first.group_id), eventId: n(first.event_id) };
  }
  for (const r of rows) {
    if (r.id === null || r.id === undefined) continue;
    out.checkIns.push(toItem({ ...r, session_id: sid, checked_out_at: null }));
    if (r.record_id !== null && r.record_id !== undefined) out.records.push({ id: Number(r.record_id), contactId: Number(r.contact_id), isFirstTime: Boolean(r.is_first_time) });
  }
  out.records.sort((a, b) => a.id - b.id);
  return out;
}

/** Closes the open code and checks out everyone under it; returns the check-in ids (none: unknown or used code). */
export async function checkOut(tx: Db, tenantId: number, sessionId: number, code: string): Promise<number[]> {
  const rows = rowsOf<{ id: Num }>(
    await tx.execute(sql`
      with closed as (
        update attendance_checkin_codes set is_open = false
        where tenant_id = ${tenantId} and session_id = ${sessionId} and code = ${code} and is_open returning id
      )
      update attendance_checkins k set status = 'CheckedOut', checked_out_at = now()
      from closed where k.tenant_id = ${tenantId} and k.code_id = closed.id and k.status = 'CheckedIn'
      returning k.id`),
  );
  return rows.map((r) => Number(r.id)).sort((a, b) => a - b);
}

const ms = (col: SQL) => sql`floor(extract(epoch from ${col}) * 1000)::float8`;

function checkinSelect(t: number, where: SQL, tail: SQL): SQL {
  return sql`
    select k.id, k.session_id, k.contact_id, coalesce(p.first_name, c.name, '') as first_name, coalesce(p.last_name, '') as last_name,
      k.room_group_id, rg.name as room_name, k.security_code, k.status, ${ms(sql`k.checked_in_at`)} as checked_in_at,
      ${ms(sql`k.checked_out_at`)} as checked_out_at, count(*) over () as total
    from attendance_checkins k
      join attendance_sessions s on s.tenant_id = ${t} and s.id = k.session_id
      left join groups rg on rg.tenant_id = ${t} and rg.id = k.room_group_id
      left join persons p on p.tenant_id = ${t} and p.contact_id = k.contact_id
      left join companies c on c.tenant_id = ${t} and c.contact_id = k.contact_id
    where k.tenant_id = ${t} and ${where} ${tail}`;
}

const iso = (v: unknown) => (v === null || v === undefined ? null : new Date(Number(v)).toISOString());

function toItem(r: Record<string, unknown>): CheckinItem {
  return {
    id: Number(r.id),
    sessionId: Number(r.session_id),
    contact: { id: Number(r.contact_id), firstName: String(r.first_name), lastName: String(r.last_name) },
    room: r.room_group_id === null ? null : { id: Number(r.room_group_id), name: String(r.room_name ?? '') },
    securityCode: String(r.security_code),
    status: r.status as CheckinStatus,
    checkedInAt: iso(r.checked_in_at)!,
    checkedOutAt: iso(r.checked_out_at),
  };
}

export async function checkinsById(tx: Db, tenantId: number, ids: readonly number[]): Promise<CheckinItem[]> {
  if (!ids.length) return [];
  const rows = rowsOf<Record<string, unknown>>(await tx.execute(checkinSelect(tenantId, sql`k.id = any(${idArray(ids)})`, sql`order by k.id`)));
  return rows.map(toItem);
}

/** `where` is a condition on `k` (check-in) and `s` (its session); oldest first. */
export async function pageCheckins(tx: Db, tenantId: number, where: SQL, limit: number, offset: number): Promise<{ items: CheckinItem[]; total: number }> {
  const rows = rowsOf<Record<string, unknown>>(await tx.execute(checkinSelect(tenantId, where, sql`order by k.id limit ${limit} offset ${offset}`)));
  let total = rows.length ? Number(rows[0].total) : 0;
  if (!rows.length && offset > 0) {
    const [c] = rowsOf<{ n: Num }>(
      await tx.execute(sql`select count(*) as n from attendance_checkins k join attendance_sessions s on s.tenant_id = ${tenantId} and s.id = k.session_id where k.tenant_id = ${tenantId} and ${where}`),
    );
    total = Number(c.n);
  }
  return { items: rows.map(toItem), total };
}

export interface LabelRow {
  id: number;
  sessionId: number;
  contactId: number;
  firstName: string;
  lastName: string;
  securityCode: string;
  room: string | null;
  sessionDate: string;
  serviceName: string | null;
  /** The person's check-in note (allergies, medical or custody notes): printed on their label only. */
  checkinNote: string | null;
  /** Still checked in. */
  isOpen: boolean;
  /** The session is dated today in the tenant's time zone. */
  isToday: boolean;
}

/** The labels of the check-ins, in the order of `ids` (unknown ids left out): the service's name, else the event's, else the meeting group's. */
export async function findLabels(tx: Db, tenantId: number, ids: readonly number[]): Promise<LabelRow[]> {
  const rows = rowsOf<Record<string, unknown>>(
    await tx.execute(sql`
      select k.id, k.session_id, k.contact_id, coalesce(p.first_name, c.name, '') as first_name, coalesce(p.last_name, '') as last_name, k.security_code,
        rg.name as room, to_char(s.date, 'YYYY-MM-DD') as session_date, coalesce(sv.name, e.name, g.name) as service_name, p.checkin_note,
        k.status = 'CheckedIn' as is_open, s.date = (now() at time zone tn.time_zone)::date as is_today
      from unnest(${idArray(ids)}) with ordinality as x(id, n)
        join attendance_checkins k on k.tenant_id = ${tenantId} and k.id = x.id
        join tenants tn on tn.id = k.tenant_id
        join attendance_sessions s on s.tenant_id = ${tenantId} and s.id = k.session_id
        left join attendance_services sv on sv.tenant_id = ${tenantId} and sv.id = s.service_id
        left join events e on e.tenant_id = ${tenantId} and e.id = s.event_id
        left join groups g on g.tenant_id = ${tenantId} and g.id = s.group_id
        left join groups rg on rg.tenant_id = ${tenantId} and rg.id = k.room_group_id
        left join persons p on p.tenant_id = ${tenantId} and p.contact_id = k.contact_id
        left join companies c on c.tenant_id = ${tenantId} and c.contact_id = k.contact_id
      order by x.n`),
  );
  return rows.map((r) => ({
    id: Number(r.id), sessionId: Number(r.session_id), contactId: Number(r.contact_id),
    firstName: String(r.first_name), lastName: String(r.last_name), securityCode: String(r.security_code),
    room: (r.room as string | null) ?? null, sessionDate: String(r.session_date), serviceName: (r.service_name as string | null) ?? null,
    checkinNote: (r.checkin_note as string | null) ?? null, isOpen: Boolean(r.is_open), isToday: Boolean(r.is_today),
  }));
}

/** When the code's latest closed use in the session was checked out (HH:MM in the tenant's time zone), if it ever was. */
export async function lastCheckoutOf(tx: Db, tenantId: number, sessionId: number, code: string): Promise<string | undefined> {
  const [r] = rowsOf<{ at: string | null }>(
    await tx.execute(sql`
      select to_char((select max(k.checked_out_at) from attendance_checkin_codes o
          join attendance_checkins k on k.tenant_id = o.tenant_id and k.code_id = o.id
          where o.tenant_id = ${tenantId} and o.session_id = ${sessionId} and o.code = ${code} and not o.is_open) at time zone tn.time_zone, 'HH24:MI') as at
      from tenants tn where tn.id = ${tenantId}`),
  );
  return r?.at ?? undefined;
}

export interface KioskSession {
  id: number;
  date: string;
  name: string;
  startTime: string | null;
  /** The rooms: the visible groups right below the session's group, by name. */
  rooms: { id: number; name: string }[];
}

/**
 * The sessions dated today in the tenant's time zone that the caller sees (their group visible, or
 * no group), held ones only (didNotMeet left out): what a kiosk chooses from. By start time, then id.
 */
export async function todaysSessions(tx: Db, tenantId: number, scope: GroupScope): Promise<KioskSession[]> {
  const t = tenantId;
  const rows = rowsOf<Record<string, unknown>>(
    await tx.execute(sql`
      select s.id, to_char(s.date, 'YYYY-MM-DD') as date, coalesce(sv.name, e.name, ck_sg.name, '') as name, sv.start_time,
        (select coalesce(json_agg(json_build_object('id', ck_rg.id, 'name', ck_rg.name) order by ck_rg.name, ck_rg.id), '[]'::json)
          from groups ck_rg where ${roomGroup.tenantId} = ${t} and ${roomGroup.parentId} = s.group_id and ${visibleGroupFilter(scope, roomGroup)})::text as rooms
      from attendance_sessions s
        join tenants tn on tn.id = s.tenant_id
        left join groups ck_sg on ${sessionGroup.tenantId} = ${t} and ${sessionGroup.id} = s.group_id
        left join attendance_services sv on sv.tenant_id = ${t} and sv.id = s.service_id
        left join events e on e.tenant_id = ${t} and e.id = s.event_id
      where s.tenant_id = ${t} and s.date = (now() at time zone tn.time_zone)::date and not s.did_not_meet
        and (s.group_id is null or ${visibleGroupFilter(scope, sessionGroup)})
      order by sv.start_time nulls last, s.id
      limit 50`),
  );
  return rows.map((r) => ({ id: Number(r.id), date: String(r.date), name: String(r.name), startTime: (r.start_time as string | null) ?? null,
    rooms: (JSON.parse(String(r.rooms ?? '[]')) as { id: number | string; name: string }[]).map((g) => ({ id: Number(g.id), name: g.name })) }));
}
