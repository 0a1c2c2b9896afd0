/**
 * The benchmark's server process: the real application (buildApp on the bench database) and, on a
 * second port, the "raw ceiling" — a bare node:http handler that replays the SQL the service ran
 * for a scenario through the same pg pool, with no framework, auth, validation or RLS.
 * Driven by the parent (bench/run.ts) over IPC. The background worker runs as `src/server.ts` runs
 * it (app.worker.start() after listen: write scenarios dispatch their changes, the queue does not
 * back up), unless BENCH_WORKER=0 (run.ts --without-worker); it is paused while a scenario's SQL
 * is captured, so that its polling is not taken for the scenario's statements.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type pg from 'pg';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDb } from '../src/db/client.js';
import { MODULE_SCENARIOS, SCENARIOS } from './scenarios.js';
import { installCapture, serviceStatements, startCapture, stopCapture, type CapturedQuery } from './sql-capture.js';

installCapture();

const config = {
  ...loadConfig({
    NODE_ENV: 'production', JWT_SECRET: process.env.BENCH_JWT_SECRET || crypto.randomBytes(48).toString('hex'), DATA_DIR: process.env.BENCH_DATA_DIR, LOG_LEVEL: 'warn',
    // bench/replicas.ts: read-only routes on hot standbys of the bench database, as DATABASE_REPLICA_URLS does for the service.
    DATABASE_URL: process.env.BENCH_DATABASE_URL, DATABASE_REPLICA_URLS: process.env.BENCH_REPLICA_URLS,
  }),
  // The login scenario runs thousands of logins from one address (api-contract §3: the bench raises the limits).
  authRateLimit: { accountFailures: 1_000_000, ipPerMinute: 1_000_000 },
};
const appDb = await openDb({ ...config, poolSize: 10 });
const pool = (appDb.db as unknown as { $client: pg.Pool }).$client;
const app = await buildApp({ config, db: appDb.db, replicas: appDb.replicas, logger: { level: 'warn' } });
await app.listen({ host: '127.0.0.1', port: 0 });
const withWorker = process.env.BENCH_WORKER !== '0';
if (withWorker) app.worker.start();

/** Stops the worker for a capture (waits for its current tick) and starts it again afterwards. */
async function pauseWorker() {
  if (withWorker) await app.worker.stop();
}
function resumeWorker() {
  if (withWorker) app.worker.start();
}

const raw = new Map<string, CapturedQuery[]>();
let authTexts = new Set<string>();
let tenantId = 0;
const reported = new Set<string>();
/** Scenarios whose ceiling renders its body from the rows (Scenario.rawBody), by id. */
const rawBodies = new Map([...SCENARIOS, ...MODULE_SCENARIOS].flatMap((s) => (s.rawBody ? [[s.id, s.rawBody] as const] : [])));

/** The raw ceiling's body: the rows as JSON, or what the scenario renders from them. */
async function rawBody(name: string, results: unknown[][]): Promise<{ type: string; body: string | Buffer }> {
  const render = rawBodies.get(name);
  return render ? render(results) : { type: 'application/json', body: JSON.stringify(results) };
}

