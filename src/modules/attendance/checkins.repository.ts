import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import type { CheckinStatus } from '../../db/schema/attendance.js';
import { idArray } from '../events/contact-refs.repository.js';
import { rowsOf } from './attendance.queries.js';
import type { CheckinItem } from './attendance.schemas.js';

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
  sessionId: number;
  firstName: string;
  lastName: string;
  securityCode: string;
  room: string | null;
  sessionDate: string;
  serviceName: string | null;
}

/** The label: the service's name, else the event's, else the meeting group's. */
export async function findLabel(tx: Db, tenantId: number, id: number): Promise<LabelRow | undefined> {
  const [r] = rowsOf<Record<string, unknown>>(
    await tx.execute(sql`
      select k.session_id, coalesce(p.first_name, c.name, '') as first_name, coalesce(p.last_name, '') as last_name, k.security_code,
        rg.name as room, to_char(s.date, 'YYYY-MM-DD') as session_date, coalesce(sv.name, e.name, g.name) as service_name
      from attendance_checkins k
        join attendance_sessions s on s.tenant_id = ${tenantId} and s.id = k.session_id
        left join attendance_services sv on sv.tenant_id = ${tenantId} and sv.id = s.service_id
        left join events e on e.tenant_id = ${tenantId} and e.id = s.event_id
        left join groups g on g.tenant_id = ${tenantId} and g.id = s.group_id
        left join groups rg on rg.tenant_id = ${tenantId} and rg.id = k.room_group_id
        left join persons p on p.tenant_id = ${tenantId} and p.contact_id = k.contact_id
        left join companies c on c.tenant_id = ${tenantId} and c.contact_id = k.contact_id
      where k.tenant_id = ${tenantId} and k.id = ${id}`),
  );
  if (!r) return undefined;
  return {
    sessionId: Number(r.session_id), firstName: String(r.first_name), lastName: String(r.last_name), securityCode: String(r.security_code),
    room: (r.room as string | null) ?? null, sessionDate: String(r.session_date), serviceName: (r.service_name as string | null) ?? null,
  };
}
