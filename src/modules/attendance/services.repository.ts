import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import type { ServiceFrequency } from '../../db/schema/attendance.js';
import { rowsOf } from './attendance.queries.js';
import type { ServiceItem } from './attendance.schemas.js';

type Num = string | number | null;

export interface ServiceValues {
  name?: string;
  groupId?: number;
  dayOfWeek?: number;
  startTime?: string;
  frequency?: ServiceFrequency;
  headcountTypes?: string[];
  isActive?: boolean;
  metaData?: Record<string, unknown>;
}

const COLUMNS: Record<keyof ServiceValues, string> = {
  name: 'name', groupId: 'group_id', dayOfWeek: 'day_of_week', startTime: 'start_time', frequency: 'frequency',
  headcountTypes: 'headcount_types', isActive: 'is_active', metaData: 'meta_data',
};

const value = (key: keyof ServiceValues, v: unknown): SQL =>
  key === 'headcountTypes' || key === 'metaData' ? sql`${JSON.stringify(v)}::jsonb` : sql`${v}`;

export async function insertService(tx: Db, tenantId: number, values: ServiceValues): Promise<number> {
  const keys = (Object.keys(values) as (keyof ServiceValues)[]).filter((k) => values[k] !== undefined);
  const [row] = rowsOf<{ id: Num }>(
    await tx.execute(sql`insert into attendance_services (tenant_id, ${sql.raw(keys.map((k) => COLUMNS[k]).join(', '))})
      values (${tenantId}, ${sql.join(keys.map((k) => value(k, values[k])), sql`, `)}) returning id`),
  );
  return Number(row.id);
}

export async function updateService(tx: Db, tenantId: number, id: number, values: ServiceValues): Promise<void> {
  const keys = (Object.keys(values) as (keyof ServiceValues)[]).filter((k) => values[k] !== undefined);
  const sets = [sql`updated_at = now()`, ...keys.map((k) => sql`${sql.raw(COLUMNS[k])} = ${value(k, values[k])}`)];
  await tx.execute(sql`update attendance_services set ${sql.join(sets, sql`, `)} where tenant_id = ${tenantId} and id = ${id}`);
}

export async function deleteService(tx: Db, tenantId: number, id: number): Promise<void> {
  await tx.execute(sql`delete from attendance_services where tenant_id = ${tenantId} and id = ${id}`);
}

export async function sessionCountOf(tx: Db, tenantId: number, serviceId: number): Promise<number> {
  const [row] = rowsOf<{ n: Num }>(
    await tx.execute(sql`select count(*) as n from attendance_sessions where tenant_id = ${tenantId} and source = 'Service' and service_id = ${serviceId}`),
  );
  return Number(row.n);
}

export interface ServiceRow extends ServiceItem {
  groupPath: string;
  groupPrivacy: string;
}

function serviceSelect(t: number, where: SQL, tail: SQL): SQL {
  return sql`select sv.id, sv.name, sv.group_id, g.name as group_name, g.path as group_path, g.privacy as group_privacy, sv.day_of_week, sv.start_time,
      sv.frequency, sv.headcount_types, sv.is_active, sv.meta_data, count(*) over () as total
    from attendance_services sv join groups g on g.tenant_id = sv.tenant_id and g.id = sv.group_id
    where sv.tenant_id = ${t} and ${where} ${tail}`;
}

function toRow(r: Record<string, unknown>): ServiceRow {
  return {
    id: Number(r.id), name: String(r.name), group: { id: Number(r.group_id), name: String(r.group_name) },
    dayOfWeek: Number(r.day_of_week), startTime: String(r.start_time), frequency: r.frequency as ServiceFrequency,
    headcountTypes: r.headcount_types as string[], isActive: Boolean(r.is_active), metaData: r.meta_data as Record<string, unknown>,
    groupPath: String(r.group_path), groupPrivacy: String(r.group_privacy),
  };
}

export async function findService(tx: Db, tenantId: number, id: number): Promise<ServiceRow | undefined> {
  const [row] = rowsOf<Record<string, unknown>>(await tx.execute(serviceSelect(tenantId, sql`sv.id = ${id}`, sql``)));
  return row && toRow(row);
}

/** Services by name, then id; `where` is a condition on `sv` and `g`. */
export async function pageServices(tx: Db, tenantId: number, where: SQL, limit: number, offset: number): Promise<{ items: ServiceRow[]; total: number }> {
  const rows = rowsOf<Record<string, unknown>>(await tx.execute(serviceSelect(tenantId, where, sql`order by sv.name, sv.id limit ${limit} offset ${offset}`)));
  let total = rows.length ? Number(rows[0].total) : 0;
  if (!rows.length && offset > 0) {
    const [c] = rowsOf<{ n: Num }>(
      await tx.execute(sql`select count(*) as n from attendance_services sv join groups g on g.tenant_id = sv.tenant_id and g.id = sv.group_id where sv.tenant_id = ${tenantId} and ${where}`),
    );
    total = Number(c.n);
  }
  return { items: rows.map(toRow), total };
}

export const toServiceItem = ({ groupPath: _p, groupPrivacy: _v, ...item }: ServiceRow): ServiceItem => item;
