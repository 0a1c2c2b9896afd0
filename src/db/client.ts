import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { Placeholder, sql } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { createReplicaSet, type ReplicaSet } from './replicas.js';
import * as schema from './schema/index.js';

export type Schema = typeof schema;
/** A database handle or a transaction: repositories take either. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;

export interface AppDb {
  db: Db;
  kind: 'pglite' | 'postgres';
  /** The read replicas (DATABASE_REPLICA_URLS), when configured. */
  replicas?: ReplicaSet;
  close(): Promise<void>;
}

export interface DbConfig {
  databaseUrl?: string;
  dataDir: string;
  /** In-memory PGlite (tests); `loadDataDir` starts it from a dumped template. */
  memory?: boolean;
  loadDataDir?: Blob;
  poolSize?: number;
  /** Hot standbys of databaseUrl (see src/db/replicas.ts). */
  replicaUrls?: string[];
  replicaMaxLagMs?: number;
  /** Who holds an embedded data directory, as its lock file tells a second process (e.g. "the server (parish serve)"). */
  holder?: string;
}

export async function openDb(config: DbConfig): Promise<AppDb> {
  if (config.databaseUrl) {
    const pool = new pg.Pool({ connectionString: config.databaseUrl, max: config.poolSize ?? 10 });
    // An idle client's error (server restart) must not crash the process; the next query reconnects.
    pool.on('error', () => {});
    const db = drizzlePg(pool, { schema }) as unknown as Db;
    const replicas = config.replicaUrls?.length
      ? createReplicaSet({ primary: pool, urls: config.replicaUrls, maxLagMs: config.replicaMaxLagMs ?? 5000, poolSize: config.poolSize })
      : undefined;
    return {
      db,
      kind: 'postgres',
      replicas,
      close: async () => {
        await replicas?.close();
        await pool.end();
      },
    };
  }
  const lock = config.memory ? undefined : lockDataDir(config.dataDir, config.holder);
  try {
    const client = await PGlite.create({
      dataDir: config.memory ? undefined : path.join(config.dataDir, 'pgdata'),
      loadDataDir: config.loadDataDir,
      extensions: { pg_trgm },
      startParams: config.memory ? undefined : [...PGlite.defaultStartParams, ...SMALL_SERVER],
    });
    const db = drizzlePglite(client, { schema }) as unknown as Db;
    return {
      db,
      kind: 'pglite',
      close: async () => {
        await client.close();
        lock?.release();
      },
    };
  } catch (err) {
    lock?.release();
    throw err;
  }
}

/**
 * A data directory's PGlite is one process's database: PostgreSQL's default 128 MB of shared buffers
 * (zeroed at start, so resident at once) and room for 100 connections made the idle server 300 MB
 * before any of our code ran, and took 1.6 s of the start. 16 MB of buffers in front of the OS page
 * cache: an idle server of ~185 MB for PGlite alone, opened in 0.8 s (README, "Start-up and memory").
 * In-memory databases (the tests') keep the defaults: their files live inside the WASM heap anyway.
 */
const SMALL_SERVER = ['-c', 'shared_buffers=16MB', '-c', 'max_connections=5'];

/** The PGlite data directory is in use: a message for the operator, not a crash. */
export class DatabaseLockedError extends Error {}

/**
 * PGlite takes no lock of its own, and two processes on one data directory corrupt it.
 * The lock file holds the owner's pid (first line) and who it is (second line); a lock left by a
 * dead process is taken over.
 */
export function lockDataDir(dataDir: string, holder = 'a Parish command'): { release(): void } {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, 'parish.lock');
  // Our own pid in the file is a stale lock (a container restarts as pid 1 again), unless this very
  // process holds it: that is remembered in memory.
  const key = path.resolve(file);
  if (heldLocks.has(key)) throw new DatabaseLockedError(`The database in ${dataDir} is already open in this process.`);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, `${process.pid}\n${holder}\n`, { flag: 'wx' });
      heldLocks.add(key);
      let released = false;
      return {
        release: () => {
          if (released) return;
          released = true;
          heldLocks.delete(key);
          fs.rmSync(file, { force: true });
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const [pid, owner] = fs.readFileSync(file, 'utf8').split('\n');
      const ownerPid = Number(pid.trim());
      if (isAlive(ownerPid) && ownerPid !== process.pid) {
        throw new DatabaseLockedError(
          `The database in ${dataDir} is in use by another Parish process (pid ${ownerPid}${owner?.trim() ? `, ${owner.trim()}` : ''}): ` +
            'an embedded database serves one process at a time.',
        );
      }
      fs.rmSync(file, { force: true });
    }
  }
  throw new Error(`Could not lock ${dataDir}`);
}

