import { sql } from 'drizzle-orm';
import { withTenant, type Db } from '../db/client.js';
import type { FieldChanges } from '../db/schema/changes.js';
import type { ChangeType } from './types.js';

/** A change as the subscribers see it. */
export interface ChangeEvent {
  id: number;
  tenantId: number;
  type: ChangeType;
  entityType: string;
  entityId: number;
  actorUserId: number | null;
  changes: FieldChanges | null;
  data: Record<string, unknown>;
  occurredAt: Date;
}

/**
 * A consumer of the change feed. `handle` runs in a transaction bound to the change's tenant (row
 * level security on), after the change's own transaction committed, in change order per tenant,
 * and its writes commit together with the change leaving the queue: so each subscriber's work is
 * kept exactly once per change even though delivery is at least once. A throw rolls back every
 * subscriber's work for that change, which is retried later. Do database work only here; anything
 * that leaves the database (HTTP, email) goes through a job (enqueueJob), which has its own retries.
 */
export interface ChangeSubscriber {
  name: string;
  /** Which types it wants (default all). */
  types?: readonly ChangeType[];
  handle(tx: Db, change: ChangeEvent): Promise<void>;
}

const BATCH = 100;

interface QueueRow {
  id: string | number;
  tenant_id: string | number;
  type: ChangeType;
  entity_type: string;
  entity_id: string | number;
  actor_user_id: string | number | null;
  changes: FieldChanges | null;
  data: Record<string, unknown>;
  occurred_at: string | Date;
  attempts: number;
}

/** Seconds before retrying a change whose subscribers failed `attempts` times (capped at an hour). */
const retryDelay = (attempts: number) => Math.min(3600, 2 ** Math.min(attempts, 12));

/**
 * Hands queued changes to the subscribers: up to BATCH changes of each tenant with due changes, one
 * transaction per tenant, rows taken FOR UPDATE SKIP LOCKED so several server processes share the
 * queue without taking the same change. Returns how many changes were handled (or retried later).
 */
export async function dispatchChanges(db: Db, subscribers: readonly ChangeSubscriber[], onError: (err: unknown, change: ChangeEvent) => void): Promise<number> {
  const due = await db.execute(sql`select distinct tenant_id from (
      select tenant_id from change_queue where available_at <= now() order by change_id limit 1000) q`);
  let handled = 0;
  for (const { tenant_id } of (due as unknown as { rows: { tenant_id: string | number }[] }).rows) {
    handled += await withTenant(db, Number(tenant_id), (tx) => dispatchTenant(tx, Number(tenant_id), subscribers, onError));
  }
  return handled;
}

async function dispatchTenant(tx: Db, tenantId: number, subscribers: readonly ChangeSubscriber[], onError: (err: unknown, change: ChangeEvent) => void): Promise<number> {
  const taken = await tx.execute(sql`
    select c.id, c.tenant_id, c.type, c.entity_type, c.entity_id, c.actor_user_id, c.changes, c.data, c.occurred_at, q.attempts
    from change_queue q join changes c on c.tenant_id = q.tenant_id and c.id = q.change_id
    where q.tenant_id = ${tenantId} and q.available_at <= now()
    order by q.change_id limit ${BATCH}
    for update of q skip locked`);
  const rows = (taken as unknown as { rows: QueueRow[] }).rows;
  for (const row of rows) {
    const change = toEvent(row);
    await tx.execute(sql`savepoint dispatch_change`);
    try {
      for (const subscriber of subscribers) {
        if (!subscriber.types || subscriber.types.includes(change.type)) await subscriber.handle(tx, change);
      }
      await tx.execute(sql`release savepoint dispatch_change`);
      await tx.execute(sql`delete from change_queue where tenant_id = ${tenantId} and change_id = ${change.id}`);
    } catch (err) {
      await tx.execute(sql`rollback to savepoint dispatch_change`);
      onError(err, change);
      const attempts = row.attempts + 1;
      await tx.execute(sql`update change_queue set attempts = ${attempts},
          available_at = now() + make_interval(secs => ${retryDelay(attempts)}), last_error = ${String((err as Error)?.message ?? err).slice(0, 1000)}
        where tenant_id = ${tenantId} and change_id = ${change.id}`);
    }
  }
  return rows.length;
}

function toEvent(row: QueueRow): ChangeEvent {
  return {
    id: Number(row.id),
    tenantId: Number(row.tenant_id),
    type: row.type,
    entityType: row.entity_type,
    entityId: Number(row.entity_id),
    actorUserId: row.actor_user_id === null ? null : Number(row.actor_user_id),
    changes: row.changes,
    data: row.data,
    occurredAt: new Date(row.occurred_at),
  };
}
