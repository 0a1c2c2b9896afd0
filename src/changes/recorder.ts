import { sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import type { FieldChanges } from '../db/schema/changes.js';
import type { ChangeType } from './types.js';

export type { FieldChanges };

/** Who made a change: a request's principal, or a system actor (the worker) with no user. */
export interface Actor {
  tenantId: number;
  userId?: number | null;
}

export interface NewChange {
  type: ChangeType;
  /** The record's id; its type is the change type's prefix. */
  entityId: number;
  /** Field-level from/to, for updates (see fieldChanges). */
  changes?: FieldChanges | null;
  /** What subscribers and the timeline need to know (ids, names, statuses): never secrets. */
  data?: Record<string, unknown>;
}

/** Keys never recorded, at any depth: credentials and their hashes. */
const SECRET_KEY = /password|secret|token|hash/i;

function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact);
  if (value && typeof value === 'object' && !(value instanceof Date)) {
    return Object.fromEntries(Object.entries(value).filter(([k]) => !SECRET_KEY.test(k)).map(([k, v]) => [k, redact(v)]));
  }
  return value;
}

/**
 * Records changes in the caller's transaction, in ONE statement however many (a roster post of
 * 1,000 contacts is one insert), and queues them for the subscribers in the same statement. Call it
 * inside the transaction of the write it describes: no change without its write, no write without
 * its change. Returns the new change ids in order.
 */
export async function recordChanges(tx: Db, actor: Actor, items: readonly NewChange[]): Promise<number[]> {
  if (items.length === 0) return [];
  const rows = items.map((c, ordinal) => ({
    ordinal,
    type: c.type,
    entity_id: c.entityId,
    changes: c.changes && Object.keys(c.changes).length ? redact(c.changes) : null,
    data: redact(c.data ?? {}),
  }));
  const result = await tx.execute<{ change_id: string | number }>(sql`
    with input as (
      select * from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
        as x(ordinal int, type text, entity_id bigint, changes jsonb, data jsonb)
    ), inserted as (
      insert into changes (tenant_id, type, entity_type, entity_id, actor_user_id, changes, data)
      select ${actor.tenantId}::bigint, type, split_part(type, '.', 1), entity_id, ${actor.userId ?? null}::bigint, changes, data
      from input order by ordinal
      returning tenant_id, id
    )
    insert into change_queue (tenant_id, change_id) select tenant_id, id from inserted returning change_id`);
  return (result as unknown as { rows: { change_id: string | number }[] }).rows.map((r) => Number(r.change_id)).sort((a, b) => a - b);
}

export function recordChange(tx: Db, actor: Actor, change: NewChange): Promise<number[]> {
  return recordChanges(tx, actor, [change]);
}

/**
 * The fields whose values differ between `before` and `after`, as {from, to}; only keys present in
 * `after` are compared (an update names what it sets). Null when nothing changed.
 */
export function fieldChanges(before: Record<string, unknown>, after: Record<string, unknown>): FieldChanges | null {
  const out: FieldChanges = {};
  for (const [key, to] of Object.entries(after)) {
    if (to === undefined) continue;
    const from = before[key] ?? null;
    if (JSON.stringify(normal(from)) !== JSON.stringify(normal(to))) out[key] = { from: normal(from), to: normal(to) };
  }
  return Object.keys(out).length ? out : null;
}

function normal(value: unknown): unknown {
  return value instanceof Date ? value.toISOString() : value ?? null;
}

/**
 * Takes a tenant's recorded-but-undispatched changes off the subscribers' queue: for history written
 * as a whole (the demo church's past weeks), which automations, notifications and webhooks must not
 * act on as if it were happening now. The changes stay in the audit.
 */
export async function withholdQueuedChanges(tx: Db, tenantId: number): Promise<void> {
  await tx.execute(sql`delete from change_queue where tenant_id = ${tenantId}`);
}
