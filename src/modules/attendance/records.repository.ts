import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import type { RecordKind, SessionSource } from '../../db/schema/attendance.js';
import { idArray } from '../events/contact-refs.repository.js';
import { rowsOf } from './attendance.queries.js';
import type { AttendanceScope } from './attendance.scope.js';
import type { RecordItem } from './attendance.schemas.js';

type Num = string | number | null;

/** A record as inserted (what the changes need). */
export interface InsertedRecord {
  id: number;
  contactId: number;
  isFirstTime: boolean;
  /** Epoch ms of attended_at. */
  at: number;
}

/**
 * One INSERT … SELECT over the id array, ON CONFLICT DO NOTHING on (session, contact): contacts
 * already present are left out of the result. The insert trigger (migration 0008) copies the
 * session's date/group/event and takes the contact's first visit.
 */
export async function insertRecords(
  tx: Db, tenantId: number, sessionId: number, contactIds: readonly number[], kind: RecordKind, checkedIn = false,
): Promise<InsertedRecord[]> {
  const rows = rowsOf<{ id: Num; contact_id: Num; is_first_time: boolean; at: Num }>(
    await tx.execute(sql`
      insert into attendance_records (tenant_id, session_id, contact_id, kind, checked_in_at)
      select ${tenantId}::bigint, ${sessionId}::bigint, c, ${kind}, ${checkedIn ? sql`now()` : sql`null`} from unnest(${idArray(contactIds)}) as c
      on conflict do nothing
      returning id, contact_id, is_first_time, floor(extract(epoch from attended_at) * 1000)::float8 as at`),
  );
  return rows.map((r) => ({ id: Number(r.id), contactId: Number(r.contact_id), isFirstTime: r.is_first_time, at: Number(r.at) }));
}

/** Records of contacts already present when they check in: the check-in instant is set once. */
export async function markCheckedIn(tx: Db, tenantId: number, sessionId: number, contactIds: readonly number[]): Promise<void> {
  await tx.execute(sql`update attendance_records set checked_in_at = now()
    where tenant_id = ${tenantId} and session_id = ${sessionId} and contact_id = any(${idArray(contactIds)}) and checked_in_at is null`);
}

export async function deleteRecord(tx: Db, tenantId: number, sessionId: number, contactId: number): Promise<boolean> {
  const rows = rowsOf<{ id: Num }>(
    await tx.execute(sql`delete from attendance_records where tenant_id = ${tenantId} and session_id = ${sessionId} and contact_id = ${contactId} returning id`),
  );
  return rows.length > 0;
}

/** The feed item select; `where` is a condition on `r` (attendance_records) and `s` (its session). */
function recordSelect(t: number, where: SQL, tail: SQL): SQL {
  return sql`
    select r.id, r.session_id, to_char(r.date, 'YYYY-MM-DD') as date, s.source, r.group_id, g.name as group_name,
      s.service_id, sv.name as service_name, r.event_id, e.name as event_name, r.contact_id,
      coalesce(p.first_name, c.name, '') as first_name, coalesce(p.last_name, '') as last_name, r.kind, r.is_first_time,
      floor(extract(epoch from r.checked_in_at) * 1000)::float8 as checked_in_at
    from attendance_records r
      join attendance_sessions s on s.tenant_id = ${t} and s.id = r.session_id
      left join groups g on g.tenant_id = ${t} and g.id = r.group_id
      left join attendance_services sv on sv.tenant_id = ${t} and sv.id = s.service_id
      left join events e on e.tenant_id = ${t} and e.id = r.event_id
      left join persons p on p.tenant_id = ${t} and p.contact_id = r.contact_id
      left join companies c on c.tenant_id = ${t} and c.contact_id = r.contact_id
    where r.tenant_id = ${t} and ${where}
    ${tail}`;
}

/**
 * The feed page's select: the same columns as recordSelect, but the names of the group, service,
 * event and company come from scalar subqueries (one probe per row of the page) instead of joins.
 * Planning a seven-table join cost several times its execution (parish_bench, RLS on: 3.4 ms to plan,
 * 0.5 to run; this form 0.6 to plan, 0.4 to run). Only for pages (≤ 100 rows): `where` may name `r`
 * and `s`.
 */
