import { sql } from 'drizzle-orm';
import { dispatchChanges, type ChangeSubscriber } from '../changes/subscribers.js';
import { JOB_BATCH, type Job, type JobContext, type JobHandler, type Schedule } from './queue.js';

export interface WorkerOptions extends JobContext {
  subscribers: ChangeSubscriber[];
  jobs: Record<string, JobHandler>;
  schedules: Schedule[];
  /** How often an idle worker looks for work (ms). */
  pollMs?: number;
  /** Jobs run at once by one process. */
  concurrency?: number;
}

export interface Worker {
  /** Polls for changes, jobs and schedules until stop(). Every server process runs one. */
  start(): void;
  stop(): Promise<void>;
  /** Runs everything due until nothing is (tests; and what each poll does). Returns the work done. */
  drain(): Promise<{ changes: number; jobs: number }>;
  /** Adds a consumer of the change feed (tests add probes; modules declare theirs in the module list). */
  subscribe(subscriber: ChangeSubscriber): void;
  /** Runs a schedule now, whether due or not (tests; operators). */
  runSchedule(name: string): Promise<void>;
}

/** Seconds a taken job is leased: a process that dies mid-job leaves it to be taken again after this. */
const LEASE_SECONDS = 300;
const defaultBackoff = (attempts: number) => Math.min(3600, 2 ** attempts);

interface JobRow {
  tenant_id: string | number;
  id: string | number;
  kind: string;
  payload: Record<string, unknown>;
  attempts: number;
  max_attempts: number;
}

/**
 * The background worker of one server process: hands changes to subscribers, runs jobs and
 * schedules. Everything it works from is a row (change_queue, jobs, schedules), taken with
 * FOR UPDATE SKIP LOCKED or a conditional update, so any number of processes can run one.
 */
