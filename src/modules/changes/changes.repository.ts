import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import type { FieldChanges } from '../../db/schema/changes.js';
import type { Page } from '../../lib/pagination.js';

/** Reads of the change feed: the audit log and the contact timeline. */

export interface ChangeRow {
  id: string | number;
  type: string;
  occurred_at: string | Date;
  actor_user_id: string | number | null;
  username: string | null;
  entity_type: string;
  entity_id: string | number;
  changes: FieldChanges | null;
  data: Record<string, unknown>;
  total: string | number;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

export interface AuditFilter {
  entityType?: string;
  entityId?: number;
  actorUserId?: number;
  type?: string;
  from?: string;
  to?: string;
}

/** The tenant's local midnight starting `date`, as an instant (dates are read in the tenant's zone). */
const localMidnight = (tenantId: number, date: SQL) =>
  sql`timezone((select t.time_zone from tenants t where t.id = ${tenantId}), (${date})::timestamp)`;

function auditWhere(tenantId: number, f: AuditFilter, readable: SQL): SQL {
  const parts: SQL[] = [sql`c.tenant_id = ${tenantId}`, readable];
  if (f.entityType !== undefined) parts.push(sql`c.entity_type = ${f.entityType}`);
  if (f.entityId !== undefined) parts.push(sql`c.entity_id = ${f.entityId}`);
  if (f.actorUserId !== undefined) parts.push(sql`c.actor_user_id = ${f.actorUserId}`);
  if (f.type !== undefined) parts.push(sql`c.type = ${f.type}`);
  if (f.from !== undefined) {
    parts.push(DATE.test(f.from) ? sql`c.occurred_at >= ${localMidnight(tenantId, sql`${f.from}::date`)}` : sql`c.occurred_at >= ${f.from}::timestamptz`);
  }
  if (f.to !== undefined) {
    parts.push(DATE.test(f.to) ? sql`c.occurred_at < ${localMidnight(tenantId, sql`${f.to}::date + 1`)}` : sql`c.occurred_at <= ${f.to}::timestamptz`);
  }
  return sql.join(parts, sql` and `);
}

const rowsOf = <T>(result: unknown) => (result as { rows: T[] }).rows;

/**
 * A page of the changes `readable` lets through (src/changes/readable.ts), newest first
 * (occurred_at, then id), with the actor's username, and the total from a window count in the same
 * statement (a page past the end counts separately). An entity filter is served by
 * changes_entity_idx, a time window by changes_occurred_idx.
 */
export async function pageAudit(tx: Db, tenantId: number, filter: AuditFilter, readable: SQL, page: Page) {
  const where = auditWhere(tenantId, filter, readable);
  const rows = rowsOf<ChangeRow>(await tx.execute(sql`
    select c.id, c.type, c.occurred_at, c.actor_user_id, u.username, c.entity_type, c.entity_id, c.changes, c.data, count(*) over () as total
    from changes c
    left join users u on u.tenant_id = c.tenant_id and u.id = c.actor_user_id
    where ${where}
    order by c.occurred_at desc, c.id desc
    limit ${page.limit} offset ${page.offset}`));
  if (rows.length > 0 || page.offset === 0) return { rows, total: rows.length ? Number(rows[0].total) : 0 };
  const [{ total }] = rowsOf<{ total: string | number }>(await tx.execute(sql`select count(*) as total from changes c where ${where}`));
  return { rows, total: Number(total) };
}

/**
 * The changes about one contact that `readable` lets through: its own (entity contact) and every
 * change carrying its id in data.contactId (changes_entity_idx and changes_contact_idx, OR-ed), newest first.
 */
export async function pageTimeline(tx: Db, tenantId: number, contactId: number, readable: SQL, page: Page) {
  const where = sql.join([
    sql`c.tenant_id = ${tenantId}`,
    sql`((c.entity_type = 'contact' and c.entity_id = ${contactId}) or (c.data -> 'contactId') = ${String(contactId)}::jsonb)`,
    readable,
  ], sql` and `);
  const rows = rowsOf<ChangeRow>(await tx.execute(sql`
    select c.id, c.type, c.occurred_at, c.entity_type, c.entity_id, c.changes, c.data, count(*) over () as total
    from changes c
    where ${where}
    order by c.occurred_at desc, c.id desc
    limit ${page.limit} offset ${page.offset}`));
  if (rows.length > 0 || page.offset === 0) return { rows, total: rows.length ? Number(rows[0].total) : 0 };
  const [{ total }] = rowsOf<{ total: string | number }>(await tx.execute(sql`select count(*) as total from changes c where ${where}`));
  return { rows, total: Number(total) };
}

export async function contactExists(tx: Db, tenantId: number, id: number): Promise<boolean> {
  const rows = rowsOf(await tx.execute(sql`select 1 from contacts where tenant_id = ${tenantId} and id = ${id}`));
  return rows.length > 0;
}