const heldLocks = new Set<string>();

export function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Tenant work is short OLTP: parallel workers only add their start-up cost, and under concurrent
 * requests on few cores they halve throughput (bench/: event read with 1,100 roster rows, 61 → 115
 * req/s). Transaction-local, like the binding.
 */
const SERIAL_PLANS = `set_config('max_parallel_workers_per_gather', '0', true)`;

/** Whose tenant a unit of work runs in: a tenant id, or a request's principal (see beginTenantAhead). */
export type TenantRef = number | { readonly tenantId: number };

/**
 * Runs fn in a transaction bound to one tenant: row level security (as app_user) then hides every
 * other tenant's rows even from a query that forgets its tenant filter. Both settings are
 * transaction-local: PGlite has one session for the whole process, so a plain SET would leak.
 * Given a principal whose request began its transaction ahead (beginTenantAhead), the first call
 * runs in that transaction instead of opening one.
 */
export async function withTenant<T>(db: Db, tenant: TenantRef, fn: (tx: Db) => Promise<T>): Promise<T> {
  const early = typeof tenant === 'object' ? takeAhead(tenant) : undefined;
  if (early) return runAndCommit(early, fn, typeof tenant === 'object' ? tenant.tenantId : tenant);
  const tenantId = typeof tenant === 'number' ? tenant : tenant.tenantId;
  const client = (db as unknown as { $client?: unknown }).$client;
  if (client instanceof pg.Pool) return runAndCommit(await beginOnPool(client, checkedInteger(tenantId)), fn);
  return db.transaction(async (tx) => {
    await bindTenant(tx as unknown as Db, tenantId);
    return fn(tx as unknown as Db);
  });
}

/** A transaction begun on a pooled connection, with the Drizzle handle that runs on it. */
interface PoolTransaction {
  client: pg.PoolClient;
  tx: Db;
  /** Begun READ ONLY (see AheadOptions.readOnly): its COMMIT is not waited for. */
  readOnly?: boolean;
  /** On a replica: where the work runs again if the replica fails it (see beginReplicaAhead). */
  retry?: (err: unknown) => Db | undefined;
}

/** A Drizzle handle per pooled connection, made once: building one walks the whole schema. */
const handles = new WeakMap<pg.PoolClient, Db>();

function checkedInteger(value: number): number {
  if (!Number.isSafeInteger(value)) throw new Error(`Not an integer: ${value}`);
  return value;
}

/**
 * A statement run ahead of a request's handler (see beginTenantAhead), prepared once per
 * connection: planning it is most of its cost.
 */
export interface LeadingStatement {
  /** The prepared statement's name on each connection (unique among leading statements). */
  name: string;
  /** Parameter types of `sql`'s $1, $2, … */
  types: string[];
  sql: string;
}

/** Which leading statements each pooled connection has prepared. */
const preparedOn = new WeakMap<pg.PoolClient, Set<string>>();

/** How a request's transaction begun ahead (beginTenantAhead) runs. */
export interface AheadOptions {
  /**
   * BEGIN READ ONLY: PostgreSQL refuses any write in it, so nothing can fail at its COMMIT and the
   * handler's answer need not wait for COMMIT's reply (the connection returns to the pool when it
   * comes). For routes that only read.
   */
  readOnly?: boolean;
  /**
   * A read that needs only the leading statement's arguments (the caller's tenant and user), run
   * in the same message after it, followed by COMMIT: the request's whole transaction in one round
   * trip. Its rows are handed to the owner (takeReadAhead); they are thrown away when the principal
   * check fails. Implies read only.
   */
  readAhead?: LeadingStatement;
}

/**
 * On PostgreSQL, BEGIN and the tenant binding travel in ONE round trip (a simple-protocol query;
 * the tenant id is a checked integer, never text from a request), instead of two through Drizzle's
 * transaction, and a leading statement (see beginTenantAhead) rides along.
 * Requests are round-trip bound, so this is measurable (bench/).
 */
