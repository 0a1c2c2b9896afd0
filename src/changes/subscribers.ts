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
 * level security on), after the change's own transaction committed, in change order per tenant
 * (one process dispatches a tenant at a time), and its writes commit together with the change leaving the queue: so each subscriber's work is
 * kept exactly once per change even though delivery is at least once. A throw rolls back every
 * subscriber's work for that change, which is retried later. Do database work only here; anything
 * that leaves the database (HTTP, email) goes through a job (enqueueJob), which has its own retries.
 */
export interface ChangeSubscriber {
  name: string;
  /** Which types it wants (default all). */
  types?: readonly ChangeType[];
  handle(tx: Db, change: ChangeEvent): Promise<void>;
  /** Optional: the same as `handle` for each change in order, in fewer statements (the feed hands batches of up to 100). */
  handleBatch?(tx: Db, changes: readonly ChangeEvent[]): Promise<void>;
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

/** The advisory lock namespace of "dispatching this tenant's changes" (any constant unused elsewhere). */
const DISPATCH_LOCK = 0x70617263;

/**
 * The tenants with a due change, each found from the queue's primary key (tenant_id, change_id) by a
 * skip scan: one index probe per tenant for the next tenant id, then one for a due row of that tenant
 * (new changes are due at once; only retried ones wait). A tenant's backlog, however long, is never
 * read to find the others (it used to be: the first 1,000 queued rows were all one busy tenant's).
 */
const dueTenants = sql`
  with recursive queued(tenant_id) as (
    (select tenant_id from change_queue order by tenant_id limit 1)
    union all
    select (select q.tenant_id from change_queue q where q.tenant_id > t.tenant_id order by q.tenant_id limit 1)
    from queued t where t.tenant_id is not null)
  select t.tenant_id from queued t
  -- lateral ... limit 1, not exists: the planner may not turn it into a semi-join over the whole queue
  cross join lateral (select 1 from change_queue q where q.tenant_id = t.tenant_id and q.available_at <= now() limit 1) d
  where t.tenant_id is not null`;

/**
 * Hands queued changes to the subscribers: up to BATCH changes of each tenant with due changes, one
 * transaction per tenant. A tenant is dispatched by one process at a time (a transaction-level
 * advisory lock; another process skips it), so several server processes share the queue and
 * changes still reach the subscribers in order. Returns how many changes were handled (or retried later).
 */
export async function dispatchChanges(db: Db, subscribers: readonly ChangeSubscriber[], onError: (err: unknown, change: ChangeEvent) => void): Promise<number> {
  const due = await db.execute(dueTenants);
  let handled = 0;
  for (const { tenant_id } of (due as unknown as { rows: { tenant_id: string | number }[] }).rows) {
    handled += await withTenant(db, Number(tenant_id), (tx) => dispatchTenant(tx, Number(tenant_id), subscribers, onError));
  }
  return handled;
}

/**
 * Order under retries is kept per entity: while a change waits for its retry, the later changes of
 * the same record (entity type and id) wait behind it, in the queue and in the batch at hand; the
 * changes of other records go on (one change that keeps failing must not stop the whole tenant's
 * notifications and webhooks). So a receiver never sees a record's `updated` before its `created`.
 */
async function dispatchTenant(tx: Db, tenantId: number, subscribers: readonly ChangeSubscriber[], onError: (err: unknown, change: ChangeEvent) => void): Promise<number> {
  const locked = await tx.execute(sql`select pg_try_advisory_xact_lock(${DISPATCH_LOCK}::int, ${tenantId % 2147483647}::int) as ok`);
  if (!(locked as unknown as { rows: { ok: boolean }[] }).rows[0]?.ok) return 0;
  const taken = await tx.execute(sql`
    with waiting as materialized (
      -- only failed changes wait (change_queue_retry_idx)
      select ec.entity_type, ec.entity_id, min(e.change_id) as first_id
      from change_queue e join changes ec on ec.tenant_id = e.tenant_id and ec.id = e.change_id
      where e.tenant_id = ${tenantId} and e.attempts > 0 and e.available_at > now()
      group by ec.entity_type, ec.entity_id)
    select c.id, c.tenant_id, c.type, c.entity_type, c.entity_id, c.actor_user_id, c.changes, c.data, c.occurred_at, q.attempts
    from change_queue q join changes c on c.tenant_id = q.tenant_id and c.id = q.change_id
    where q.tenant_id = ${tenantId} and q.available_at <= now()
      and not exists (select 1 from waiting w where w.entity_type = c.entity_type and w.entity_id = c.entity_id and w.first_id < q.change_id)
    order by q.change_id limit ${BATCH}
    for update of q skip locked`);
  const rows = (taken as unknown as { rows: QueueRow[] }).rows;
  if (rows.length === 0) return 0;
  const changes = rows.map(toEvent);
  if (await dispatchTogether(tx, tenantId, subscribers, changes)) return rows.length;
  const failedEntities = new Set<string>();
  for (const [i, change] of changes.entries()) {
    const entity = `${change.entityType}:${change.entityId}`;
    if (failedEntities.has(entity)) continue; // behind a failed change of the same record: next time
    await tx.execute(sql`savepoint dispatch_change`);
    try {
      for (const subscriber of subscribers) {
        if (wants(subscriber, change)) await subscriber.handle(tx, change);
      }
      await tx.execute(sql`release savepoint dispatch_change`);
      await tx.execute(sql`delete from change_queue where tenant_id = ${tenantId} and change_id = ${change.id}`);
    } catch (err) {
      await tx.execute(sql`rollback to savepoint dispatch_change`);
      onError(err, change);
      failedEntities.add(entity);
      const attempts = rows[i].attempts + 1;
      await tx.execute(sql`update change_queue set attempts = ${attempts},
          available_at = now() + make_interval(secs => ${retryDelay(attempts)}), last_error = ${String((err as Error)?.message ?? err).slice(0, 1000)}
        where tenant_id = ${tenantId} and change_id = ${change.id}`);
    }
  }
  return rows.length;
}

const wants = (subscriber: ChangeSubscriber, change: ChangeEvent) => !subscriber.types || subscriber.types.includes(change.type);

/**
 * The common case in few statements: every subscriber gets the whole batch (handleBatch where it
 * has one) and the batch leaves the queue in one delete. False, with nothing kept, when anything
 * threw: the caller then goes change by change to keep the others and retry only the failed one.
 * (The savepoint has the per-change one's name: a transaction lost mid-way fails both alike.)
 */
async function dispatchTogether(tx: Db, tenantId: number, subscribers: readonly ChangeSubscriber[], changes: ChangeEvent[]): Promise<boolean> {
  await tx.execute(sql`savepoint dispatch_change`);
  try {
    for (const subscriber of subscribers) {
      const wanted = changes.filter((c) => wants(subscriber, c));
      if (wanted.length === 0) continue;
      if (subscriber.handleBatch) await subscriber.handleBatch(tx, wanted);
      else for (const change of wanted) await subscriber.handle(tx, change);
    }
  } catch {
    await tx.execute(sql`rollback to savepoint dispatch_change`);
    return false;
  }
  await tx.execute(sql`release savepoint dispatch_change`);
  await tx.execute(sql`delete from change_queue where tenant_id = ${tenantId} and change_id in (${sql.join(changes.map((c) => sql`${c.id}`), sql`, `)})`);
  return true;
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
