import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { openDb, type AppDb } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import { syncSystemRoles } from '../src/modules/tenants/tenants.service.js';
import { generate, type Dataset } from './generate.js';
import type { SizeName } from './sizes.js';
import { adminQuery, withDatabase } from '../src/db/admin.js';

export interface BenchDbOptions {
  /** postgres://… of the bench database (created and dropped here); undefined = PGlite in `dataDir`. */
  databaseUrl?: string;
  dataDir: string;
  size: SizeName;
  otherTenants: number;
  /** Keep an existing database of the same size (its manifest must exist). */
  reuse: boolean;
  /** With reuse: skip the VACUUM ANALYZE of the whole database (a run right after another one). */
  skipVacuum?: boolean;
  log: (message: string) => void;
}

const admin = (url: string, text: string) => adminQuery(withDatabase(url, 'postgres'), text);

const dbName = (url: string) => new URL(url).pathname.slice(1);

function manifestFile(opts: BenchDbOptions) {
  const key = opts.databaseUrl ? `pg-${dbName(opts.databaseUrl)}` : `pglite-${path.basename(opts.dataDir)}`;
  return path.join(os.tmpdir(), `parish-bench-${key}-${opts.size}.json`);
}

/** The data set a run loaded into a PostgreSQL bench database (its manifest), for scripts that measure it again (bench/replicas.ts). */
export function readManifest(databaseUrl: string, size: SizeName): Dataset {
  const file = manifestFile({ databaseUrl, dataDir: '', size, otherTenants: 0, reuse: true, log: () => {} });
  if (!fs.existsSync(file)) throw new Error(`no manifest ${file}: load the database first (npm run bench -- --size ${size} --database-url ${databaseUrl} --generate-only)`);
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

/** A fresh, migrated database holding the generated data set (or the kept one with --reuse). */
export async function prepareDatabase(opts: BenchDbOptions): Promise<{ appDb: AppDb; dataset: Dataset; loadSeconds: number | null }> {
  const file = manifestFile(opts);
  if (opts.reuse && fs.existsSync(file)) {
    opts.log(`reusing the loaded database (${file})`);
    const appDb = await openDb({ databaseUrl: opts.databaseUrl, dataDir: opts.dataDir, poolSize: 10 });
    // Migrations added since the load (new indexes, functions) apply to the kept data too.
    await migrate(appDb);
    await syncSystemRoles(appDb.db);
    if (opts.skipVacuum) opts.log('not vacuumed (--skip-vacuum)');
    else await appDb.db.execute(sql`vacuum analyze`);
    return { appDb, dataset: JSON.parse(fs.readFileSync(file, 'utf8')), loadSeconds: null };
  }
  // A database loaded on another machine or before a reboot has no manifest here: refuse rather than
  // drop it (reloading large takes a quarter of an hour, huge over an hour).
  if (opts.reuse) throw new Error(`--reuse: no manifest ${file} for this database and size; run once without --reuse to (re)load it`);
  if (opts.databaseUrl) {
    const name = dbName(opts.databaseUrl);
    if (!/^[a-z_][a-z0-9_]*$/.test(name) || name === 'postgres') throw new Error(`refusing to recreate database "${name}": name a bench database of your own`);
    await admin(opts.databaseUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin(opts.databaseUrl, `CREATE DATABASE ${name}`);
  } else {
    fs.rmSync(opts.dataDir, { recursive: true, force: true });
  }
  const appDb = await openDb({ databaseUrl: opts.databaseUrl, dataDir: opts.dataDir, poolSize: 10 });
  await migrate(appDb);
  await syncSystemRoles(appDb.db);
  const started = Date.now();
  const dataset = await generate(appDb.db, { size: opts.size, otherTenants: opts.otherTenants, otherSize: 'small', log: opts.log });
  const loadSeconds = (Date.now() - started) / 1000;
  fs.writeFileSync(file, JSON.stringify(dataset));
  return { appDb, dataset, loadSeconds };
}

export async function dropDatabase(databaseUrl: string) {
  await admin(databaseUrl, `DROP DATABASE IF EXISTS ${dbName(databaseUrl)} WITH (FORCE)`);
}