async function beginOnPool(
  pool: pg.Pool,
  tenantId: number,
  leading?: { statement: LeadingStatement; args: number[] },
  options: AheadOptions = {},
): Promise<PoolTransaction & { rows: unknown[][]; readRows?: unknown[][] }> {
  const client = await pool.connect();
  let tx = handles.get(client);
  if (!tx) {
    handles.set(client, (tx = drizzlePg(client, { schema }) as unknown as Db));
    // A connection that drops while checked out emits 'error': without a listener that ends the
    // process. The query in flight fails on its own, and rollbackAndRelease destroys the client.
    client.on('error', () => {});
  }
  let prepared = preparedOn.get(client);
  if (!prepared) preparedOn.set(client, (prepared = new Set()));
  const readAhead = leading && options.readAhead;
  const readOnly = Boolean(options.readOnly || readAhead);
  const parts = [`BEGIN${readOnly ? ' READ ONLY' : ''}; SELECT set_config('app.tenant_id', '${tenantId}', true), ${SERIAL_PLANS}, set_config('role', 'app_user', true)`];
  const statements = leading ? [leading.statement, ...(readAhead ? [readAhead] : [])] : [];
  // PREPARE is not undone by a rollback: a connection whose first try failed is destroyed below.
  const fresh = statements.some((st) => !prepared.has(st.name));
  const list = (items: unknown[]) => (items.length ? `(${items.join(', ')})` : '');
  // Where each EXECUTE's result will be: the first part holds two statements (BEGIN and the binding).
  const executed: number[] = [];
  for (const { name, types, sql: text } of statements) {
    if (!prepared.has(name)) parts.push(`PREPARE ${name}${list(types)} AS ${text}`);
    executed.push(parts.push(`EXECUTE ${name}${list(leading!.args.map(checkedInteger))}`));
  }
  if (readAhead) parts.push('COMMIT');
  try {
    const results = (await client.query({ text: parts.join('; '), rowMode: 'array' })) as unknown as pg.QueryResult[];
    for (const st of statements) prepared.add(st.name);
    const executes = executed.map((at) => results[at]);
    if (readAhead) {
      client.release();
      return { client, tx, rows: executes[0].rows as unknown[][], readRows: executes[1].rows as unknown[][] };
    }
    return { client, tx, readOnly, rows: leading ? (executes[0].rows as unknown[][]) : [] };
  } catch (err) {
    if (fresh) client.release(true);
    else await rollbackAndRelease({ client, tx });
    throw err;
  }
}

async function runAndCommit<T>(begun: PoolTransaction, fn: (tx: Db) => Promise<T>, tenantId?: number): Promise<T> {
  let result: T;
  try {
    result = await fn(begun.tx);
    if (begun.readOnly) {
      // A read-only transaction wrote nothing (PostgreSQL refused any write): answer now, and give
      // the connection back once COMMIT has ended the transaction (or destroy it if COMMIT fails).
      begun.client.query('COMMIT').then(() => begun.client.release(), () => begun.client.release(true));
      return result;
    }
    await begun.client.query('COMMIT');
  } catch (err) {
    await rollbackAndRelease(begun);
    // A replica that stopped, restarted or cancelled the read (a recovery conflict): the same read
    // on the primary, which is always right. An error of the request itself (a 404) is not retried.
    const primary = begun.retry?.(err);
    if (primary && tenantId !== undefined) return withTenant(primary, tenantId, fn);
    throw err;
  }
  begun.client.release();
  return result;
}

/** A connection that cannot even roll back is broken: destroy it rather than return it to the pool. */
async function rollbackAndRelease({ client }: PoolTransaction): Promise<void> {
  const broken = await client.query('ROLLBACK').then(() => false, () => true);
  client.release(broken);
}

/** Tenant transactions begun ahead of their first use, by owner (a request's principal). */
const ahead = new WeakMap<object, PoolTransaction>();

/** Rows of a read ahead (AheadOptions.readAhead), by owner, until the handler takes them. */
const readsAhead = new WeakMap<object, { name: string; rows: unknown[][] }>();

/**
 * The rows of `statement` if it was read ahead for this owner (its request's transaction then is
 * over); undefined otherwise (PGlite, another route's read): the caller then reads as usual.
 */
export function takeReadAhead(owner: object, statement: LeadingStatement): unknown[][] | undefined {
  const read = readsAhead.get(owner);
  if (!read || read.name !== statement.name) return undefined;
  readsAhead.delete(owner);
  return read.rows;
}

function takeAhead(owner: object): PoolTransaction | undefined {
  const begun = ahead.get(owner);
  ahead.delete(owner);
  return begun;
}

export interface TransactionAhead {
  /** The rows of `leading`, as arrays in select-list order. */
  rows: unknown[][];
  /** The first withTenant(db, owner, …) runs in this transaction. */
  handTo(owner: object): void;
  /** Rolls back and frees the connection (when the transaction is not needed after all). */
  release(): void;
}

/**
 * Begins a tenant transaction now and executes `leading` (prepared on first use per connection)
 * with integer `args` in the same round trip as BEGIN and the binding, for a request whose first
 * query is known before its handler runs: the principal check. That saves a round trip per
 * request. The transaction then belongs to an owner (handTo), whose first withTenant uses it; an
 * owner that never does must be let go with releaseAhead, or the connection stays checked out.
 * PostgreSQL only: PGlite has no round trips to save, so there this answers undefined and the
 * caller runs its query as usual.
 */
