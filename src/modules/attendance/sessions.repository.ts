import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import type { SessionSource } from '../../db/schema/attendance.js';
import { rowsOf } from './attendance.queries.js';
import type { SessionItem } from './attendance.schemas.js';

/** Queries of sessions (raw SQL: one statement per read, bigints as strings on pg, hence Number). */

export interface SessionRow {
  id: number;
  date: string;
  source: SessionSource;
  serviceId: number | null;
  groupId: number | null;
  eventId: number | null;
  didNotMeet: boolean;
  notes: string | null;
  /** The session's group, for the access rules (null: an event without a host). */
  group: { id: number; name: string; path: string; privacy: string } | null;
}

type Num = string | number | null;
const num = (v: Num) => (v === null ? null : Number(v));

export async function findSession(tx: Db, tenantId: number, id: number): Promise<SessionRow | undefined> {
  const [r] = rowsOf<{
    id: Num; date: string; source: SessionSource; service_id: Num; group_id: Num; event_id: Num; did_not_meet: boolean; notes: string | null;
    g_name: string | null; g_path: string | null; g_privacy: string | null;
  }>(
    await tx.execute(sql`
      select s.id, to_char(s.date, 'YYYY-MM-DD') as date, s.source, s.service_id, s.group_id, s.event_id, s.did_not_meet, s.notes,
        g.name as g_name, g.path as g_path, g.privacy as g_privacy
      from attendance_sessions s left join groups g on g.tenant_id = s.tenant_id and g.id = s.group_id
      where s.tenant_id = ${tenantId} and s.id = ${id}`),
  );
  if (!r) return undefined;
  return {
    id: Number(r.id), date: r.date, source: r.source, serviceId: num(r.service_id), groupId: num(r.group_id), eventId: num(r.event_id),
    didNotMeet: r.did_not_meet, notes: r.notes,
    group: r.group_id === null ? null : { id: Number(r.group_id), name: r.g_name ?? '', path: r.g_path ?? '', privacy: r.g_privacy ?? 'Public' },
  };
}

export interface NewSession {
  date: string;
  source: SessionSource;
  serviceId: number | null;
  groupId: number | null;
  eventId: number | null;
  notes?: string | null;
  didNotMeet?: boolean;
}

/** Inserts unless a session of the same source and date exists; returns the new id, else the existing one. */
export async function insertSession(tx: Db, tenantId: number, s: NewSession): Promise<{ id: number; created: boolean }> {
  const inserted = rowsOf<{ id: Num }>(
    await tx.execute(sql`
      insert into attendance_sessions (tenant_id, date, source, service_id, group_id, event_id, notes, did_not_meet)
      values (${tenantId}, ${s.date}::date, ${s.source}, ${s.serviceId}, ${s.groupId}, ${s.eventId}, ${s.notes ?? null}, ${s.didNotMeet ?? false})
      on conflict do nothing returning id`),
  );
  if (inserted.length) return { id: Number(inserted[0].id), created: true };
  const sourceCol = s.source === 'Service' ? sql`service_id = ${s.serviceId}` : s.source === 'Group' ? sql`group_id = ${s.groupId}` : sql`event_id = ${s.eventId}`;
  const [existing] = rowsOf<{ id: Num }>(
    await tx.execute(sql`select id from attendance_sessions where tenant_id = ${tenantId} and source = ${s.source} and ${sourceCol} and date = ${s.date}::date`),
  );
  return { id: Number(existing.id), created: false };
}

export async function updateSession(tx: Db, tenantId: number, id: number, patch: { notes?: string | null; didNotMeet?: boolean }): Promise<void> {
  const sets: SQL[] = [sql`updated_at = now()`];
  if (patch.notes !== undefined) sets.push(sql`notes = ${patch.notes}`);
  if (patch.didNotMeet !== undefined) sets.push(sql`did_not_meet = ${patch.didNotMeet}`);
  await tx.execute(sql`update attendance_sessions set ${sql.join(sets, sql`, `)} where tenant_id = ${tenantId} and id = ${id}`);
}

export async function deleteSession(tx: Db, tenantId: number, id: number): Promise<void> {
  await tx.execute(sql`delete from attendance_sessions where tenant_id = ${tenantId} and id = ${id}`);
}

