import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { isAlive, openDb } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';
import { adminQuery, withDatabase } from '../../src/db/admin.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** PGlite: a dumped, migrated data directory each test file starts from. */
    pgliteTemplate: string;
    /** PostgreSQL: a migrated template database each test file copies. */
    pgTemplate: string;
  }
}

/** Migrates once per run; every test file then gets its own copy (api: test/helpers/db.ts). */
export default async function setup(project: TestProject) {
  const url = process.env.DATABASE_URL;
  if (!url) {
    const appDb = await openDb({ dataDir: '', memory: true });
    await migrate(appDb);
    const dump = await (appDb.db as unknown as { $client: { dumpDataDir(c: 'none'): Promise<Blob> } }).$client.dumpDataDir('none');
    await appDb.close();
    const file = path.join(os.tmpdir(), `parish-template-${process.pid}-${crypto.randomUUID()}.tar`);
    fs.writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
    project.provide('pgliteTemplate', file);
    project.provide('pgTemplate', '');
    return () => fs.rmSync(file, { force: true });
  }
  // Names carry this run's id (pid + random): parallel runs on one server must never drop each
  // other's databases. Teardown drops this run's databases and those of runs whose process is gone.
  const runId = `${process.pid}_${crypto.randomBytes(3).toString('hex')}`;
  const template = `parish_tpl_${runId}`;
  await adminQuery(url, `CREATE DATABASE ${template}`);
  const appDb = await openDb({ dataDir: '', databaseUrl: withDatabase(url, template), poolSize: 1 });
  await migrate(appDb);
  await appDb.close();
  project.provide('pgTemplate', template);
  project.provide('pgliteTemplate', '');
  return async () => {
    const { rows } = await adminQuery(url, String.raw`SELECT datname FROM pg_database WHERE datname ~ '^parish_(t|tpl)_[0-9]+_'`);
    for (const { datname } of rows as { datname: string }[]) {
      const [, kind, pid, rand] = /^parish_(t|tpl)_(\d+)_([0-9a-f]+)/.exec(datname) ?? [];
      const ours = `${pid}_${rand}` === runId;
      if (!kind || (!ours && isAlive(Number(pid)))) continue;
      await adminQuery(url, `DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`).catch(() => {});
    }
  };
}

/** A test file's database name: `parish_t_<run id>_<random>` (the run id comes from the template name). */
export function testDatabaseName(template: string): string {
  return `${template.replace(/^parish_tpl_/, 'parish_t_')}_${crypto.randomBytes(6).toString('hex')}`;
}

export { adminQuery, withDatabase };