const rawServer = http.createServer((req, res) => {
  const name = decodeURIComponent((req.url ?? '').replace(/^\/raw\//, ''));
  const statements = raw.get(name);
  if (!statements || appDb.kind !== 'postgres') {
    res.writeHead(404).end();
    return;
  }
  replay(statements).then((results) => rawBody(name, results)).then(
    ({ type, body }) => {
      res.writeHead(200, { 'content-type': type, 'content-length': Buffer.byteLength(body) }).end(body);
    },
    (err: Error) => {
      if (!reported.has(name)) process.stderr.write(`raw ${name}: ${err.message}\n`);
      reported.add(name);
      res.writeHead(500).end();
    },
  );
});

/**
 * Session-level app.tenant_id per raw connection: not RLS (the bench connects as a superuser, and
 * the role is not switched), but SQL that reads the setting itself (the contacts search function)
 * must see the tenant to return what the service gets.
 */
const boundTenant = new WeakMap<pg.PoolClient, number>();

/**
 * Statements EXPLAIN takes. Others the service sends inside its transaction (the dashboard's
 * `set local jit = off`) are run as they are, before the statements they affect.
 */
const explainable = (text: string) => /^\s*(\(|select|with|insert|update|delete|values|table|merge)\b/i.test(text);
/** A SET LOCAL only takes effect inside a transaction (outside one PostgreSQL only warns). */
const setsLocal = (statements: CapturedQuery[]) => statements.some((q) => /^\s*set\s+local\b/i.test(q.text));

/** The captured query as pg takes it: without a parameter list when it had no parameters. */
function queryConfig(q: CapturedQuery): pg.QueryConfig {
  if (q.values.length) return q.config as pg.QueryConfig;
  const { values: _values, ...config } = q.config;
  return config as pg.QueryConfig;
}

/**
 * The captured statements in order on one pooled connection, as the service's transaction ran them.
 * No transaction, unless the statements hold a SET LOCAL (then begin … commit around them, so the
 * setting holds for the statements after it, as in the service).
 */
async function replay(statements: CapturedQuery[]) {
  const client = await pool.connect();
  const inTransaction = setsLocal(statements);
  try {
    if (boundTenant.get(client) !== tenantId) {
      // The service plans without parallel workers (src/db/client.ts): the same plans here.
      await client.query(`select set_config('app.tenant_id', $1, false), set_config('max_parallel_workers_per_gather', '0', false)`, [String(tenantId)]);
      boundTenant.set(client, tenantId);
    }
    if (inTransaction) await client.query('begin');
    const results = [];
    for (const q of statements) results.push((await client.query(queryConfig(q))).rows ?? []);
    if (inTransaction) await client.query('commit');
    return results;
  } catch (err) {
    if (inTransaction) await client.query('rollback').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}
await new Promise<void>((resolve) => rawServer.listen(0, '127.0.0.1', resolve));

type Message = { id: number; cmd: string; name?: string; tenantId?: number; sessionId?: number };

const executionMs = (plan: string) => Number(/Execution Time: ([\d.]+) ms/.exec(plan)?.[1] ?? NaN);

/**
 * EXPLAIN (ANALYZE, BUFFERS) of a scenario's statements twice: as the service runs them (in a
 * transaction bound to the tenant, as app_user under RLS) and as the raw ceiling does (no RLS).
 * Plans can differ: RLS keeps non-leakproof operators (LIKE, ILIKE) out of index conditions.
 */
async function explain(name: string, tenantId: number) {
  const client = await pool.connect();
  const statements = raw.get(name) ?? [];
  /** One pass over the statements in one transaction (rolled back): EXPLAIN of each explainable one, the others run as they are. */
  async function pass(rls: boolean): Promise<(string | undefined)[]> {
    await client.query('begin');
    try {
      await client.query(
        rls
          ? `select set_config('app.tenant_id', $1, true), set_config('max_parallel_workers_per_gather', '0', true), set_config('role', 'app_user', true)`
          : `select set_config('app.tenant_id', $1, true), set_config('max_parallel_workers_per_gather', '0', true)`,
        [String(tenantId)],
      );
      const plans: (string | undefined)[] = [];
      for (const q of statements) {
        if (!explainable(q.text)) {
          await client.query(queryConfig(q));
          plans.push(undefined);
          continue;
        }
        const text = `explain (analyze, buffers) ${q.text}`;
        const result = await client.query(q.values.length ? { text, values: q.values } : { text });
        plans.push(result.rows.map((r) => r['QUERY PLAN']).join('\n'));
      }
      return plans;
    } finally {
      await client.query('rollback');
    }
  }
  try {
    let rls: (string | undefined)[] = [], bare: (string | undefined)[] = [];
    // Twice, keeping the second: the first pass warms the cache for both.
    for (let i = 0; i < 2; i++) {
      rls = await pass(true);
      bare = await pass(false);
    }
    return statements.flatMap((q, i) =>
      rls[i] === undefined ? [] : [{ sql: q.text, params: JSON.stringify(q.values), plan: rls[i]!, rlsMs: executionMs(rls[i]!), rawMs: executionMs(bare[i]!) }],
    );
  } finally {
    client.release();
  }
}

async function handle(msg: Message): Promise<unknown> {
  switch (msg.cmd) {
    case 'capture-start':
      await pauseWorker();
      startCapture();
      return null;
    case 'capture-auth':
      authTexts = new Set(stopCapture().map((q) => q.text));
      resumeWorker();
      return [...authTexts];
    case 'capture-stop': {
      const statements = serviceStatements(stopCapture(), authTexts);
      resumeWorker();
      raw.set(msg.name!, statements);
      tenantId = msg.tenantId!;
      // The replay must return what the service got, or the ceiling measures something else.
      const replayed = appDb.kind === 'postgres' && statements.length ? await replay(statements) : [];
      const mismatches = replayed
        .map((rows, i) => (rows.length === statements[i].rowCount ? '' : `statement ${i + 1}: service ${statements[i].rowCount} rows, replay ${rows.length}`))
        .filter(Boolean);
      return { sql: statements.map((q) => q.text), mismatches };
    }
    case 'explain':
      return explain(msg.name!, msg.tenantId!);
    case 'queue': {
      // What the worker has still to do: queued changes and due jobs (write scenarios leave them).
      const r = await pool.query(`select (select count(*) from change_queue)::int as changes,
        (select count(*) from jobs where status in ('Pending', 'Running') and run_at <= now())::int as jobs`);
      return { ...r.rows[0], worker: withWorker };
    }
    case 'checkin-reset': {
      // Scenario a4 checks families into one session and never out: without this their open codes
      // pile up run after run (2,431 after a morning), the code check reads them all and a
      // random start meets families still checked in (409). Everyone is checked out first.
      await pool.query(
        `with codes as (update attendance_checkin_codes set is_open = false where tenant_id = $1 and session_id = $2 and is_open)
         update attendance_checkins set status = 'CheckedOut', checked_out_at = now() where tenant_id = $1 and session_id = $2 and status = 'CheckedIn'`,
        [msg.tenantId, msg.sessionId],
      );
      await pool.query('analyze attendance_checkin_codes, attendance_checkins');
      return null;
    }
    case 'rss':
      return process.memoryUsage().rss;
    case 'gc':
      globalThis.gc?.();
      return process.memoryUsage().rss;
    default:
      throw new Error(`unknown command ${msg.cmd}`);
  }
}

process.on('message', (msg: Message) => {
  handle(msg).then(
    (result) => process.send!({ id: msg.id, result }),
    (err: Error) => process.send!({ id: msg.id, error: err.message }),
  );
});
process.on('disconnect', async () => {
  await app.close();
  rawServer.close();
  await appDb.close();
  process.exit(0);
});

process.send!({
  ready: true,
  servicePort: (app.server.address() as AddressInfo).port,
  rawPort: (rawServer.address() as AddressInfo).port,
  kind: appDb.kind,
});