/** Session items (list shape) matching `where` (a condition on `s`), newest first, with the total. */
export async function listSessionItems(tx: Db, tenantId: number, where: SQL, limit: number, offset: number): Promise<{ items: SessionItem[]; total: number }> {
  const rows = rowsOf<Record<string, Num | string | boolean> & { total: Num }>(
    await tx.execute(sql`
      with page as (
        select s.*, count(*) over () as total from attendance_sessions s
        where s.tenant_id = ${tenantId} and ${where}
        order by s.date desc, s.id desc limit ${limit} offset ${offset}
      )
      ${sessionItemSelect(tenantId)}
      order by s.date desc, s.id desc`),
  );
  let total = rows.length ? Number(rows[0].total) : 0;
  if (!rows.length && offset > 0) {
    const [c] = rowsOf<{ n: Num }>(await tx.execute(sql`select count(*) as n from attendance_sessions s where s.tenant_id = ${tenantId} and ${where}`));
    total = Number(c.n);
  }
  return { items: rows.map(toSessionItem), total };
}

export async function loadSessionItem(tx: Db, tenantId: number, id: number): Promise<SessionItem> {
  const rows = rowsOf<Record<string, Num | string | boolean>>(
    await tx.execute(sql`with page as (select s.*, 0 as total from attendance_sessions s where s.tenant_id = ${tenantId} and s.id = ${id})
      ${sessionItemSelect(tenantId)}`),
  );
  return toSessionItem(rows[0]);
}

function sessionItemSelect(t: number): SQL {
  return sql`
    select s.id, to_char(s.date, 'YYYY-MM-DD') as date, s.source, s.service_id, sv.name as service_name, s.group_id, g.name as group_name,
      s.event_id, e.name as event_name, s.did_not_meet, s.notes, s.total, rc.present, rc.guests, rc.first_time, hc.headcount
    from page s
      left join attendance_services sv on sv.tenant_id = ${t} and sv.id = s.service_id
      left join groups g on g.tenant_id = ${t} and g.id = s.group_id
      left join events e on e.tenant_id = ${t} and e.id = s.event_id
      cross join lateral (
        select count(*) as present, count(*) filter (where r.kind = 'Guest') as guests, count(*) filter (where r.is_first_time) as first_time
        from attendance_records r where r.tenant_id = ${t} and r.session_id = s.id) rc
      cross join lateral (select coalesce(sum(h.count), 0) as headcount from attendance_headcounts h where h.tenant_id = ${t} and h.session_id = s.id) hc`;
}

const ref = (id: unknown, name: unknown) => (id === null || id === undefined ? null : { id: Number(id), name: String(name ?? '') });

function toSessionItem(r: Record<string, unknown>): SessionItem {
  return {
    id: Number(r.id),
    date: String(r.date),
    source: r.source as SessionSource,
    service: ref(r.service_id, r.service_name),
    group: ref(r.group_id, r.group_name),
    event: ref(r.event_id, r.event_name),
    didNotMeet: Boolean(r.did_not_meet),
    notes: (r.notes as string | null) ?? null,
    presentCount: Number(r.present),
    guestCount: Number(r.guests),
    firstTimeCount: Number(r.first_time),
    headcountTotal: Number(r.headcount),
  };
}

export async function listHeadcounts(tx: Db, tenantId: number, sessionId: number): Promise<{ type: string; count: number }[]> {
  const rows = rowsOf<{ type: string; count: Num }>(
    await tx.execute(sql`select type, count from attendance_headcounts where tenant_id = ${tenantId} and session_id = ${sessionId} order by type`),
  );
  return rows.map((r) => ({ type: r.type, count: Number(r.count) }));
}

export async function replaceHeadcounts(tx: Db, tenantId: number, sessionId: number, counts: { type: string; count: number }[]): Promise<void> {
  await tx.execute(sql`delete from attendance_headcounts where tenant_id = ${tenantId} and session_id = ${sessionId}`);
  if (counts.length === 0) return;
  await tx.execute(sql`insert into attendance_headcounts (tenant_id, session_id, type, count)
    select ${tenantId}::bigint, ${sessionId}::bigint, x.type, x.count from jsonb_to_recordset(${JSON.stringify(counts)}::jsonb) as x(type text, count int)`);
}