function feedPageSelect(t: number, where: SQL, tail: SQL): SQL {
  return sql`
    select r.id, r.session_id, to_char(r.date, 'YYYY-MM-DD') as date, s.source, r.group_id,
      (select g.name from groups g where g.tenant_id = ${t} and g.id = r.group_id) as group_name,
      s.service_id, (select sv.name from attendance_services sv where sv.tenant_id = ${t} and sv.id = s.service_id) as service_name,
      r.event_id, (select e.name from events e where e.tenant_id = ${t} and e.id = r.event_id) as event_name, r.contact_id,
      coalesce(p.first_name, (select c.name from companies c where c.tenant_id = ${t} and c.contact_id = r.contact_id), '') as first_name,
      coalesce(p.last_name, '') as last_name, r.kind, r.is_first_time,
      floor(extract(epoch from r.checked_in_at) * 1000)::float8 as checked_in_at
    from attendance_records r
      join attendance_sessions s on s.tenant_id = ${t} and s.id = r.session_id
      left join persons p on p.tenant_id = ${t} and p.contact_id = r.contact_id
    where r.tenant_id = ${t} and ${where}
    ${tail}`;
}

type RecordRaw = Record<string, unknown>;
const ref = (id: unknown, name: unknown) => (id === null || id === undefined ? null : { id: Number(id), name: String(name ?? '') });

function toRecordItem(r: RecordRaw): RecordItem {
  return {
    id: Number(r.id),
    sessionId: Number(r.session_id),
    date: String(r.date),
    source: r.source as SessionSource,
    group: ref(r.group_id, r.group_name),
    service: ref(r.service_id, r.service_name),
    event: ref(r.event_id, r.event_name),
    contact: r.contact_id === null ? null : { id: Number(r.contact_id), firstName: String(r.first_name), lastName: String(r.last_name) },
    kind: r.kind as RecordKind,
    isFirstTime: Boolean(r.is_first_time),
    checkedInAt: r.checked_in_at === null || r.checked_in_at === undefined ? null : new Date(Number(r.checked_in_at)).toISOString(),
  };
}

/**
 * How the feed's exact total is counted: `records` counts the matching rows (one contact's or one
 * event's records: their indexes hold a few hundred at most); `counters` sums the record counters
 * that migration 0015's triggers keep at commit — the tenant's daily rollup when no groupId narrows
 * the scope (a few hundred rows a year; less the sessions of groups hidden from the caller), else
 * the counters of the sessions in scope. `range` is
 * over `d.date`, the day of the rollup row or session.
 */
export type FeedCount =
  | { by: 'records' }
  | { by: 'counters'; scope: AttendanceScope; range: SQL[]; serviceId?: number; kind?: RecordKind };

/** Counters of `kind` (every record when undefined) among the columns of a rollup row or session. */
function kindCounter(kind: RecordKind | undefined, c: { present: SQL; guests: SQL; volunteers: SQL }): SQL {
  if (kind === 'Guest') return c.guests;
  if (kind === 'Volunteer') return c.volunteers;
  if (kind === 'Regular') return sql`(${c.present} - ${c.guests} - ${c.volunteers})`;
  return c.present;
}

/** A statement of one row, `n`: the feed's exact total. */
function countFeedSql(t: number, where: SQL, count: FeedCount): SQL {
  let statement: SQL;
  if (count.by === 'records') {
    statement = sql`select count(*) as n from attendance_records r join attendance_sessions s on s.tenant_id = ${t} and s.id = r.session_id
      where r.tenant_id = ${t} and ${where}`;
  } else if ((count.scope.whole || count.scope.hidden) && count.serviceId === undefined) {
    // The tenant's daily rollup; for a caller who cannot see every group, minus the sessions of the
    // groups hidden from them (non-public ones only: usually few).
    const n = kindCounter(count.kind, { present: sql`d.present`, guests: sql`d.guests`, volunteers: sql`d.volunteers` });
    const range = sql.join(count.range.map((c) => sql`and ${c}`), sql` `);
    const daily = sql`(select coalesce(sum(${n}), 0) from attendance_daily_counts d where d.tenant_id = ${t} ${range})`;
    const hidden = count.scope.hidden
      ? sql` - (select coalesce(sum(${kindCounter(count.kind, { present: sql`d.present_count`, guests: sql`d.guest_count`, volunteers: sql`d.volunteer_count` })}), 0)
          from attendance_sessions d where d.tenant_id = ${t} and ${count.scope.hidden(sql`d.group_id`)} ${range})`
      : sql``;
    statement = sql`select ${daily}${hidden} as n`;
  } else {
    const n = kindCounter(count.kind, { present: sql`d.present_count`, guests: sql`d.guest_count`, volunteers: sql`d.volunteer_count` });
    const service = count.serviceId !== undefined ? sql`and d.source = 'Service' and d.service_id = ${count.serviceId}` : sql``;
    statement = sql`select coalesce(sum(${n}), 0) as n from attendance_sessions d
      where d.tenant_id = ${t} and ${count.scope.on(sql`d.group_id`)} ${service} ${sql.join(count.range.map((c) => sql`and ${c}`), sql` `)}`;
  }
  return statement;
}

