import { sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { Db } from '../db/client.js';
import type { Mailer } from '../lib/mailer.js';

/** What a job handler or a schedule gets: the database (not bound to a tenant), mail, config, log. */
export interface JobContext {
  db: Db;
  mailer: Mailer;
  config: Config;
  log: FastifyBaseLogger;
}

export interface Job {
  tenantId: number;
  id: number;
  kind: string;
  payload: Record<string, unknown>;
  /** 1 on the first run. */
  attempts: number;
  maxAttempts: number;
}

/**
 * Runs jobs of one kind. Throwing means "failed this time": the job is retried after
 * `backoff(attempts)` seconds until maxAttempts, then marked Failed (and `onFailed` runs). Handlers
 * must be safe to run again: a crash after the work but before the job is marked done runs it a
 * second time. A handler has `run` (one job per call) or `runBatch` (for many small jobs, such as
 * webhook deliveries: the worker hands it up to JOB_BATCH due jobs of one tenant at once).
 */
export type JobHandler = JobHandlerOptions & (
  | { run(job: Job, ctx: JobContext): Promise<void>; runBatch?: never }
  /** Resolves with one outcome per job, in order: null when done, else why it failed this time. */
  | { runBatch(jobs: readonly Job[], ctx: JobContext): Promise<(Error | null)[]>; run?: never }
);

export interface JobHandlerOptions {
  /** Seconds before attempt n + 1 (default: 2^n, at most an hour). */
  backoff?(attempts: number): number;
  /** After the last attempt failed. */
  onFailed?(job: Job, error: string, ctx: JobContext): Promise<void>;
}

/** Most jobs a batch handler gets in one call. */
export const JOB_BATCH = 100;

/** Recurring work across all tenants; at most one server process runs it per period. */
export interface Schedule {
  name: string;
  everySeconds: number;
  run(ctx: JobContext): Promise<void>;
}

export interface NewJob {
  kind: string;
  payload?: Record<string, unknown>;
  /** Default: now. */
  runAt?: Date;
  maxAttempts?: number;
}

/**
 * Queues background work in the caller's transaction (so it exists exactly when the write that
 * asked for it commits). Returns the job ids.
 */
export async function enqueueJobs(tx: Db, tenantId: number, jobs: readonly NewJob[]): Promise<number[]> {
  if (jobs.length === 0) return [];
  const rows = jobs.map((j) => ({
    kind: j.kind,
    payload: j.payload ?? {},
    run_at: (j.runAt ?? new Date()).toISOString(),
    max_attempts: j.maxAttempts ?? 8,
  }));
  const result = await tx.execute(sql`
    insert into jobs (tenant_id, kind, payload, run_at, max_attempts)
    select ${tenantId}::bigint, kind, payload, run_at, max_attempts
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as x(kind text, payload jsonb, run_at timestamptz, max_attempts int)
    returning id`);
  return (result as unknown as { rows: { id: string | number }[] }).rows.map((r) => Number(r.id));
}

export function enqueueJob(tx: Db, tenantId: number, job: NewJob): Promise<number[]> {
  return enqueueJobs(tx, tenantId, [job]);
}