export async function beginTenantAhead(db: Db, tenantId: number, leading: LeadingStatement, args: number[], options: AheadOptions = {}): Promise<TransactionAhead | undefined> {
  const pool = (db as unknown as { $client?: unknown }).$client;
  if (!(pool instanceof pg.Pool)) return undefined;
  const begun = await beginOnPool(pool, checkedInteger(tenantId), { statement: leading, args }, options);
  const readRows = begun.readRows;
  if (readRows) {
    // The transaction is over already (committed in the same message): nothing to release.
    return { rows: begun.rows, handTo: (owner) => void readsAhead.set(owner, { name: options.readAhead!.name, rows: readRows }), release() {} };
  }
  let owned = false;
  return {
    rows: begun.rows,
    handTo(owner) {
      owned = true;
      ahead.set(owner, begun);
    },
    release() {
      if (!owned) void rollbackAndRelease(begun);
    },
  };
}

/**
 * Begins a READ ONLY tenant transaction on a replica's pool for `owner` (a request's principal,
 * checked on the primary): its first withTenant runs there. If the replica fails that work with
 * anything but an error of the request itself (statusCode < 500), `onFailure` is told and the work
 * runs again on `primary`. Throws when the replica cannot begin (the caller then reads on the primary).
 */
export async function beginReplicaAhead(replica: pg.Pool, primary: Db, tenantId: number, owner: object, onFailure: (err: unknown) => void): Promise<void> {
  const begun = await beginOnPool(replica, checkedInteger(tenantId), undefined, { readOnly: true });
  begun.retry = (err) => {
    const status = (err as { statusCode?: unknown })?.statusCode;
    if (typeof status === 'number' && status < 500) return undefined;
    onFailure(err);
    return primary;
  };
  ahead.set(owner, begun);
}

/** Ends the owner's transaction begun ahead if nothing used it (safe to call any number of times). */
export function releaseAhead(owner: object): void {
  const begun = takeAhead(owner);
  if (begun) void rollbackAndRelease(begun);
}

/**
 * A Drizzle query as the text of a PREPARE (see LeadingStatement): its placeholders become $1, $2, …
 * in the order of `placeholders`; any other parameter is written in as a literal (integers, and
 * strings quoted by pg's escapeLiteral).
 */
export function preparedText(query: { sql: string; params: unknown[] }, placeholders: string[]): string {
  const text = (param: unknown): string => {
    if (param instanceof Placeholder) {
      const index = placeholders.indexOf(param.name);
      if (index < 0) throw new Error(`Unlisted placeholder ${param.name}`);
      return `$${index + 1}`;
    }
    if (typeof param === 'number' && Number.isSafeInteger(param)) return String(param);
    if (typeof param === 'string') return pg.escapeLiteral(param);
    throw new Error(`Cannot write parameter ${String(param)} as a literal`);
  };
  return query.sql.replace(/\$(\d+)/g, (_, n: string) => text(query.params[Number(n) - 1]));
}

/**
 * A query built once per database handle instead of on every call: building a Drizzle select walks
 * its whole SQL tree (entity checks, escaping, parameter lists), a measurable share of a hot read's
 * CPU (bench/). Pooled connections keep one handle each (see handles), so on PostgreSQL the query
 * is built once per connection; elsewhere (PGlite's per-transaction handles) the cache simply
 * misses. `build` must return an unnamed prepared query (`.prepare(UNNAMED)`) whose varying values
 * are all `sql.placeholder`s: the statement text goes out as before (unnamed, planned per execution).
 */
export function perHandle<Q>(build: (db: Db) => Q): (db: Db) => Q {
  const cache = new WeakMap<Db, Q>();
  return (db) => {
    let query = cache.get(db);
    if (!query) cache.set(db, (query = build(db)));
    return query;
  };
}

/**
 * For Drizzle's `.prepare(name)`: no name keeps the statement unnamed (what executing the builder
 * does), so PostgreSQL plans it per execution with the actual values, exactly as an unprepared query.
 */
export const UNNAMED = undefined as unknown as string;

/** Binds an open transaction to a tenant (withTenant does this; tenant creation needs it mid-transaction). */
export async function bindTenant(tx: Db, tenantId: number): Promise<void> {
  await tx.execute(sql`select set_config('app.tenant_id', ${String(tenantId)}, true), ${sql.raw(SERIAL_PLANS)}, set_config('role', 'app_user', true)`);
}

/** A transaction without a tenant: system work (token lookups by hash, tenant creation). */
export function transaction<T>(db: Db, fn: (tx: Db) => Promise<T>): Promise<T> {
  return db.transaction((tx) => fn(tx as unknown as Db));
}