export function createWorker(options: WorkerOptions): Worker {
  const { db, log } = options;
  const subscribers = [...options.subscribers];
  const pollMs = options.pollMs ?? 250;
  const concurrency = options.concurrency ?? 8;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  let stopped = true;

  const onChangeError = (err: unknown, change: { id: number; type: string }) =>
    log.error({ err, changeId: change.id, type: change.type }, 'a change subscriber failed; the change will be retried');

  /** Kinds whose handler takes batches: taken many at a time, run JOB_BATCH per call. */
  const batchKinds = Object.entries(options.jobs).filter(([, h]) => h.runBatch).map(([kind]) => kind);
  const inBatchKinds = sql.join(batchKinds.map((k) => sql`${k}`), sql`, `);

  async function takeJobs(limit: number, which: 'single' | 'batch'): Promise<Job[]> {
    const kinds = batchKinds.length === 0 ? sql`` : which === 'batch' ? sql`and kind in (${inBatchKinds})` : sql`and kind not in (${inBatchKinds})`;
    const result = await db.execute(sql`
      update jobs set status = 'Running', attempts = attempts + 1, locked_until = now() + make_interval(secs => ${LEASE_SECONDS})
      where (tenant_id, id) in (
        select tenant_id, id from jobs
        where ((status = 'Pending' and run_at <= now()) or (status = 'Running' and locked_until < now())) ${kinds}
        order by run_at, id limit ${limit} for update skip locked)
      returning tenant_id, id, kind, payload, attempts, max_attempts`);
    return (result as unknown as { rows: JobRow[] }).rows.map((r) => ({
      tenantId: Number(r.tenant_id), id: Number(r.id), kind: r.kind, payload: r.payload, attempts: r.attempts, maxAttempts: r.max_attempts,
    }));
  }

  async function failed(job: Job, handler: JobHandler | undefined, err: unknown): Promise<void> {
    const message = String((err as Error)?.message ?? err).slice(0, 1000);
    const final = job.attempts >= job.maxAttempts;
    log.warn({ err, jobId: job.id, kind: job.kind, attempts: job.attempts, final }, 'a job failed');
    const delay = (handler?.backoff ?? defaultBackoff)(job.attempts);
    await db.execute(sql`update jobs set status = ${final ? 'Failed' : 'Pending'}, last_error = ${message}, locked_until = null,
        run_at = now() + make_interval(secs => ${delay}), finished_at = ${final ? sql`now()` : sql`null`}
      where tenant_id = ${job.tenantId} and id = ${job.id}`);
    if (final && handler?.onFailed) await handler.onFailed(job, message, options).catch((e: unknown) => log.error({ err: e }, 'onFailed failed'));
  }

  /** Jobs of one tenant: done in one statement. */
  async function done(jobs: readonly Job[]): Promise<void> {
    if (jobs.length === 0) return;
    await db.execute(sql`update jobs set status = 'Done', finished_at = now(), locked_until = null, last_error = null
      where tenant_id = ${jobs[0].tenantId} and id in (${sql.join(jobs.map((j) => sql`${j.id}`), sql`, `)})`);
  }

  async function runJob(job: Job): Promise<void> {
    const handler = options.jobs[job.kind];
    try {
      if (!handler?.run) throw new Error(`No handler for job kind ${job.kind}`);
      await handler.run(job, options);
      await done([job]);
    } catch (err) {
      await failed(job, handler, err);
    }
  }

  /** Jobs of one kind and one tenant, handed to the kind's runBatch at once. */
  async function runBatch(jobs: readonly Job[]): Promise<void> {
    const handler = options.jobs[jobs[0].kind];
    const outcomes = await handler.runBatch!(jobs, options).catch((err: unknown) => jobs.map(() => err as Error));
    await done(jobs.filter((_, i) => !outcomes[i]));
    for (const [i, job] of jobs.entries()) if (outcomes[i]) await failed(job, handler, outcomes[i]);
  }

  /** Batches of up to JOB_BATCH jobs of one kind and tenant. */
  function batches(jobs: Job[]): Job[][] {
    const groups = new Map<string, Job[][]>();
    for (const job of jobs) {
      const key = `${job.kind}:${job.tenantId}`;
      const list = groups.get(key) ?? groups.set(key, [[]]).get(key)!;
      if (list.at(-1)!.length === JOB_BATCH) list.push([]);
      list.at(-1)!.push(job);
    }
    return [...groups.values()].flat();
  }

  /** Up to `concurrency` single jobs, and up to 4 × JOB_BATCH jobs of the batch kinds, at once. */
  async function runJobs(): Promise<number> {
    const single = await takeJobs(concurrency, 'single');
    const batched = batchKinds.length ? await takeJobs(4 * JOB_BATCH, 'batch') : [];
    await Promise.all([...single.map(runJob), ...batches(batched).map(runBatch)]);
    return single.length + batched.length;
  }

  async function runDueSchedules(): Promise<void> {
    for (const schedule of options.schedules) {
      await db.execute(sql`insert into schedules (name) values (${schedule.name}) on conflict do nothing`);
      const claimed = await db.execute(sql`update schedules set next_run_at = now() + make_interval(secs => ${schedule.everySeconds}), last_run_at = now()
        where name = ${schedule.name} and next_run_at <= now() returning name`);
      if ((claimed as unknown as { rows: unknown[] }).rows.length === 0) continue;
      await schedule.run(options).catch((err: unknown) => log.error({ err, schedule: schedule.name }, 'a schedule failed'));
    }
  }

  async function drain() {
    const done = { changes: 0, jobs: 0 };
    for (let round = 0; round < 1000; round++) {
      // The feed and the jobs side by side (separate connections; PGlite takes them in turn): jobs
      // a subscriber queues this round run in the next.
      const [dispatched, ran] = await Promise.allSettled([dispatchChanges(db, subscribers, onChangeError), runJobs()]);
      if (dispatched.status === 'rejected') throw dispatched.reason;
      if (ran.status === 'rejected') throw ran.reason;
      const [changes, jobs] = [dispatched.value, ran.value];
      done.changes += changes;
      done.jobs += jobs;
      if (changes === 0 && jobs === 0) break;
    }
    return done;
  }

  async function tick() {
    try {
      await drain();
      await runDueSchedules();
    } catch (err) {
      log.error({ err }, 'worker tick failed');
    }
  }

  function loop() {
    if (stopped) return;
    running = tick().finally(() => {
      running = undefined;
      if (!stopped) timer = setTimeout(loop, pollMs);
    });
  }

  return {
    start() {
      if (!stopped) return;
      stopped = false;
      timer = setTimeout(loop, 0);
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
    drain,
    subscribe(subscriber) {
      subscribers.push(subscriber);
    },
    async runSchedule(name) {
      const schedule = options.schedules.find((s) => s.name === name);
      if (!schedule) throw new Error(`No schedule ${name}`);
      await schedule.run(options);
    },
  };
}
