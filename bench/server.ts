/**
 * The benchmark's server process: the real application (buildApp on the bench database) and, on a
 * second port, the "raw ceiling" — a bare node:http handler that replays the SQL the service ran
 * for a scenario through the same pg pool, with no framework, auth, validation or RLS.
 * Driven by the parent (bench/run.ts) over IPC.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type pg from 'pg';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDb } from '../src/db/client.js';
import { installCapture, serviceStatements, startCapture, stopCapture, type CapturedQuery } from './sql-capture.js';

installCapture();

const config = {
  ...loadConfig({ NODE_ENV: 'production', JWT_SECRET: crypto.randomBytes(48).toString('hex'), DATA_DIR: process.env.BENCH_DATA_DIR, LOG_LEVEL: 'warn' }),
  databaseUrl: process.env.BENCH_DATABASE_URL || undefined,
  // The login scenario runs thousands of logins from one address (api-contract §3: the bench raises the limits).
  authRateLimit: { accountFailures: 1_000_000, ipPerMinute: 1_000_000 },
};
const appDb = await openDb({ ...config, poolSize: 10 });
const pool = (appDb.db as unknown as { $client: pg.Pool }).$client;
const app = await buildApp({ config, db: appDb.db, logger: { level: 'warn' } });
await app.listen({ host: '127.0.0.1', port: 0 });

const raw = new Map<string, CapturedQuery[]>();
let authTexts = new Set<string>();
let tenantId = 0;
const reported = new Set<string>();

const rawServer = http.createServer((req, res) => {
  const name = decodeURIComponent((req.url ?? '').replace(/^\/raw\//, ''));
  const statements = raw.get(name);
  if (!statements || appDb.kind !== 'postgres') {
    res.writeHead(404).end();
    return;
  }
  replay(statements).then(
    (results) => {
      const body = JSON.stringify(results);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
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

/** The captured statements in order on one pooled connection, as the service's transaction ran them. */
async function replay(statements: CapturedQuery[]) {
  const client = await pool.connect();
  try {
    if (boundTenant.get(client) !== tenantId) {
      // The service plans without parallel workers (src/db/client.ts): the same plans here.
      await client.query(`select set_config('app.tenant_id', $1, false), set_config('max_parallel_workers_per_gather', '0', false)`, [String(tenantId)]);
      boundTenant.set(client, tenantId);
    }
    const results = [];
    for (const q of statements) results.push((await client.query(q.config as pg.QueryConfig)).rows);
    return results;
  } finally {
    client.release();
  }
}
await new Promise<void>((resolve) => rawServer.listen(0, '127.0.0.1', resolve));

type Message = { id: number; cmd: string; name?: string; tenantId?: number };

const executionMs = (plan: string) => Number(/Execution Time: ([\d.]+) ms/.exec(plan)?.[1] ?? NaN);

/**
 * EXPLAIN (ANALYZE, BUFFERS) of a scenario's statements twice: as the service runs them (in a
 * transaction bound to the tenant, as app_user under RLS) and as the raw ceiling does (no RLS).
 * Plans can differ: RLS keeps non-leakproof operators (LIKE, ILIKE) out of index conditions.
 */
async function explain(name: string, tenantId: number) {
  const client = await pool.connect();
  try {
    const out = [];
    for (const q of raw.get(name) ?? []) {
      const text = `explain (analyze, buffers) ${q.text}`;
      let rls = '', bare = '';
      // Twice, keeping the second: the first pass warms the cache for both.
      for (let pass = 0; pass < 2; pass++) {
        await client.query('begin');
        await client.query(`select set_config('app.tenant_id', $1, true), set_config('max_parallel_workers_per_gather', '0', true), set_config('role', 'app_user', true)`, [String(tenantId)]);
        rls = (await client.query({ text, values: q.values })).rows.map((r) => r['QUERY PLAN']).join('\n');
        await client.query('rollback');
        bare = (await client.query({ text, values: q.values })).rows.map((r) => r['QUERY PLAN']).join('\n');
      }
      out.push({ sql: q.text, params: JSON.stringify(q.values), plan: rls, rlsMs: executionMs(rls), rawMs: executionMs(bare) });
    }
    return out;
  } finally {
    client.release();
  }
}

async function handle(msg: Message): Promise<unknown> {
  switch (msg.cmd) {
    case 'capture-start':
      startCapture();
      return null;
    case 'capture-auth':
      authTexts = new Set(stopCapture().map((q) => q.text));
      return [...authTexts];
    case 'capture-stop': {
      const statements = serviceStatements(stopCapture(), authTexts);
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