/**
 * The feed: newest first (date, then id), a page and the exact total, in ONE statement (the total's
 * row left-joined to the page: an empty page still answers its total).
 */
export async function pageRecords(
  tx: Db, tenantId: number, where: SQL, limit: number, offset: number, count: FeedCount,
): Promise<{ items: RecordItem[]; total: number }> {
  const rows = rowsOf<RecordRaw & { total: Num }>(
    await tx.execute(sql`
      select page.*, cnt.n as total
      from (${countFeedSql(tenantId, where, count)}) cnt
        left join (${feedPageSelect(tenantId, where, sql`order by r.date desc, r.id desc limit ${limit} offset ${offset}`)}) page on true
      order by page.date desc, page.id desc`),
  );
  const total = rows.length ? Number(rows[0].total) : 0;
  return { items: rows.filter((r) => r.id !== null && r.id !== undefined).map(toRecordItem), total };
}

/** Every record of a session (the session read), in arrival order. */
export async function sessionRecords(tx: Db, tenantId: number, sessionId: number): Promise<RecordItem[]> {
  const rows = rowsOf<RecordRaw>(await tx.execute(recordSelect(tenantId, sql`r.session_id = ${sessionId}`, sql`order by r.attended_at, r.id`)));
  return rows.map(toRecordItem);
}

/** Records by id (after an insert), in id order. */
export async function recordsById(tx: Db, tenantId: number, ids: readonly number[]): Promise<RecordItem[]> {
  if (ids.length === 0) return [];
  const rows = rowsOf<RecordRaw>(await tx.execute(recordSelect(tenantId, sql`r.id = any(${idArray(ids)})`, sql`order by r.id`)));
  return rows.map(toRecordItem);
}

/** The record of one contact at a session. */
export async function recordOf(tx: Db, tenantId: number, sessionId: number, contactId: number): Promise<RecordItem | undefined> {
  const rows = rowsOf<RecordRaw>(await tx.execute(recordSelect(tenantId, sql`r.session_id = ${sessionId} and r.contact_id = ${contactId}`, sql``)));
  return rows[0] && toRecordItem(rows[0]);
}

/**
 * A Person matching a quick guest, as the contacts import matches (email case-insensitively first,
 * then phone digits; the lowest id wins).
 */
export async function matchPerson(tx: Db, tenantId: number, email: string | null, digits: string | null): Promise<{ id: number; by: 'email' | 'phone' } | undefined> {
  if (!email && !digits) return undefined;
  const [row] = rowsOf<{ id: Num; rank: Num }>(
    await tx.execute(sql`
      select id, rank from (
        (select 1 as rank, ce.contact_id as id from contact_emails ce join contacts c on c.tenant_id = ce.tenant_id and c.id = ce.contact_id
          where ce.tenant_id = ${tenantId} and c.category = 'Person' and ${email ? sql`lower(ce.value) = lower(${email})` : sql`false`})
        union all
        (select 2, cp.contact_id from contact_phones cp join contacts c on c.tenant_id = cp.tenant_id and c.id = cp.contact_id
          where cp.tenant_id = ${tenantId} and c.category = 'Person' and ${digits ? sql`cp.digits = ${digits}` : sql`false`})
      ) m order by rank, id limit 1`),
  );
  return row ? { id: Number(row.id), by: Number(row.rank) === 1 ? 'email' : 'phone' } : undefined;
}
