import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { withTenant } from '../../src/db/client.js';
import { enqueueJob, enqueueJobs, JOB_BATCH, type Job, type JobContext } from '../../src/jobs/queue.js';
import { createWorker } from '../../src/jobs/worker.js';
import { setupTestApp } from '../helpers/app.js';
import { newTenant } from '../helpers/factories.js';

const ctx = setupTestApp();

interface JobRow { status: string; attempts: number; last_error: string | null }

async function jobRow(tenantId: number, id: number): Promise<JobRow> {
  const result = await ctx.db.execute(sql`select status, attempts, last_error from jobs where tenant_id = ${tenantId} and id = ${id}`);
  return (result as unknown as { rows: JobRow[] }).rows[0];
}

/** A worker of its own over the test database, with the given job kinds and schedules. */
function worker(jobs: Parameters<typeof createWorker>[0]['jobs'], schedules: Parameters<typeof createWorker>[0]['schedules'] = []) {
  const base: JobContext = { db: ctx.db, mailer: ctx.mailer, config: ctx.config, log: ctx.app.log };
  return createWorker({ ...base, subscribers: [], jobs, schedules });
}

describe('jobs', () => {
  it('runs a job once it is due, in the tenant it was queued for, and marks it done', async () => {
    const t = await newTenant(ctx);
    const seen: Job[] = [];
    const w = worker({ probe: { run: async (job) => void seen.push(job) } });
    const [now] = await withTenant(ctx.db, t.id, (tx) => enqueueJob(tx, t.id, { kind: 'probe', payload: { n: 1 } }));
    const [later] = await withTenant(ctx.db, t.id, (tx) => enqueueJob(tx, t.id, { kind: 'probe', runAt: new Date(Date.now() + 3_600_000) }));
    await w.drain();
    expect(seen.map((j) => [j.id, j.tenantId, j.payload, j.attempts])).toEqual([[now, t.id, { n: 1 }, 1]]);
    expect(await jobRow(t.id, now)).toMatchObject({ status: 'Done', attempts: 1 });
    expect(await jobRow(t.id, later)).toMatchObject({ status: 'Pending', attempts: 0 });
  });

  it('a job queued in a transaction that rolls back never exists', async () => {
    const t = await newTenant(ctx);
    await expect(withTenant(ctx.db, t.id, async (tx) => {
      await enqueueJob(tx, t.id, { kind: 'probe' });
      throw new Error('the write failed');
    })).rejects.toThrow('the write failed');
    const result = await ctx.db.execute(sql`select count(*)::int as n from jobs where tenant_id = ${t.id}`);
    expect((result as unknown as { rows: { n: number }[] }).rows[0].n).toBe(0);
  });

  it('retries a failing job after its backoff and marks it Failed after the last attempt, calling onFailed once', async () => {
    const t = await newTenant(ctx);
    let runs = 0;
    const failed: string[] = [];
    const w = worker({
      flaky: {
        run: async () => { runs++; throw new Error(`boom ${runs}`); },
        backoff: () => 0,
        onFailed: async (_job, error) => void failed.push(error),
      },
    });
    const [id] = await withTenant(ctx.db, t.id, (tx) => enqueueJob(tx, t.id, { kind: 'flaky', maxAttempts: 3 }));
    for (let i = 0; i < 5; i++) await w.drain();
    expect(runs).toBe(3);
    expect(await jobRow(t.id, id)).toEqual({ status: 'Failed', attempts: 3, last_error: 'boom 3' });
    expect(failed).toEqual(['boom 3']);
  });

  it('a job left Running by a dead process is taken again once its lease expires', async () => {
    const t = await newTenant(ctx);
    let runs = 0;
    const w = worker({ probe: { run: async () => void runs++ } });
    const [id] = await withTenant(ctx.db, t.id, (tx) => enqueueJob(tx, t.id, { kind: 'probe' }));
    // A process took it and died: Running, lease still valid, then expired.
    await ctx.db.execute(sql`update jobs set status = 'Running', attempts = 1, locked_until = now() + interval '1 minute' where tenant_id = ${t.id} and id = ${id}`);
    await w.drain();
    expect(runs).toBe(0);
    await ctx.db.execute(sql`update jobs set locked_until = now() - interval '1 second' where tenant_id = ${t.id} and id = ${id}`);
    await w.drain();
    expect(runs).toBe(1);
    expect(await jobRow(t.id, id)).toMatchObject({ status: 'Done', attempts: 2 });
  });

  it('two workers draining at once run each job exactly once', async () => {
    const t = await newTenant(ctx);
    const runs = new Map<number, number>();
    const handler = { run: async (job: Job) => { await new Promise((r) => setTimeout(r, 5)); runs.set(job.id, (runs.get(job.id) ?? 0) + 1); } };
    const ids = await withTenant(ctx.db, t.id, async (tx) => {
      const out: number[] = [];
      for (let i = 0; i < 20; i++) out.push(...(await enqueueJob(tx, t.id, { kind: 'probe' })));
      return out;
    });
    const a = worker({ probe: handler });
    const b = worker({ probe: handler });
    await Promise.all([a.drain(), b.drain()]);
    expect(ids.map((id) => runs.get(id))).toEqual(ids.map(() => 1));
  });

  it('a batch handler gets the due jobs of one tenant at once (at most JOB_BATCH); each job is done or retried on its own', async () => {
    const [t, u] = [await newTenant(ctx), await newTenant(ctx)];
    const calls: { tenantId: number; ids: number[] }[] = [];
    const failing = new Set<number>();
    const w = worker({
      bulk: {
        runBatch: async (jobs) => {
          calls.push({ tenantId: jobs[0].tenantId, ids: jobs.map((j) => j.id) });
          return jobs.map((j) => (failing.delete(j.id) ? new Error(`job ${j.id} failed`) : null));
        },
        backoff: () => 0,
      },
    });
    const many = await withTenant(ctx.db, t.id, (tx) => enqueueJobs(tx, t.id, Array.from({ length: JOB_BATCH + 5 }, () => ({ kind: 'bulk' }))));
    const few = await withTenant(ctx.db, u.id, (tx) => enqueueJobs(tx, u.id, [{ kind: 'bulk' }, { kind: 'bulk' }]));
    failing.add(many[1]);
    await w.drain();
    const sorted = (ids: number[]) => [...ids].sort((a, b) => a - b);
    expect(calls.every((c) => c.ids.length <= JOB_BATCH)).toBe(true);
    // Taken in one statement: one call had a full batch of the first tenant's jobs.
    expect(calls.some((c) => c.tenantId === t.id && c.ids.length === JOB_BATCH)).toBe(true);
    expect(sorted(calls.filter((c) => c.tenantId === t.id).flatMap((c) => c.ids))).toEqual(sorted([...many, many[1]]));
    expect(sorted(calls.filter((c) => c.tenantId === u.id).flatMap((c) => c.ids))).toEqual(few);
    expect(await jobRow(t.id, many[1])).toEqual({ status: 'Done', attempts: 2, last_error: null });
    expect(await jobRow(t.id, many[0])).toMatchObject({ status: 'Done', attempts: 1 });
  });
});

describe('schedules', () => {
  it('a due schedule runs once per period however many workers look', async () => {
    let runs = 0;
    const schedule = { name: `probe-${Date.now()}`, everySeconds: 3600, run: async () => void runs++ };
    const a = worker({}, [schedule]);
    const b = worker({}, [schedule]);
    a.start();
    b.start();
    await new Promise((r) => setTimeout(r, 600));
    await Promise.all([a.stop(), b.stop()]);
    expect(runs).toBe(1);
    await a.runSchedule(schedule.name);
    expect(runs).toBe(2);
  });
});
