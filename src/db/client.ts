import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { sql } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import * as schema from './schema/index.js';

export type Schema = typeof schema;
/** A database handle or a transaction: repositories take either. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;

export interface AppDb {
  db: Db;
  kind: 'pglite' | 'postgres';
  close(): Promise<void>;
}

export interface DbConfig {
  databaseUrl?: string;
  dataDir: string;
  /** In-memory PGlite (tests); `loadDataDir` starts it from a dumped template. */
  memory?: boolean;
  loadDataDir?: Blob;
  poolSize?: number;
}

export async function openDb(config: DbConfig): Promise<AppDb> {
  if (config.databaseUrl) {
    const pool = new pg.Pool({ connectionString: config.databaseUrl, max: config.poolSize ?? 10 });
    // An idle client's error (server restart) must not crash the process; the next query reconnects.
    pool.on('error', () => {});
    const db = drizzlePg(pool, { schema }) as unknown as Db;
    return { db, kind: 'postgres', close: () => pool.end() };
  }
  const lock = config.memory ? undefined : lockDataDir(config.dataDir);
  try {
    const client = await PGlite.create({
      dataDir: config.memory ? undefined : path.join(config.dataDir, 'pgdata'),
      loadDataDir: config.loadDataDir,
      extensions: { pg_trgm },
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

/** The PGlite data directory is in use: a message for the operator, not a crash. */
export class DatabaseLockedError extends Error {}

/**
 * PGlite takes no lock of its own, and two processes on one data directory corrupt it.
 * The lock file holds the owner's pid; a lock left by a dead process is taken over.
 */
export function lockDataDir(dataDir: string): { release(): void } {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, 'parish.lock');
  // Our own pid in the file is a stale lock (a container restarts as pid 1 again), unless this very
  // process holds it: that is remembered in memory.
  const key = path.resolve(file);
  if (heldLocks.has(key)) throw new DatabaseLockedError(`The database in ${dataDir} is already open in this process.`);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: 'wx' });
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
      const owner = Number(fs.readFileSync(file, 'utf8').trim());
      if (isAlive(owner) && owner !== process.pid) {
        throw new DatabaseLockedError(
          `The database in ${dataDir} is in use by another Parish process (pid ${owner}). ` +
            'Stop it first, or set DATA_DIR to another directory.',
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
 * Runs fn in a transaction bound to one tenant: row level security (as app_user) then hides every
 * other tenant's rows even from a query that forgets its tenant filter. Both settings are
 * transaction-local: PGlite has one session for the whole process, so a plain SET would leak.
 */
export async function withTenant<T>(db: Db, tenantId: number, fn: (tx: Db) => Promise<T>): Promise<T> {
  const client = (db as unknown as { $client?: unknown }).$client;
  if (client instanceof pg.Pool) return withTenantOnPool(client, tenantId, fn);
  return db.transaction(async (tx) => {
    await bindTenant(tx as unknown as Db, tenantId);
    return fn(tx as unknown as Db);
  });
}

/** A Drizzle handle per pooled connection, made once: building one walks the whole schema. */
const handles = new WeakMap<pg.PoolClient, Db>();

/**
 * On PostgreSQL, BEGIN and the tenant binding travel in ONE round trip (a simple-protocol query;
 * the tenant id is a checked integer, never text from a request), instead of two through Drizzle's
 * transaction. Requests are round-trip bound, so this is measurable (bench/).
 */
async function withTenantOnPool<T>(pool: pg.Pool, tenantId: number, fn: (tx: Db) => Promise<T>): Promise<T> {
  if (!Number.isSafeInteger(tenantId)) throw new Error(`Invalid tenant id ${tenantId}`);
  const client = await pool.connect();
  let tx = handles.get(client);
  if (!tx) handles.set(client, (tx = drizzlePg(client, { schema }) as unknown as Db));
  try {
    await client.query(`BEGIN; SELECT set_config('app.tenant_id', '${tenantId}', true), set_config('role', 'app_user', true)`);
    const result = await fn(tx);
    await client.query('COMMIT');
    client.release();
    return result;
  } catch (err) {
    // A connection that cannot even roll back is broken: destroy it rather than return it to the pool.
    const broken = await client.query('ROLLBACK').then(() => false, () => true);
    client.release(broken);
    throw err;
  }
}

/** Binds an open transaction to a tenant (withTenant does this; tenant creation needs it mid-transaction). */
export async function bindTenant(tx: Db, tenantId: number): Promise<void> {
  await tx.execute(sql`select set_config('app.tenant_id', ${String(tenantId)}, true), set_config('role', 'app_user', true)`);
}

/** A transaction without a tenant: system work (token lookups by hash, tenant creation). */
export function transaction<T>(db: Db, fn: (tx: Db) => Promise<T>): Promise<T> {
  return db.transaction((tx) => fn(tx as unknown as Db));
}
